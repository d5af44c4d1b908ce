/// Why a DEFLATE or zlib stream could not be decompressed. Byte offsets count from the start
/// of the compressed input given to the decoder.
public enum InflateError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input ended before the final block was complete.
    case truncated(byteOffset: Int)
    /// A block header had the reserved type 3.
    case invalidBlockType(byteOffset: Int)
    /// A stored block's LEN and NLEN fields are not one's complements of each other.
    case storedLengthMismatch(byteOffset: Int, length: Int, complement: Int)
    /// A dynamic block's code lengths do not describe a valid Huffman code.
    case invalidCodeLengths(byteOffset: Int, reason: String)
    /// The bits at this position are not a code of the current Huffman table, or decode to a reserved symbol.
    case invalidCode(byteOffset: Int)
    /// A back-reference points before the start of the output.
    case distanceTooFar(byteOffset: Int, distance: Int, available: Int)
    /// The output would exceed the caller's size limit.
    case outputLimitExceeded(limit: Int)
    /// The zlib header (RFC 1950) is malformed or asks for something unsupported.
    case invalidZlibHeader(reason: String)
    /// The Adler-32 at the end of a zlib stream does not match the decompressed data.
    case adlerMismatch(expected: UInt32, actual: UInt32)

    public var description: String {
        switch self {
        case let .truncated(offset):
            return "compressed data ends early at byte \(offset): the final DEFLATE block is incomplete"
        case let .invalidBlockType(offset):
            return "invalid DEFLATE block type 3 (reserved) at byte \(offset)"
        case let .storedLengthMismatch(offset, length, complement):
            return "stored DEFLATE block at byte \(offset) has LEN \(length) but NLEN \(complement), which is not its complement"
        case let .invalidCodeLengths(offset, reason):
            return "invalid Huffman code lengths in the DEFLATE block header near byte \(offset): \(reason)"
        case let .invalidCode(offset):
            return "invalid Huffman code in DEFLATE data near byte \(offset)"
        case let .distanceTooFar(offset, distance, available):
            return "DEFLATE back-reference near byte \(offset) reaches \(distance) bytes back but only \(available) bytes have been produced"
        case let .outputLimitExceeded(limit):
            return "decompressed data exceeds the limit of \(limit) bytes"
        case let .invalidZlibHeader(reason):
            return "invalid zlib header: \(reason)"
        case let .adlerMismatch(expected, actual):
            return "zlib Adler-32 checksum mismatch: stream says \(hex(expected)), data gives \(hex(actual))"
        }
    }

    private func hex(_ v: UInt32) -> String {
        let s = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - s.count)) + s
    }
}
