import DetectorModelFile
import DetectorPlatform
/// MUL(x, f(x)) where f is an 8-bit table op (LOGISTIC or TANH) applied to the other MUL input —
/// the SiLU `x * sigmoid(x)` of YOLO models — is a function of the 8-bit x alone. Its 256
/// results are tabulated at prepare from the prepared f kernel's own table and MUL's scalar
/// reference arithmetic, so the product reads one input through a 256-entry table and is exact
/// by construction. When nothing else can observe f's output (MUL is its only reader, it is
/// not a graph output, and intermediate tensors are not preserved), f's kernel is switched off.
struct QuantizedGatedProduct {
    /// The op producing the gate (`f(x)`) and its prepared kernel.
    let gateOperator: Int
    let gateKernel: QuantizedUnaryKernel
    /// Which MUL input is `x` (the other is `f(x)`).
    let sourceInput: Int
    /// Tensor index of `x`.
    let source: Int

    /// Finds the pattern for this MUL op: one input produced by a prepared 8-bit table kernel
    /// whose input is the other MUL input. Nil when the inputs do not form it.
    init?(_ c: PrepareContext) {
        let node = c.node
        guard node.inputs.count == 2 else { return nil }
        let graph = c.interpreter.graph
        for gateInput in 0..<2 {
            let gate = node.inputs[gateInput], source = node.inputs[1 - gateInput]
            guard gate >= 0, source >= 0, gate != source else { continue }
            // The producer runs before this op; its kernel is already prepared.
            guard let producer = graph.operators[..<c.operatorIndex].lastIndex(where: { $0.outputs.contains(gate) }),
                  let kernel = c.interpreter.kernels[producer] as? QuantizedUnaryKernel,
                  case .table = kernel.operation, kernel.input == source, kernel.output == gate
            else { continue }
            gateOperator = producer; gateKernel = kernel; sourceInput = 1 - gateInput; self.source = source
            return
        }
        return nil
    }

    /// The 256 results `product(x, f(x))` (operands in the MUL's input order), one per `x`.
    func table<T: QuantizedElement>(_ p: QuantizedMulParams, _: T.Type) -> QuantizedLookupTable? {
        guard case .table(let gate) = gateKernel.operation, gate.table.count == 256 else { return nil }
        let sourceFirst = sourceInput == 0
        return QuantizedLookupTable(T.self) { x in
            let fx = Int32(T(truncatingIfNeeded: gate.table[Int(UInt8(truncatingIfNeeded: x))]))
            return sourceFirst ? p.product(x, fx) : p.product(fx, x)
        }
    }

    /// Switches the gate kernel off when this MUL is the only reader of its output, the output
    /// is not a graph output and intermediate tensors are not preserved.
    func elideGateIfUnobservable(_ c: PrepareContext) {
        let interpreter = c.interpreter, gate = gateKernel.output
        guard !interpreter.options.preserveAllTensors, !interpreter.graph.outputs.contains(gate) else { return }
        let readers = interpreter.graph.operators.reduce(0) { n, op in n + op.inputs.filter { $0 == gate }.count }
        if readers == 1 { gateKernel.isElided = true }
    }
}
