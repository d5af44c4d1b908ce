import DetectorZlib
import DetectorPlatform
/// Why a JPEG file could not be decoded. Every case names where (byte offset) and why.
public enum JPEGError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file does not start with the SOI marker `FF D8`.
    case notJPEG
    /// The file ends before the structure is complete (inside a segment, a scan, or before EOI).
    case truncated(offset: Int, context: String)
    /// A segment or marker is malformed.
    case malformed(offset: Int, reason: String)
    /// The entropy-coded data of a scan is corrupt.
    case corruptData(offset: Int, reason: String)
    /// The file uses a JPEG feature this decoder does not implement (arithmetic coding,
    /// 12-bit samples, lossless or hierarchical coding, missing Huffman tables…).
    case unsupported(offset: Int, feature: String)
    /// The image is larger than the caller's pixel limit.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// EOI came before any frame or scan: there is no image.
    case noImage(offset: Int)

    public var description: String {
        switch self {
        case .notJPEG:
            return "not a JPEG file: it does not start with the SOI marker FF D8"
        case let .truncated(offset, context):
            return "JPEG file ends at byte \(offset) \(context)"
        case let .malformed(offset, reason):
            return "malformed JPEG at byte \(offset): \(reason)"
        case let .corruptData(offset, reason):
            return "corrupt JPEG entropy-coded data near byte \(offset): \(reason)"
        case let .unsupported(offset, feature):
            return "unsupported JPEG feature at byte \(offset): \(feature)"
        case let .tooManyPixels(width, height, limit):
            return "JPEG image of \(width)x\(height) pixels exceeds the limit of \(limit) pixels"
        case let .noImage(offset):
            return "JPEG file holds no image: EOI at byte \(offset) before any complete frame and scan"
        }
    }

    /// True for the `unsupported` case (a valid file using a feature this decoder lacks).
    public var isUnsupported: Bool {
        if case .unsupported = self { return true }
        return false
    }
}
