/// The rescaling of hybrid convolutions (int8 weights, float activations) at the wide tiers:
/// Int32 sums → float, × channel scale × input scale, + bias, clamp, then the folded SiLU as
/// `x · logistic(x)` with LOGISTIC's and MUL's roundings — the same float operations per
/// value as DetectorCore's 8-lane `Conv2DKernel.rescaleHybrid`, 16 channels per step, so
/// the results are bit-identical at every tier (these graphs keep reference rounding).
package enum TierHybrid {
    package static func rescale(_ acc: UnsafePointer<Int32>, count: Int, scales: UnsafePointer<Float>, perChannel: Bool,
                                batchScale: Float, bias: UnsafePointer<Float>?, clampMin: Float, clampMax: Float, silu: Bool,
                                into output: UnsafeMutablePointer<Float>) {
        let sf = SIMD16<Float>(repeating: batchScale)
        let lo = SIMD16<Float>(repeating: clampMin), hi = SIMD16<Float>(repeating: clampMax)
        var c = 0
        while c < count {
            let width = min(16, count &- c)
            var v = Tier.toFloat(Tier.load(acc + c, count: width))
            v = perChannel ? v * TierMath.load(scales + c, count: width) * sf : v * sf
            if let bias { v += TierMath.load(bias + c, count: width) }
            v = TierMath.clamp(v, lo: lo, hi: hi)
            if silu { v = v * TierMath.logistic(v) }
            TierMath.store(v, to: output + c, count: width)
            c &+= 16
        }
    }
}
