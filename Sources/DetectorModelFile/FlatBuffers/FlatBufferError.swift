import DetectorZlib
/// Why a FlatBuffer (or FlexBuffer) could not be read. Every case names the byte offset where the
/// problem was found, so a corrupt file can be diagnosed from the message alone.
public enum FlatBufferError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The buffer is shorter than the smallest valid FlatBuffer (a root offset).
    case bufferTooSmall(size: Int, needed: Int)
    /// `what` at `offset` with `length` bytes does not lie inside the `bufferSize` bytes.
    case outOfBounds(what: String, offset: Int, length: Int, bufferSize: Int)
    /// The table at `tableOffset` has a vtable that cannot be right (`reason`).
    case invalidVTable(tableOffset: Int, reason: String)
    /// The 4-byte file identifier is not the expected one.
    case wrongIdentifier(expected: String, found: String)
    /// A value was read that the schema does not allow (`reason`).
    case invalidValue(what: String, offset: Int, reason: String)
    /// Reading would visit more elements than the buffer's size allows (shared or huge vectors).
    case workLimitExceeded(limit: Int)
    /// Nested buffers or containers go deeper than `limit` levels.
    case tooDeep(limit: Int, offset: Int)

    public var description: String {
        switch self {
        case let .bufferTooSmall(size, needed):
            return "FlatBuffer too small: \(size) bytes, at least \(needed) needed"
        case let .outOfBounds(what, offset, length, bufferSize):
            return "FlatBuffer \(what) at byte offset \(offset) (\(length) bytes) lies outside the \(bufferSize)-byte buffer"
        case let .invalidVTable(tableOffset, reason):
            return "FlatBuffer table at byte offset \(tableOffset) has an invalid vtable: \(reason)"
        case let .wrongIdentifier(expected, found):
            return "FlatBuffer file identifier is '\(found)', expected '\(expected)'"
        case let .invalidValue(what, offset, reason):
            return "FlatBuffer \(what) at byte offset \(offset) is invalid: \(reason)"
        case let .workLimitExceeded(limit):
            return "FlatBuffer reading stopped: more than \(limit) elements visited (shared or oversized vectors)"
        case let .tooDeep(limit, offset):
            return "FlatBuffer nesting deeper than \(limit) levels at byte offset \(offset)"
        }
    }
}
