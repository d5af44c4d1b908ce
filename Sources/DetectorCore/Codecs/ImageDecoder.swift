import Foundation

/// Why `ImageDecoder` could not decode a file: the format is unknown or not supported, the
/// file cannot be read, or the format's own decoder failed (its typed error is kept).
public enum ImageDecodeError: Error, Sendable, CustomStringConvertible {
    case unknownFormat(firstBytes: [UInt8])
    case jpeg(JPEGError)
    case unreadableFile(path: String, reason: String)
    case png(PNGError)
    case ppm(PPMError)

    public var description: String {
        switch self {
        case let .unknownFormat(first):
            return "unknown image format: the data starts with \(first.map { String(format: "%02x", $0) }.joined(separator: " ")), which is neither PNG, JPEG nor PPM/PGM/PBM"
        case let .jpeg(e): return e.description
        case let .unreadableFile(path, reason):
            return "cannot read \(path): \(reason)"
        case let .png(e): return e.description
        case let .ppm(e): return e.description
        }
    }
}

/// Decodes an image file of any supported format, chosen by its first bytes (not its name).
///
/// ```swift
/// let decoded = try ImageDecoder.decode(contentsOf: "photo.png")
/// let rgba = decoded.image.converted(to: .rgba8)
/// ```
public enum ImageDecoder {
    /// The format the first bytes announce, if any.
    public static func sniff(_ bytes: [UInt8]) -> ImageFileFormat? {
        if bytes.starts(with: PNGDecoder.signature) { return .png }
        if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return .jpeg }
        if bytes.count >= 2, bytes[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(bytes[1]) { return .ppm }
        return nil
    }

    /// Decodes the image in `bytes` (PNG: canonical RGBA8; PPM: rgb8/gray8, see `PPMDecoder`).
    public static func decode(_ bytes: [UInt8], wants16Bit: Bool = false,
                              maxPixels: Int = ImageLimits.defaultMaxPixels) throws(ImageDecodeError) -> DecodedImage {
        switch sniff(bytes) {
        case .png?:
            do {
                var decoded = try PNGDecoder.decode(bytes, wants16Bit: wants16Bit, maxPixels: maxPixels)
                if let exif = decoded.exif { decoded.orientation = EXIFParser.orientation(fromTIFF: exif[...]) }
                return decoded
            } catch { throw .png(error) }
        case .ppm?:
            do { return try PPMDecoder.decode(bytes, wants16Bit: wants16Bit, maxPixels: maxPixels) } catch { throw .ppm(error) }
        case .jpeg?:
            do { return try JPEGDecoder.decode(bytes, maxPixels: maxPixels) } catch { throw .jpeg(error) }
        case nil:
            // A PNG whose signature is damaged is reported by the PNG decoder, which says how.
            if bytes.count >= 4, bytes[1] == 0x50 || bytes[2] == 0x4E || bytes[3] == 0x47 {
                do { return try PNGDecoder.decode(bytes, wants16Bit: wants16Bit, maxPixels: maxPixels) } catch { throw .png(error) }
            }
            if bytes.isEmpty { throw .ppm(.empty) }
            throw .unknownFormat(firstBytes: Array(bytes.prefix(8)))
        }
    }

    /// Reads and decodes a file.
    public static func decode(contentsOf path: String, wants16Bit: Bool = false,
                              maxPixels: Int = ImageLimits.defaultMaxPixels) throws(ImageDecodeError) -> DecodedImage {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadableFile(path: path, reason: (error as NSError).localizedDescription)
        }
        return try decode([UInt8](data), wants16Bit: wants16Bit, maxPixels: maxPixels)
    }
}
