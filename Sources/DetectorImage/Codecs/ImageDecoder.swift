import DetectorZlib
import DetectorPlatform
import Foundation

/// Why `ImageDecoder` could not decode a file: the format is unknown or not supported, the
/// file cannot be read, or the format's own decoder failed (its typed error is kept).
public enum ImageDecodeError: Error, Sendable, CustomStringConvertible {
    /// The data is no PNG, JPEG or PPM; `firstBytes` are its first 12 bytes.
    case unknownFormat(firstBytes: [UInt8])
    /// The data (or the file at `path`) holds no bytes at all.
    case empty(path: String?)
    case jpeg(JPEGError)
    case unreadableFile(path: String, reason: String)
    case png(PNGError)
    case ppm(PPMError)

    public var description: String {
        switch self {
        case let .unknownFormat(first):
            let hex = first.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
            if let kind = ImageDecoder.otherFormat(first) {
                return "not an image objdetect reads: the data is \(kind) (PNG, JPEG and PPM/PGM/PBM are read)"
            }
            return "unknown image format: the data starts with \(hex), which is neither PNG, JPEG nor PPM/PGM/PBM"
        case let .empty(path):
            return "\(path ?? "the image data") is empty (0 bytes): there is no image to decode"
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
            if bytes.isEmpty { throw .empty(path: nil) }
            throw .unknownFormat(firstBytes: Array(bytes.prefix(12)))
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
        if data.isEmpty { throw .empty(path: path) }
        return try decode([UInt8](data), wants16Bit: wants16Bit, maxPixels: maxPixels)
    }

    /// What a file that is no PNG, JPEG or PPM is, by its first bytes, when it is a common video
    /// or image format: "an MP4 or QuickTime video". Videos are told apart so callers can say
    /// how to feed them (frames through ffmpeg).
    package static func otherFormat(_ first: [UInt8]) -> String? {
        if let kind = videoFormat(first) { return kind }
        func ascii(_ text: String, at offset: Int) -> Bool { hasASCII(first, text, at: offset) }
        if ascii("GIF8", at: 0) { return "a GIF image" }
        if ascii("RIFF", at: 0) && ascii("WEBP", at: 8) { return "a WebP image" }
        if ascii("BM", at: 0) { return "a BMP image" }
        if ascii("II*\u{0}", at: 0) || ascii("MM\u{0}*", at: 0) { return "a TIFF image" }
        return nil
    }

    /// "an MP4 or QuickTime video" (ISO base media `ftyp`), "a Matroska or WebM video", "an
    /// AVI video", "an MPEG video", or nil for anything else.
    package static func videoFormat(_ first: [UInt8]) -> String? {
        func ascii(_ text: String, at offset: Int) -> Bool { hasASCII(first, text, at: offset) }
        if ascii("ftyp", at: 4) { return "an MP4 or QuickTime video" }
        if first.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return "a Matroska or WebM video" }
        if ascii("RIFF", at: 0) && ascii("AVI ", at: 8) { return "an AVI video" }
        if first.starts(with: [0x00, 0x00, 0x01, 0xBA]) || first.starts(with: [0x00, 0x00, 0x01, 0xB3]) { return "an MPEG video" }
        if ascii("FLV", at: 0) { return "a Flash video" }
        return nil
    }
}

/// Whether `bytes` hold the ASCII `text` at `offset`.
private func hasASCII(_ bytes: [UInt8], _ text: String, at offset: Int) -> Bool {
    let t = Array(text.utf8)
    return bytes.count >= offset + t.count && bytes[offset..<(offset + t.count)].elementsEqual(t)
}
