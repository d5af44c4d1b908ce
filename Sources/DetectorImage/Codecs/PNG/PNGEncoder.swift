import DetectorZlib
import DetectorPlatform
/// Why an image could not be written as PNG.
public enum PNGEncodeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// PNG stores width and height in 31 bits.
    case tooLarge(width: Int, height: Int)

    public var description: String {
        switch self {
        case let .tooLarge(w, h): return "cannot write a \(w)x\(h) PNG: width and height must be at most 2147483647"
        }
    }
}

/// Writes PNG files: `.gray8` as 8-bit gray, `.rgb8` as 8-bit RGB, `.rgba8` as 8-bit RGBA,
/// `.rgba16` as 16-bit RGBA. How hard it works for a small file is the `Compression`: `.fast`
/// (Paeth-filtered rows, run-length DEFLATE: for annotated frames and stills that must keep up
/// with the detector) or a zlib `.level` (rows filtered adaptively, LZ77 + Huffman).
///
/// ```swift
/// let png = try PNGEncoder.encode(annotated)                        // [UInt8], a complete .png file (level 6)
/// let quick = try PNGEncoder.encode(annotated, compression: .fast)  // much faster, a slightly larger file
/// try Data(png).write(to: URL(fileURLWithPath: "out.png"))
/// ```
public enum PNGEncoder {
    /// The speed / size trade-off of the encoder. Every setting writes a standard PNG that
    /// decodes to the same pixels.
    public enum Compression: Sendable, Equatable {
        /// Every row Paeth-filtered, then DEFLATE with runs of one byte value as distance-1 matches
        /// and dynamic Huffman codes (zlib's `Z_RLE` strategy): 12–23 times faster than level 6
        /// on photos, files 1–18 % larger (README, "Formats and annotated output").
        case fast
        /// zlib level 0 (stored) … 9 (smallest): each row gets the filter with the smallest sum of
        /// absolute differences, then LZ77 with hash chains (lazy matching from level 4) and Huffman codes.
        case level(Int)
    }

    /// Encodes the image. `level` is the zlib level (1 fastest … 9 smallest); see `encode(_:compression:)`.
    public static func encode(_ image: ImageBuffer, level: Int = 6) throws(PNGEncodeError) -> [UInt8] {
        try encode(image, compression: .level(level))
    }

    /// Encodes the image with the chosen compression.
    public static func encode(_ image: ImageBuffer, compression: Compression) throws(PNGEncodeError) -> [UInt8] {
        guard image.width <= 0x7FFF_FFFF, image.height <= 0x7FFF_FFFF else {
            throw .tooLarge(width: image.width, height: image.height)
        }
        let (colorType, depth): (UInt8, UInt8)
        switch image.format {
        case .gray8: (colorType, depth) = (0, 8)
        case .rgb8: (colorType, depth) = (2, 8)
        case .rgba8: (colorType, depth) = (6, 8)
        case .rgba16: (colorType, depth) = (6, 16)
        }
        let compressed: [UInt8]
        switch compression {
        case .fast: compressed = Zlib.compressRuns(PNGFilter.fixed(image, type: 4))
        case let .level(level): compressed = Zlib.compress(filtered(image), level: level)
        }
        var out = PNGDecoder.signature
        out.reserveCapacity(compressed.count + compressed.count / (1 << 18) * 12 + 64)
        var ihdr = [UInt8]()
        ihdr += bigEndian(UInt32(image.width))
        ihdr += bigEndian(UInt32(image.height))
        ihdr += [depth, colorType, 0, 0, 0]
        appendChunk("IHDR", ihdr[...], to: &out)
        let maxChunk = 1 << 18
        var start = 0
        repeat {
            let end = min(compressed.count, start + maxChunk)
            appendChunk("IDAT", compressed[start..<end], to: &out)
            start = end
        } while start < compressed.count
        appendChunk("IEND", ArraySlice<UInt8>(), to: &out)
        return out
    }

    /// The scanlines, each prefixed by the filter type that minimises the sum of |filtered byte as Int8|.
    package static func filtered(_ image: ImageBuffer) -> [UInt8] {
        PNGFilter.adaptive(image)
    }

    private static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    /// Length, type, data and the CRC-32 of type and data.
    private static func appendChunk(_ type: String, _ data: ArraySlice<UInt8>, to out: inout [UInt8]) {
        out += bigEndian(UInt32(data.count))
        let typeBytes = Array(type.utf8)
        var crc = CRC32()
        crc.update(typeBytes)
        data.withUnsafeBytes { crc.update($0) }
        out += typeBytes
        out += data
        out += bigEndian(crc.value)
    }
}
