import DetectorZlib
/// Why a `.tflite` model could not be read. Each description is one sentence naming what was
/// wrong and where (subgraph/tensor/operator index or byte offset).
public enum TFLiteModelError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The FlatBuffer is malformed at `location` (e.g. "subgraph 0, tensor 12").
    case malformed(location: String, FlatBufferError)
    /// The file does not carry the `TFL3` identifier.
    case wrongIdentifier(found: String)
    /// `Model.version` is not 3.
    case unsupportedSchemaVersion(Int)
    /// A required part is missing.
    case missing(what: String)
    /// An index points past the end of the table it refers to.
    case indexOutOfRange(what: String, index: Int, count: Int, location: String)
    /// A value the schema or the runtime does not allow.
    case invalidValue(what: String, location: String, reason: String)
    /// The file could not be opened.
    case cannotOpen(path: String, reason: String)

    public var description: String {
        switch self {
        case let .malformed(location, error):
            return "malformed TFLite model (\(location)): \(error.description)"
        case let .wrongIdentifier(found):
            return "not a TFLite model: file identifier is '\(found)', expected 'TFL3'"
        case let .unsupportedSchemaVersion(v):
            return "unsupported TFLite schema version \(v) (only version 3 is supported)"
        case let .missing(what):
            return "invalid TFLite model: \(what) is missing"
        case let .indexOutOfRange(what, index, count, location):
            return "invalid TFLite model (\(location)): \(what) \(index) is out of range (there are \(count))"
        case let .invalidValue(what, location, reason):
            return "invalid TFLite model (\(location)): \(what) \(reason)"
        case let .cannotOpen(path, reason):
            return "cannot open model '\(path)': \(reason)"
        }
    }
}
