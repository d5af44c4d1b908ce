import DetectorModelFile
import DetectorPlatform
/// # Adding a kernel
///
/// Kernels follow the TFLite Micro split: **prepare** runs once per (re)allocation and resolves
/// everything (output shapes and types, options, quantization multipliers, packed weights);
/// **eval** only computes, reading and writing tensor memory through `EvalContext`.
///
/// 1. Write one file per op (e.g. `Kernels/Conv2D.swift`, quantized ones in
///    `Kernels/Quantized/`), with a `final class` conforming to `PreparedKernel` that stores
///    the tensor indices and resolved parameters it needs, and a static prepare function:
///
///    ```swift
///    final class MyOpKernel: PreparedKernel {
///        let input: Int, output: Int, count: Int
///        init(input: Int, output: Int, count: Int) { … }
///        static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
///            let x = try c.input(0)                        // shape, type, quantization, constness
///            try c.setOutput(0, shape: x.shape, type: x.type)   // every output must get a shape
///            return MyOpKernel(input: x.index, output: try c.output(0).index, count: x.elementCount)
///        }
///        func eval(_ e: EvalContext) throws {
///            let src = e.pointer(input, as: Int8.self), dst = e.pointer(output, as: Int8.self)
///            for i in 0..<count { dst[i] = src[i] }
///        }
///    }
///    ```
///
/// 2. Register it with the op's builtin code and the activation types it handles, in
///    `KernelRegistry.floatRegistrations` (`Kernels/FloatKernelTable.swift`) or
///    `KernelRegistry.quantizedRegistrations` (`Kernels/Quantized/QuantizedKernelTable.swift`):
///    `KernelRegistration(.conv2D, types: [.uint8, .int8], prepare: QuantizedConv2D.prepare)`
///    (a custom op: `KernelRegistration(custom: "TFLite_Detection_PostProcess", prepare: …)`).
///
/// The *activation type* of an op is the element type of its first present input (for
/// `QUANTIZE` float32, for `DEQUANTIZE` the integer/float16 type). Lookup takes the first
/// registration (quantized table first, then the float table) whose `types` contains the
/// activation type, then one with empty `types` (type-agnostic kernels such as `RESHAPE`).
/// No match is an `InterpreterError.unsupportedOperator` at load time. A kernel that cannot
/// handle its tensors (wrong rank, unsupported weight type, …) throws `c.invalid("…")` from
/// prepare, which also surfaces at load time.
///
/// Ops whose inputs are all constant (or computed at prepare) are evaluated once at prepare
/// ("constant folding": DEQUANTIZE of float16 weights, shape arithmetic); kernels need do
/// nothing for this. `SHAPE`-like kernels whose output depends only on input *shapes*
/// set `dependsOnlyOnInputShapes` to let chains of shape arithmetic fold.
package protocol PreparedKernel: AnyObject {
    /// Computes the op's outputs from its inputs. Must not allocate in hot paths.
    func eval(_ context: EvalContext) throws
    /// True when the outputs depend only on input shapes (e.g. `SHAPE`): the op is then
    /// always evaluated at prepare.
    var dependsOnlyOnInputShapes: Bool { get }
    /// The kernel-table entries the op runs (`KernelTable`, e.g. "float GEMM 12x32 avx512"),
    /// for `objdetect bench --profile`; nil for ops with one implementation.
    var kernelName: String? { get }
    /// Input tensors the kernel read only at prepare (their values are in its packed weights):
    /// eval never reads them, so the interpreter frees such a tensor when it is a constant
    /// folded at prepare (a float16 filter's DEQUANTIZE output) that no later op reads.
    var packedInputs: [Int] { get }
}

extension PreparedKernel {
    package var dependsOnlyOnInputShapes: Bool { false }
    package var kernelName: String? { nil }
    package var packedInputs: [Int] { [] }
}

/// A kernel factory: inspects the op's tensors at prepare, sets output shapes, returns the
/// prepared kernel.
package typealias KernelPrepare = @Sendable (PrepareContext) throws -> any PreparedKernel

/// One entry of the kernel registry: an op code (and for custom ops the custom code), the
/// activation types it handles (empty = any type) and its prepare function.
package struct KernelRegistration: Sendable {
    package let code: BuiltinOperator
    /// The custom code a `.custom` registration answers to; nil for builtins.
    package let customCode: String?
    package let types: [TensorDataType]
    package let prepare: KernelPrepare

    package init(_ code: BuiltinOperator, types: [TensorDataType] = [], prepare: @escaping KernelPrepare) {
        self.code = code
        self.customCode = nil
        self.types = types
        self.prepare = prepare
    }

    /// A kernel for the custom operator `customCode`.
    package init(custom customCode: String, types: [TensorDataType] = [], prepare: @escaping KernelPrepare) {
        self.code = .custom
        self.customCode = customCode
        self.types = types
        self.prepare = prepare
    }
}

/// Maps (op code, activation type) to a kernel. See the "Adding a kernel" notes on `PreparedKernel`.
package struct KernelRegistry: Sendable {
    /// Registrations by builtin code (an array: a dictionary keyed by `BuiltinOperator` made the
    /// runtime look up its `Hashable` conformance at the first load, about 60 µs on Linux), and
    /// the custom ops'.
    private var builtin: [[KernelRegistration]] = []
    private var custom: [KernelRegistration] = []

    /// Builds a registry; earlier registrations win over later ones for the same key.
    package init(_ registrations: [KernelRegistration]) {
        for r in registrations {
            if r.code == .custom { custom.append(r); continue }
            let i = Int(r.code.rawValue)
            guard i >= 0, i < 1 << 16 else { continue }
            if i >= builtin.count { builtin.append(contentsOf: repeatElement([], count: i + 1 - builtin.count)) }
            builtin[i].append(r)
        }
    }

    /// The registry every interpreter uses by default: quantized kernels, then float and
    /// type-agnostic kernels.
    package static let standard = KernelRegistry(quantizedRegistrations + floatRegistrations)

    /// The kernel for an op with the given activation type, or nil. Custom ops (`code ==
    /// .custom`) match only registrations with the same custom code.
    package func registration(code: BuiltinOperator, customCode: String? = nil,
                              activationType: TensorDataType?) -> KernelRegistration? {
        let candidates: [KernelRegistration]
        if code == .custom {
            candidates = custom.filter { $0.customCode == customCode }
        } else {
            let i = Int(code.rawValue)
            guard i >= 0, i < builtin.count else { return nil }
            candidates = builtin[i]
        }
        if let t = activationType, let r = candidates.first(where: { $0.types.contains(t) }) { return r }
        return candidates.first(where: { $0.types.isEmpty })
    }

    /// The kernel for graph operator `op` with the given activation type, or nil.
    package func registration(for op: GraphOperator, activationType: TensorDataType?) -> KernelRegistration? {
        registration(code: op.code, customCode: op.customCode, activationType: activationType)
    }
}
