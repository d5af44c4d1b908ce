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
        let step = RequantizationStep(m)
        for i in 0..<count {
            let v = step.apply(Int32(input[i]) &- inputZeroPoint) &+ outputZeroPoint
            output[i] = Out.clamped(v, Out.quantizedMin, Out.quantizedMax)
        }
    }
}

/// Interpreter kernel for QUANTIZE (float32 → uint8/int8, or 8-bit → 8-bit requantize).
final class QuantizedQuantizeKernel: PreparedKernel {
    let inputType: TensorDataType, outputInt8: Bool
    let input: Int, output: Int, count: Int
    let inputQ: QuantizationParams, outputQ: QuantizationParams
    let multiplier: QuantizedMultiplier
    init(inputType: TensorDataType, outputInt8: Bool, input: Int, output: Int, count: Int,
         inputQ: QuantizationParams, outputQ: QuantizationParams) {
        self.inputType = inputType; self.outputInt8 = outputInt8
        self.input = input; self.output = output; self.count = count
        self.inputQ = inputQ; self.outputQ = outputQ
        multiplier = QuantizedQuantize.requantizeMultiplier(input: inputQ, output: outputQ)
    }
    func eval(_ e: EvalContext) throws {
        if outputInt8 { evalTyped(e, Int8.self) } else { evalTyped(e, UInt8.self) }
    }
    @inline(__always)
    private func evalTyped<Out: QuantizedElement>(_ e: EvalContext, _: Out.Type) {
        let y = e.pointer(output, as: Out.self)
        switch inputType {
        case .float32:
            QuantizedQuantize.fromFloat(input: e.floats(input), output: y, count: count, quantization: outputQ)
        case .uint8:
            QuantizedQuantize.requantize(input: e.pointer(input, as: UInt8.self), output: y, count: count,
                                         inputZeroPoint: inputQ.zeroPoint, outputZeroPoint: outputQ.zeroPoint, multiplier: multiplier)
        default:
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
        return QuantizedQuantizeKernel(inputType: x.type, outputInt8: out.type == .int8, input: x.index, output: out.index,
                                       count: x.elementCount, inputQ: qi, outputQ: qo)
    }
}
