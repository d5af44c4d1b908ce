import DetectorZlib
import DetectorPlatform
/// Why a PBM/PGM/PPM (Netpbm) image could not be read. Offsets count from the start of the
/// frame's data (the file, or the current frame of a stream).
public enum PPMError: Error, Equatable, Sendable, CustomStringConvertible {
    /// There are no bytes at all.
    case empty
    /// The data does not start with `P1`...`P6`.
    case badMagic(found: [UInt8])
    /// The header ends before width, height and maxval are complete.
    case truncatedHeader(offset: Int)
    /// A header field is not an unsigned decimal number.
    case invalidNumber(offset: Int, field: String)
    /// Width or height is 0 or above 2^31 - 1.
    case invalidDimensions(width: Int, height: Int)
    /// maxval is outside 1...65535.
    case invalidMaxval(Int)
    /// maxval is not followed by exactly one whitespace byte.
    case missingWhitespaceAfterMaxval(offset: Int)
    /// The image is larger than the caller's pixel limit (checked before any allocation).
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// A stream frame takes at least `bytes`, above the reader's per-frame limit: for a raw
    /// raster known from the header, before the raster is buffered.
    case frameTooLarge(bytes: Int, limit: Int)
    /// The raster is shorter than the header says.
    case truncatedRaster(expected: Int, available: Int)
    /// A sample is larger than maxval.
    case sampleOutOfRange(offset: Int, value: Int, maxval: Int)
    /// A plain (ASCII) raster holds something other than decimal samples and whitespace.
    case invalidPlainSample(offset: Int)

    public var description: String {
        switch self {
        case .empty:
            return "PPM data is empty"
        case let .badMagic(found):
            let shown = String(decoding: found.map { (32...126).contains($0) ? $0 : 63 }, as: UTF8.self)
            return "not a Netpbm image: the data starts with '\(shown)' instead of P1 to P6"
        case let .truncatedHeader(offset):
            return "PPM header ends at byte \(offset) before width, height and maxval are complete"
        case let .invalidNumber(offset, field):
            return "PPM header \(field) at byte \(offset) is not an unsigned decimal number in range"
        case let .invalidDimensions(width, height):
            return "PPM size \(width)x\(height) is invalid: width and height must be 1 to 2147483647"
        case let .invalidMaxval(maxval):
            return "PPM maxval \(maxval) is outside 1...65535"
        case let .missingWhitespaceAfterMaxval(offset):
            return "PPM maxval must be followed by exactly one whitespace byte, found something else at byte \(offset)"
        case let .tooManyPixels(width, height, limit):
            return "PPM image of \(width)x\(height) pixels exceeds the limit of \(limit) pixels"
        case let .frameTooLarge(bytes, limit):
            return "PPM frame takes at least \(bytes) bytes, above the per-frame limit of \(limit) bytes"
        case let .truncatedRaster(expected, available):
            return "PPM raster needs \(expected) bytes but only \(available) are present"
        case let .sampleOutOfRange(offset, value, maxval):
            return "PPM sample \(value) at byte \(offset) is larger than maxval \(maxval)"
        case let .invalidPlainSample(offset):
            return "PPM plain raster has something other than a decimal sample at byte \(offset)"
        }
    }
}
