import DetectorModelFile
import DetectorPlatform
/// What a kernel sees of one tensor at prepare.
package struct TensorInfo {
    /// Tensor index in the subgraph (what `EvalContext` takes).
    package let index: Int
    package let name: String
    package let type: TensorDataType
    package let shape: [Int]
    package let quantization: TensorQuantization?
    /// True for model constants and values computed at prepare: `PrepareContext.constantData`
    /// gives their bytes.
    package let isConstant: Bool

    package var rank: Int { shape.count }
    package var elementCount: Int { Shape.count(shape) }
    /// Size of dimension `i` counted from the end when negative.
    package func dim(_ i: Int) -> Int { shape[i < 0 ? shape.count + i : i] }
}

/// Handed to a kernel's prepare: the op, its tensors, and where to put output shapes.
package final class PrepareContext {
    /// Position of the op in execution order.
    package let operatorIndex: Int
    package let node: GraphOperator
    /// Threads the kernel may use in eval (1 = single-threaded).
    package let threadCount: Int
    package unowned let interpreter: Interpreter
    /// Work of a following op folded into this one (see `ActivationFusion`).
    let epilogue: ActivationFusion.Epilogue?
    /// Spatial padding of a PAD folded into this convolution (`PadFolding`): `node`'s input 0
    /// is then the PAD's input, and `WindowGeometry.make` pads it by these rows and columns.
    let foldedPadding: PadFolding.Padding?

    package init(operatorIndex: Int, node: GraphOperator, threadCount: Int, interpreter: Interpreter,
         epilogue: ActivationFusion.Epilogue? = nil, foldedPadding: PadFolding.Padding? = nil) {
        self.operatorIndex = operatorIndex
        self.node = node
        self.threadCount = threadCount
        self.interpreter = interpreter
        self.epilogue = epilogue
        self.foldedPadding = foldedPadding
    }

    /// The op's options (with the activation of a folded RELU, see `ActivationFusion`).
    package var parameters: OperatorParameters {
        guard case .activation(let activation) = epilogue else { return node.parameters }
        var p = node.parameters
        p.activation = activation
        return p
    }

    /// A LOGISTIC op whose output is multiplied by its input (a folded SiLU `MUL`).
    var multipliesByInput: Bool { epilogue == .multiplyByInput }
    /// Float kernels must round like the reference kernels (the graph has hybrid kernels,
    /// see `Interpreter.roundsLikeReference`).
    var roundsLikeReference: Bool { interpreter.roundsLikeReference }
    /// The kernel table of the interpreter's tier: kernels keep the entries they need
    /// (packing layouts depend on them).
    package var kernelTable: KernelTable { interpreter.kernelTable }
    /// The tier of `kernelTable` (for constructors that take a tier and ask its table).
    package var tier: InstructionSetTier { kernelTable.tier }
    /// The eval-time memory the interpreter's kernels share (`reserve` what eval needs).
    package var scratch: SharedScratch { interpreter.scratch }
    /// Float sums may use fused multiply-adds: the tier has them and nothing needs the
    /// reference kernels' rounding.
    var fusesMultiplyAdd: Bool { kernelTable.hasFusedMultiplyAdd && !roundsLikeReference }
    package var inputCount: Int { node.inputs.count }
    package var outputCount: Int { node.outputs.count }

    /// An error naming this op, for prepare-time failures.
    package func invalid(_ reason: String) -> InterpreterError {
        .invalidOperator(index: operatorIndex, opName: node.opName, reason: reason)
    }

    /// Input `i`; throws when missing or absent (-1).
    package func input(_ i: Int) throws -> TensorInfo {
        guard let t = optionalInput(i) else { throw invalid("input \(i) is missing") }
        return t
    }

    /// Input `i`, or nil when the op has fewer inputs or it is -1 (absent optional input).
    package func optionalInput(_ i: Int) -> TensorInfo? {
        guard i >= 0, i < node.inputs.count, node.inputs[i] >= 0 else { return nil }
        return interpreter.tensorInfo(node.inputs[i])
    }

    /// Output `i` (its shape is the model's until `setOutput` sets it).
    package func output(_ i: Int) throws -> TensorInfo {
        guard i >= 0, i < node.outputs.count, node.outputs[i] >= 0 else { throw invalid("output \(i) is missing") }
        return interpreter.tensorInfo(node.outputs[i])
    }

    /// The model's tensor behind input `i` (e.g. for sparsity metadata).
    package func graphTensor(input i: Int) -> GraphTensor? {
        guard i >= 0, i < node.inputs.count, node.inputs[i] >= 0 else { return nil }
        return interpreter.graph.tensors[node.inputs[i]]
    }

    /// Sets output `i`'s shape (and type, when given). Every output must be set by prepare.
    package func setOutput(_ i: Int, shape: [Int], type: TensorDataType? = nil) throws {
        guard i >= 0, i < node.outputs.count, node.outputs[i] >= 0 else { throw invalid("output \(i) is missing") }
        guard let n = Shape.elementCount(shape) else {
            throw invalid("output \(i) would have an invalid or too large shape \(shape)")
        }
        let size = (type ?? interpreter.types[node.outputs[i]]).byteSize ?? 1
        let (bytes, overflow) = n.multipliedReportingOverflow(by: size)
        guard !overflow, bytes <= interpreter.options.maxArenaBytes else {
            throw InterpreterError.limitExceeded(option: "maxArenaBytes", needed: overflow ? Int.max : bytes, limit: interpreter.options.maxArenaBytes,
                                                 context: "output \(i) of op \(operatorIndex) (\(node.opName)), shape \(shape)")
        }
        try interpreter.setShape(node.outputs[i], shape: shape, type: type, by: self)
    }

    /// Bytes of a constant (or prepare-computed) input; nil when the input is not constant.
    /// Valid only during prepare; copy or pack what eval needs.
    package func constantData(input i: Int) -> UnsafeRawBufferPointer? {
        guard i >= 0, i < node.inputs.count, node.inputs[i] >= 0 else { return nil }
        return interpreter.constantBytes(node.inputs[i])
    }

    /// A constant integer input (int32 or int64) as `[Int]`; nil when not constant.
    package func constantInts(input i: Int) throws -> [Int]? {
        guard let t = optionalInput(i), let bytes = constantData(input: i) else { return nil }
        let n = t.elementCount
        switch t.type {
        case .int32:
            guard bytes.count >= n * 4 else { throw invalid("constant input \(i) is shorter than its shape") }
            return (0..<n).map { Int(bytes.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self)) }
        case .int64:
            guard bytes.count >= n * 8 else { throw invalid("constant input \(i) is shorter than its shape") }
            return (0..<n).map { Int(truncatingIfNeeded: bytes.loadUnaligned(fromByteOffset: $0 * 8, as: Int64.self)) }
        default:
            throw invalid("input \(i) must be int32 or int64, not \(t.type)")
        }
    }

    /// A constant float32 input as `[Float]`; nil when not constant.
    package func constantFloats(input i: Int) throws -> [Float]? {
        guard let t = optionalInput(i), let bytes = constantData(input: i) else { return nil }
        guard t.type == .float32 else { throw invalid("input \(i) must be float32, not \(t.type)") }
        let n = t.elementCount
        guard bytes.count >= n * 4 else { throw invalid("constant input \(i) is shorter than its shape") }
        return (0..<n).map { bytes.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) }
    }
}

/// Handed to a kernel's eval: the memory of every tensor, by tensor index.
package struct EvalContext {
    @usableFromInline package let pointers: UnsafePointer<UnsafeMutableRawPointer>
    /// Threads the kernel may use (1 = single-threaded).
    package let threadCount: Int
    /// The kernel table the kernels were prepared with.
    package let kernelTable: KernelTable

    package init(pointers: UnsafePointer<UnsafeMutableRawPointer>, threadCount: Int, kernelTable: KernelTable = .baseline) {
        self.pointers = pointers
        self.threadCount = threadCount
        self.kernelTable = kernelTable
    }

    /// Start of a tensor's memory (never dangling; a zero-sized tensor gets a valid dummy address).
    @inlinable
    package func raw(_ tensor: Int) -> UnsafeMutableRawPointer { pointers[tensor] }

    /// A tensor's memory typed as `T` (the kernel knows the type from prepare).
    @inlinable
    package func pointer<T>(_ tensor: Int, as type: T.Type) -> UnsafeMutablePointer<T> {
        pointers[tensor].assumingMemoryBound(to: T.self)
    }

    /// A float32 tensor's memory.
    @inlinable
    package func floats(_ tensor: Int) -> UnsafeMutablePointer<Float> {
        pointers[tensor].assumingMemoryBound(to: Float.self)
    }
}
