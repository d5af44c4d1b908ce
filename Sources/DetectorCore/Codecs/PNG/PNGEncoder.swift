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
/// `.rgba16` as 16-bit RGBA. Each row gets the filter with the smallest sum of absolute
/// differences, then the image data is deflated (LZ77 + Huffman).
///
/// ```swift
/// let png = try PNGEncoder.encode(annotated)          // [UInt8], a complete .png file
/// try Data(png).write(to: URL(fileURLWithPath: "out.png"))
/// ```
public enum PNGEncoder {
    /// Encodes the image. `level` is the zlib level (1 fastest … 9 smallest).
    public static func encode(_ image: ImageBuffer, level: Int = 6) throws(PNGEncodeError) -> [UInt8] {
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
        var out = PNGDecoder.signature
        var ihdr = [UInt8]()
        ihdr += bigEndian(UInt32(image.width))
        ihdr += bigEndian(UInt32(image.height))
        ihdr += [depth, colorType, 0, 0, 0]
        appendChunk("IHDR", ihdr, to: &out)
        let compressed = Zlib.compress(filtered(image), level: level)
        let maxChunk = 1 << 18
        var start = 0
        repeat {
            let end = min(compressed.count, start + maxChunk)
            appendChunk("IDAT", Array(compressed[start..<end]), to: &out)
            start = end
        } while start < compressed.count
        appendChunk("IEND", [], to: &out)
        return out
    }

    /// The scanlines, each prefixed by the filter type that minimises the sum of |filtered byte as Int8|.
    static func filtered(_ image: ImageBuffer) -> [UInt8] {
        let bpp = image.format.bytesPerPixel
        let rowBytes = image.bytesPerRow
        var out = [UInt8](repeating: 0, count: (rowBytes + 1) * image.height)
        var candidate = [UInt8](repeating: 0, count: rowBytes)
        var best = [UInt8](repeating: 0, count: rowBytes)
        let zeros = [UInt8](repeating: 0, count: rowBytes)
        image.pixels.withUnsafeBufferPointer { px in
            for y in 0..<image.height {
                let row = UnsafeBufferPointer(rebasing: px[(y * rowBytes)..<((y + 1) * rowBytes)])
                let prior = y > 0 ? Array(px[((y - 1) * rowBytes)..<(y * rowBytes)]) : zeros
                var bestFilter = 0
                var bestCost = Int.max
                for filter in 0...4 {
                    var cost = 0
                    for i in 0..<rowBytes {
                        let a = i >= bpp ? Int(row[i - bpp]) : 0
                        let b = Int(prior[i])
                        let c = i >= bpp ? Int(prior[i - bpp]) : 0
                        let predictor: Int
                        switch filter {
                        case 0: predictor = 0
                        case 1: predictor = a
                        case 2: predictor = b
                        case 3: predictor = (a + b) >> 1
                        default:
                            let pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c)
                            predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c)
                        }
                        let v = UInt8(truncatingIfNeeded: Int(row[i]) - predictor)
                        candidate[i] = v
                        cost += abs(Int(Int8(bitPattern: v)))
                    }
                    if cost < bestCost {
                        bestCost = cost
                        bestFilter = filter
                        swap(&best, &candidate)
                    }
                }
                out[y * (rowBytes + 1)] = UInt8(bestFilter)
                out.replaceSubrange((y * (rowBytes + 1) + 1)..<((y + 1) * (rowBytes + 1)), with: best)
            }
        }
        return out
    }

    private static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    private static func appendChunk(_ type: String, _ data: [UInt8], to out: inout [UInt8]) {
        out += bigEndian(UInt32(data.count))
        let typeAndData = Array(type.utf8) + data
        out += typeAndData
        out += bigEndian(CRC32.checksum(typeAndData))
    }
}
