import DetectorZlib
import DetectorPlatform
/// Why `ImageStreamReader` could not read the next frame. Each case prints as one sentence.
public enum ImageStreamError: Error, Sendable, CustomStringConvertible {
    /// The stream's first bytes are not the start of a PNG, JPEG or PPM/PGM/PBM file.
    case notAnImageStream(firstBytes: [UInt8])
    /// After `afterFrame` frames, the next bytes do not start a frame.
    case unexpectedBytes(afterFrame: Int, firstBytes: [UInt8])
    /// The stream ended inside frame `frame` (counted from 1).
    case truncatedFrame(frame: Int, format: ImageFileFormat)
    /// Frame `frame` is above the per-frame limit of `limit` bytes: its header says it takes
    /// `bytes` (refused before they are buffered), or, when `bytes` is nil, it has no end within `limit` bytes.
    case frameTooLarge(frame: Int, bytes: Int?, limit: Int)
    /// Frame `frame` is damaged so that where it ends cannot be found; the stream stops here.
    case malformedFrame(frame: Int, format: ImageFileFormat, reason: String)
    /// Frame `frame` was delimited but does not decode; the reader can go on with the next one.
    case undecodableFrame(frame: Int, error: ImageDecodeError)

    public var description: String {
        switch self {
        case let .notAnImageStream(first):
            return "the data is not a stream of PNG, JPEG or PPM/PGM frames: it starts with \(Self.describe(first))"
        case let .unexpectedBytes(after, first):
            return "after frame \(after) the data does not start another PNG, JPEG or PPM/PGM frame: it continues with \(Self.describe(first))"
        case let .truncatedFrame(frame, format):
            return "the stream ends inside frame \(frame) (\(format.rawValue.uppercased()))"
        case let .frameTooLarge(frame, bytes?, limit):
            return "frame \(frame) takes at least \(bytes) bytes by its header, above the per-frame limit of \(limit) bytes"
        case let .frameTooLarge(frame, nil, limit):
            return "frame \(frame) does not end within the per-frame limit of \(limit) bytes"
        case let .malformedFrame(frame, format, reason):
            return "frame \(frame) is not a valid \(format.rawValue.uppercased()) file: \(reason)"
        case let .undecodableFrame(frame, error):
            return "frame \(frame) cannot be decoded: \(error)"
        }
    }

    /// Up to 8 bytes in hex, and as text when they are printable ASCII.
    package static func describe(_ bytes: [UInt8]) -> String {
        let hexDigits = Array("0123456789abcdef")
        let hex = bytes.prefix(8).map { String([hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 15)]]) }.joined(separator: " ")
        let printable = bytes.prefix(8).allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        return printable && !bytes.isEmpty ? "\(hex) (\"\(String(decoding: bytes.prefix(8), as: UTF8.self))\")" : hex
    }
}
