/// Quantized CONCATENATION. Inputs whose scale/zero point equal the output's are copied;
/// others (uint8 only, as in the runtime; int8 models must share quantization) are requantized
/// like TFLite's `ConcatenationWithScaling`: `round(q * (s_in / s_out) - zp_in * (s_in / s_out)) + zp_out`
/// in `Float`, clamped.
public enum QuantizedConcatenation {
    /// - Parameters:
    ///   - outerCount: product of the dimensions before the axis.
    ///   - inputs: per input, its data, its `axis size * inner size` and its quantization.
    public static func run<T: QuantizedElement>(outerCount: Int,
                                                inputs: [(data: UnsafePointer<T>, copySize: Int, quantization: QuantizationParams)],
                                                output: UnsafeMutablePointer<T>, outputQuantization: QuantizationParams) {
        let inverseOutputScale: Float = 1 / outputQuantization.scale
        var o = 0
        for outer in 0..<outerCount {
            for input in inputs {
                let src = input.data + outer * input.copySize
                let q = input.quantization
                if q.zeroPoint == outputQuantization.zeroPoint && q.scale == outputQuantization.scale {
                    (output + o).update(from: src, count: input.copySize)
                } else {
                    let scale: Float = q.scale * inverseOutputScale
                    let bias: Float = -Float(q.zeroPoint) * scale
                    for j in 0..<input.copySize {
                        let r = (Float(src[j]) * scale + bias).rounded(.toNearestOrAwayFromZero)
                        let v = Int32(clamping: Int64(r.isFinite ? max(-1e9, min(1e9, r)) : 0)) &+ outputQuantization.zeroPoint
                        output[o + j] = T.clamped(v, T.quantizedMin, T.quantizedMax)
                    }
                }
                o += input.copySize
            }
        }
    }
}
