/// QUANTIZE: float32 → uint8/int8 (`round(x / scale) + zeroPoint`, half away from zero, in
/// `Float`, clamped), and 8-bit → 8-bit requantization (`MultiplyByQuantizedMultiplier` with
/// `double(inputScale) / double(outputScale)`).
public enum QuantizedQuantize {
    public static func fromFloat<T: QuantizedElement>(input: UnsafePointer<Float>, output: UnsafeMutablePointer<T>,
                                                      count: Int, quantization q: QuantizationParams) {
        for i in 0..<count {
            let r = (input[i] / q.scale).rounded(.toNearestOrAwayFromZero)
            let c: Float = r.isNaN ? 0 : max(-1e9, min(1e9, r))
            output[i] = T.clamped(Int32(c) &+ q.zeroPoint, T.quantizedMin, T.quantizedMax)
        }
    }

    /// The requantization multiplier from `input` to `output` quantization.
    public static func requantizeMultiplier(input: QuantizationParams, output: QuantizationParams) -> QuantizedMultiplier {
        QuantizedMultiplier(Double(input.scale) / Double(output.scale))
    }

    public static func requantize<In: QuantizedElement, Out: QuantizedElement>(
        input: UnsafePointer<In>, output: UnsafeMutablePointer<Out>, count: Int,
        inputZeroPoint: Int32, outputZeroPoint: Int32, multiplier m: QuantizedMultiplier
    ) {
        for i in 0..<count {
            let v = m.apply(Int32(input[i]) &- inputZeroPoint) &+ outputZeroPoint
            output[i] = Out.clamped(v, Out.quantizedMin, Out.quantizedMax)
        }
    }
}

/// Interpreter kernel for QUANTIZE (float32 → uint8/int8, or 8-bit → 8-bit requantize).
final class QuantizedQuantizeKernel<In, Out: QuantizedElement>: PreparedKernel {
    let input: Int, output: Int, count: Int
    let inputQ: QuantizationParams, outputQ: QuantizationParams
    let multiplier: QuantizedMultiplier
    init(input: Int, output: Int, count: Int, inputQ: QuantizationParams, outputQ: QuantizationParams) {
        self.input = input; self.output = output; self.count = count
        self.inputQ = inputQ; self.outputQ = outputQ
        multiplier = QuantizedQuantize.requantizeMultiplier(input: inputQ, output: outputQ)
    }
    func eval(_ e: EvalContext) throws {
        let y = e.pointer(output, as: Out.self)
        if In.self == Float.self {
            QuantizedQuantize.fromFloat(input: e.floats(input), output: y, count: count, quantization: outputQ)
        } else if In.self == UInt8.self {
            QuantizedQuantize.requantize(input: e.pointer(input, as: UInt8.self), output: y, count: count,
                                         inputZeroPoint: inputQ.zeroPoint, outputZeroPoint: outputQ.zeroPoint, multiplier: multiplier)
        } else {
            QuantizedQuantize.requantize(input: e.pointer(input, as: Int8.self), output: y, count: count,
                                         inputZeroPoint: inputQ.zeroPoint, outputZeroPoint: outputQ.zeroPoint, multiplier: multiplier)
        }
    }
}

extension QuantizedQuantize {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.float32, .uint8, .int8])
        let out0 = try c.output(0)
        guard out0.type == .uint8 || out0.type == .int8 else { throw c.invalid("output type \(out0.type) is not uint8 or int8") }
        try c.setOutput(0, shape: x.shape, type: out0.type)
        let out = try c.output(0)
        let qo = try c.quantization(of: out, "output")
        let qi = x.type == .float32 ? QuantizationParams(scale: 1, zeroPoint: 0) : try c.quantization(of: x, "input")
        func build<O: QuantizedElement>(_: O.Type) -> any PreparedKernel {
            switch x.type {
            case .float32: return QuantizedQuantizeKernel<Float, O>(input: x.index, output: out.index, count: x.elementCount, inputQ: qi, outputQ: qo)
            case .uint8: return QuantizedQuantizeKernel<UInt8, O>(input: x.index, output: out.index, count: x.elementCount, inputQ: qi, outputQ: qo)
            default: return QuantizedQuantizeKernel<Int8, O>(input: x.index, output: out.index, count: x.elementCount, inputQ: qi, outputQ: qo)
            }
        }
        return try withQuantizedType(out.type, c) { build($0) }
    }
}
