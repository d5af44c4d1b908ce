import DetectorModelFile
import DetectorPlatform
/// Everything that can go wrong while loading, preparing or running a model in `Interpreter`.
public enum InterpreterError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The model file could not be read or is not a valid TFLite model.
    case invalidModel(String)
    /// No kernel exists for this op with these tensor types (detected at load time).
    case unsupportedOperator(index: Int, opName: String, inputTypes: [String], outputTypes: [String])
    /// An op's tensors or options are inconsistent (shapes, ranks, missing inputs, …).
    case invalidOperator(index: Int, opName: String, reason: String)
    /// A tensor index in the graph is outside the tensor list.
    case tensorIndexOutOfRange(index: Int, tensorCount: Int, context: String)
    /// A tensor would need more memory than the interpreter allows.
    case tensorTooLarge(tensor: Int, name: String, reason: String)
    /// An input/output position outside the model's input/output list.
    case ioIndexOutOfRange(kind: String, index: Int, count: Int)
    /// Data copied into an input has the wrong size.
    case inputSizeMismatch(input: Int, name: String, expectedBytes: Int, actualBytes: Int)
    /// Resizing an input to a shape it cannot take.
    case invalidResize(input: Int, name: String, reason: String)
    /// A typed read of a tensor with another element type.
    case typeMismatch(tensor: String, expected: String, actual: String)
    /// The model needs more of a resource than `Interpreter.Options` allows; found at
    /// prepare, before the memory is allocated or the arithmetic done. `option` names the
    /// setting (`maxArenaBytes`, `maxMultiplyAccumulates`), `context` where the need arose.
    case limitExceeded(option: String, needed: Int, limit: Int, context: String)

    public var description: String {
        switch self {
        case .invalidModel(let why):
            return "invalid model: \(why)"
        case let .unsupportedOperator(index, opName, inputTypes, outputTypes):
            return "unsupported operator \(opName) at op index \(index) with input types [\(inputTypes.joined(separator: ", "))] and output types [\(outputTypes.joined(separator: ", "))]"
        case let .invalidOperator(index, opName, reason):
            return "operator \(opName) at op index \(index) cannot be prepared: \(reason)"
        case let .tensorIndexOutOfRange(index, count, context):
            return "tensor index \(index) is out of range (the subgraph has \(count) tensors) in \(context)"
        case let .tensorTooLarge(tensor, name, reason):
            return "tensor \(tensor) ('\(name)') is too large: \(reason)"
        case let .ioIndexOutOfRange(kind, index, count):
            return "\(kind) position \(index) is out of range (the model has \(count) \(kind)s)"
        case let .inputSizeMismatch(input, name, expected, actual):
            return "input \(input) ('\(name)') needs exactly \(expected) bytes but got \(actual)"
        case let .invalidResize(input, name, reason):
            return "cannot resize input \(input) ('\(name)'): \(reason)"
        case let .typeMismatch(tensor, expected, actual):
            return "tensor '\(tensor)' holds \(actual), not \(expected)"
        case let .limitExceeded(option, needed, limit, context):
            let what = option == "maxMultiplyAccumulates" ? "multiply-accumulates per invoke" : "bytes of memory"
            let shown = needed == Int.max ? "more than \(Int.max)" : "\(needed)"
            return "the model needs \(shown) \(what) (\(context)), more than the limit of \(limit) set by Interpreter.Options.\(option)"
        }
    }
}
