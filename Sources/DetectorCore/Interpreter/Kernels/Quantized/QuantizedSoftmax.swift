/// Prepared parameters of the reference quantized SOFTMAX (gemmlowp fixed point, 5 integer
/// bits for the scaled differences, 12 for the sum of exponentials).
public struct QuantizedSoftmaxParams: Sendable, Equatable {
    public var inputMultiplier: Int32
    public var inputLeftShift: Int32
    public var diffMin: Int32

    /// TFLite `PreprocessSoftmaxScaling` + `CalculateInputRadius`.
    public init(beta: Float, inputScale: Float) {
        let scaledDiffIntegerBits = 5
        let real = min(Double(beta) * Double(inputScale) * Double(1 << (31 - scaledDiffIntegerBits)),
                       Double((Int64(1) << 31) - 1))
        let q = QuantizedMultiplier(real)
        inputMultiplier = q.multiplier
        inputLeftShift = q.shift
        let shift = max(0, min(62, Int(q.shift)))
        let radius = Double((1 << scaledDiffIntegerBits) - 1) * Double(Int64(1) << (31 - scaledDiffIntegerBits))
            / Double(Int64(1) << Int64(shift))
        diffMin = -Int32(clamping: Int64(radius.rounded(.down)))
    }
}

/// Quantized SOFTMAX over the last dimension, bit-exact with TFLite's reference kernel.
/// The output quantization is fixed by the runtime: scale 1/256 with zero point 0 (uint8)
/// or -128 (int8).
public enum QuantizedSoftmax {
    public static func run<T: QuantizedElement>(_ p: QuantizedSoftmaxParams, input: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>, outerCount: Int, depth: Int) {
        let accumulationIntegerBits: Int32 = 12
        let outputBits = Int32(T.bitWidth)
        for i in 0..<outerCount {
            let row = input + i * depth
            let out = output + i * depth
            var maxInRow = T.quantizedMin
            for c in 0..<depth { maxInRow = max(maxInRow, Int32(row[c])) }
            var sumOfExps: Int32 = 0
            for c in 0..<depth {
                let diff = Int32(row[c]) - maxInRow
                if diff >= p.diffMin {
                    let rescaled = FixedPoint.multiplyByQuantizedMultiplierGreaterThanOne(diff, p.inputMultiplier, p.inputLeftShift)
                    let e = GemmlowpMath.expOnNegativeValues(rescaled, integerBits: 5)
                    sumOfExps = sumOfExps &+ FixedPoint.saturatingRoundingMultiplyByPOT(e, -accumulationIntegerBits)
                }
            }
            let (scale, bitsOverUnit) = GemmlowpMath.reciprocal(sumOfExps, integerDigits: accumulationIntegerBits)
            for c in 0..<depth {
                let diff = Int32(row[c]) - maxInRow
                if diff >= p.diffMin {
                    let rescaled = FixedPoint.multiplyByQuantizedMultiplierGreaterThanOne(diff, p.inputMultiplier, p.inputLeftShift)
                    let e = GemmlowpMath.expOnNegativeValues(rescaled, integerBits: 5)
                    let unsat = FixedPoint.roundingDivideByPOT(FixedPoint.saturatingRoundingDoublingHighMul(scale, e),
                                                              bitsOverUnit + 31 - outputBits)
                    out[c] = T.clamped(unsat &+ T.quantizedMin, T.quantizedMin, T.quantizedMax)
                } else {
                    out[c] = T(truncatingIfNeeded: T.quantizedMin)
                }
            }
        }
    }
}
