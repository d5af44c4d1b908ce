import DetectorZlib
import DetectorPlatform
/// Why a PNG file could not be decoded. Offsets are byte offsets from the start of the file.
public enum PNGError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The first 8 bytes are not the PNG signature `89 50 4E 47 0D 0A 1A 0A`.
    case badSignature(bytes: [UInt8])
    /// A chunk's length field or body runs past the end of the file.
    case truncatedChunk(offset: Int, type: String)
    /// A chunk's length field is above 2^31 - 1.
    case chunkTooLong(offset: Int, length: UInt32)
    /// A chunk type is not four ASCII letters.
    case invalidChunkType(offset: Int)
    /// The CRC stored after a chunk does not match its type and data.
    case crcMismatch(offset: Int, type: String, stored: UInt32, computed: UInt32)
    /// IHDR is missing or not the first chunk.
    case missingHeader
    /// IHDR has an illegal field value.
    case invalidHeader(reason: String)
    /// A critical chunk this decoder does not know (the file needs it to be read correctly).
    case unknownCriticalChunk(offset: Int, type: String)
    /// A chunk is in a place the PNG specification forbids.
    case misplacedChunk(offset: Int, type: String, reason: String)
    /// PLTE is malformed or missing for a palette image.
    case invalidPalette(reason: String)
    /// tRNS does not fit the colour type or palette.
    case invalidTransparency(reason: String)
    /// There is no IDAT chunk.
    case missingImageData
    /// The image data could not be decompressed.
    case compression(InflateError)
    /// The decompressed image data is shorter than the image needs.
    case imageDataTooShort(expected: Int, actual: Int)
    /// A scanline starts with a filter type above 4.
    case invalidFilterType(pass: Int, row: Int, filter: Int)
    /// A palette index is not below the number of palette entries.
    case paletteIndexOutOfRange(index: Int, paletteSize: Int)
    /// The image is larger than the caller's pixel limit (checked before any allocation).
    case tooManyPixels(width: Int, height: Int, limit: Int)

    public var description: String {
        switch self {
        case let .badSignature(bytes):
            return "not a PNG file: the signature is \(bytes.map { String($0, radix: 16) }.joined(separator: " ")) instead of 89 50 4e 47 d a 1a a"
        case let .truncatedChunk(offset, type):
            return "PNG chunk \(type.isEmpty ? "" : "'\(type)' ")at byte \(offset) runs past the end of the file"
        case let .chunkTooLong(offset, length):
            return "PNG chunk at byte \(offset) declares length \(length), above the limit of 2^31-1"
        case let .invalidChunkType(offset):
            return "PNG chunk at byte \(offset) has a type that is not four ASCII letters"
        case let .crcMismatch(offset, type, stored, computed):
            return "PNG chunk '\(type)' at byte \(offset) fails its CRC check (stored \(String(stored, radix: 16)), computed \(String(computed, radix: 16)))"
        case .missingHeader:
            return "PNG file does not start with an IHDR chunk"
        case let .invalidHeader(reason):
            return "PNG IHDR is invalid: \(reason)"
        case let .unknownCriticalChunk(offset, type):
            return "PNG has an unknown critical chunk '\(type)' at byte \(offset)"
        case let .misplacedChunk(offset, type, reason):
            return "PNG chunk '\(type)' at byte \(offset) is misplaced: \(reason)"
        case let .invalidPalette(reason):
            return "PNG palette is invalid: \(reason)"
        case let .invalidTransparency(reason):
            return "PNG tRNS chunk is invalid: \(reason)"
        case .missingImageData:
            return "PNG file has no IDAT chunk"
        case let .compression(error):
            return "PNG image data is corrupt: \(error.description)"
        case let .imageDataTooShort(expected, actual):
            return "PNG image data decompresses to \(actual) bytes but the image needs \(expected)"
        case let .invalidFilterType(pass, row, filter):
            return "PNG scanline \(row)\(pass > 0 ? " of interlace pass \(pass)" : "") has filter type \(filter) (only 0-4 exist)"
        case let .paletteIndexOutOfRange(index, size):
            return "PNG pixel uses palette index \(index) but the palette has only \(size) entries"
        case let .tooManyPixels(width, height, limit):
            return "PNG image of \(width)x\(height) pixels exceeds the limit of \(limit) pixels"
        }
    }
}
