import DetectorModelFile
import DetectorPlatform
/// Interpreter kernel shared by the quantized element-wise unary ops (LOGISTIC, TANH,
/// LEAKY_RELU, HARD_SWISH, requantizing QUANTIZE): same shape in and out.
final class QuantizedUnaryKernel: PreparedKernel {
    /// Element type chosen at prepare (int8 or uint8); eval dispatches to code specialized for it.
    let int8: Bool
    enum Operation {
        case table(QuantizedLookupTable)
        case leakyRelu(QuantizedLeakyReluParams)
        case hardSwish(QuantizedHardSwishParams)
    }
    let operation: Operation
    let input: Int, output: Int, count: Int
    /// Set by a later MUL that computes `x * f(x)` on its own and is the only reader of this
    /// op's output (see `QuantizedGatedProduct`): eval then does nothing.
    var isElided = false
    init(int8: Bool, operation: Operation, input: Int, output: Int, count: Int) { self.int8 = int8;
        self.operation = operation; self.input = input; self.output = output; self.count = count
    }
    func eval(_ e: EvalContext) throws {
        if isElided { return }
        if int8 { try evalTyped(e, Int8.self) } else { try evalTyped(e, UInt8.self) }
    }

    @inline(__always)
    private func evalTyped<T: QuantizedElement>(_ e: EvalContext, _: T.Type) throws {
        let x = e.pointer(input, as: T.self), y = e.pointer(output, as: T.self)
        switch operation {
        case .table(let t): t.apply(input: x, output: y, count: count, threads: e.threadCount, kernel: e.kernelTable.byteTable)
        case .leakyRelu(let p): QuantizedLeakyRelu.run(p, input: x, output: y, count: count)
        case .hardSwish(let p): QuantizedHardSwish.run(p, input: x, output: y, count: count)
        }
    }

    enum Kind { case logistic, tanh, leakyRelu, hardSwish }

    static func prepare(_ c: PrepareContext, _ kind: Kind) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.uint8, .int8])
        try c.setOutput(0, shape: x.shape, type: x.type)
        let out = try c.output(0)
        let qi = try c.quantization(of: x, "input"), qo = try c.quantization(of: out, "output")
        func build<A: QuantizedElement>(_: A.Type) throws -> any PreparedKernel {
            let op: QuantizedUnaryKernel.Operation
            switch kind {
            case .logistic: op = .table(.logistic(input: qi, output: qo, type: A.self))
            case .tanh: op = .table(.tanh(input: qi, output: qo, type: A.self))
            case .leakyRelu: op = .leakyRelu(QuantizedLeakyReluParams(input: qi, output: qo, alpha: c.parameters.alpha))
            case .hardSwish: op = .hardSwish(QuantizedHardSwishParams(input: qi, output: qo))
            }
            return QuantizedUnaryKernel(int8: A.self == Int8.self, operation: op, input: x.index, output: out.index, count: x.elementCount)
        }
        return try withQuantizedType(x.type, c) { try build($0) }
    }
}

enum QuantizedLogistic {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel { try QuantizedUnaryKernel.prepare(c, .logistic) }
}
enum QuantizedTanh {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel { try QuantizedUnaryKernel.prepare(c, .tanh) }
}
extension QuantizedLeakyRelu {
    @Sendable package static func prepare(_ c: PrepareContext) throws -> any PreparedKernel { try QuantizedUnaryKernel.prepare(c, .leakyRelu) }
}
