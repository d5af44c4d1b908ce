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
