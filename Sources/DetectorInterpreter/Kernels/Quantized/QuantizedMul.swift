import DetectorModelFile
import DetectorPlatform
/// Prepared parameters of quantized MUL: one multiplier `scale1 * scale2 / outputScale`
/// (computed in `Float`, as the runtime does, then widened).
package struct QuantizedMulParams: Sendable, Equatable {
    package var input1ZeroPoint: Int32, input2ZeroPoint: Int32, outputZeroPoint: Int32
    package var multiplier: QuantizedMultiplier
    package var activationMin: Int32, activationMax: Int32

    package init<T: QuantizedElement>(input1 q1: QuantizationParams, input2 q2: QuantizationParams,
                                     output qo: QuantizationParams, activation: QuantizedFusedActivation, type: T.Type) {
        input1ZeroPoint = q1.zeroPoint
        input2ZeroPoint = q2.zeroPoint
        outputZeroPoint = qo.zeroPoint
        let real: Float = q1.scale * q2.scale / qo.scale
        multiplier = QuantizedMultiplier(Double(real))
        (activationMin, activationMax) = quantizedActivationRange(activation, output: qo, as: T.self)
        step = RequantizationStep(multiplier)
    }

    /// `multiplier` unpacked for the element loop.
    package var step: RequantizationStep

    /// The clamped MUL result for one pair of raw input values.
    @inlinable @inline(__always)
    package func product(_ a: Int32, _ b: Int32) -> Int32 {
        let v = step.apply((a &- input1ZeroPoint) &* (b &- input2ZeroPoint)) &+ outputZeroPoint
        return v < activationMin ? activationMin : (v > activationMax ? activationMax : v)
    }
}

/// Quantized MUL with numpy broadcasting (TFLite reference `Mul` / `BroadcastMul6DSlow`).
package enum QuantizedMul {
    package static func run<T: QuantizedElement>(_ p: QuantizedMulParams, plan: BroadcastPlan,
                                                input1: UnsafePointer<T>, input2: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>) {
        plan.forEachRow { o, i1, i2, n, s1, s2 in
            for j in 0..<n {
                output[o + j] = T(truncatingIfNeeded: p.product(Int32(input1[i1 + j * s1]), Int32(input2[i2 + j * s2])))
            }
        }
    }
}
