/// DEQUANTIZE of uint8/int8 to float32: `Float(Double(scale) * Double(q - zeroPoint))`, the
/// reference kernel's double-precision product rounded once.
public enum QuantizedDequantize {
    public static func run<T: QuantizedElement>(input: UnsafePointer<T>, output: UnsafeMutablePointer<Float>,
                                                count: Int, quantization q: QuantizationParams) {
        let scale = Double(q.scale)
        for i in 0..<count { output[i] = Float(scale * Double(Int32(input[i]) - q.zeroPoint)) }
    }
}

/// Interpreter kernel for DEQUANTIZE of uint8/int8 tensors.
final class QuantizedDequantizeKernel: PreparedKernel {
    /// Element type chosen at prepare (int8 or uint8); eval dispatches to code specialized for it.
    let int8: Bool
    let input: Int, output: Int, count: Int, quantization: QuantizationParams
    init(int8: Bool, input: Int, output: Int, count: Int, quantization: QuantizationParams) { self.int8 = int8;
        self.input = input; self.output = output; self.count = count; self.quantization = quantization
    }
    func eval(_ e: EvalContext) throws {
        if int8 { try evalTyped(e, Int8.self) } else { try evalTyped(e, UInt8.self) }
    }

    @inline(__always)
    private func evalTyped<T: QuantizedElement>(_ e: EvalContext, _: T.Type) throws {
        QuantizedDequantize.run(input: e.pointer(input, as: T.self), output: e.floats(output), count: count, quantization: quantization)
    }
}

extension QuantizedDequantize {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.uint8, .int8])
        if let q = x.quantization, q.scales.count > 1 {
            throw c.invalid("per-channel DEQUANTIZE of activations is not supported by the quantized kernel")
        }
        try c.setOutput(0, shape: x.shape, type: .float32)
        let out = try c.output(0)
        let q = try c.quantization(of: x, "input")
        func build<A: QuantizedElement>(_: A.Type) -> any PreparedKernel {
            QuantizedDequantizeKernel(int8: A.self == Int8.self, input: x.index, output: out.index, count: x.elementCount, quantization: q)
        }
        return try withQuantizedType(x.type, c) { build($0) }
    }
}
