/// The hybrid kernels (int8 weights, float activations) at every tier: the on-the-fly input
/// quantization (`range`, `quantize`) and the rescaling of the convolution's Int32 sums.
///
/// Each does the same float operations per value as the interpreter's scalar oracles
/// (`HybridQuantization.quantizeScalar`, the rescale of `Conv2DKernel.referenceHybrid`), 16
/// values per step, so the results are bit-identical at every tier (these graphs keep
/// reference rounding).
package enum TierHybrid {
    /// `rows` rows of `count` Int32 sums (contiguous, `count` apart) → float, × channel scale
    /// × input scale, + bias, clamp, then the folded SiLU as `x · logistic(x)` with LOGISTIC's
    /// and MUL's roundings, into `rows` rows of `count` floats. With `correction` the sums are
    /// first reduced by it per channel (`acc[c] − correction[c]`, wrapping: the byte GEMM's
    /// offset term), so the float conversion sees the same exact sum as the `Int16` path's.
    /// 16 channels of four rows at a time: the SiLU of the four as one `LaneQuad` (four
    /// interleaved chains of the long formula), and the channel terms loaded once for all rows.
    package static func rescale(_ acc: UnsafePointer<Int32>, rows: Int, count: Int, scales: UnsafePointer<Float>, perChannel: Bool,
                                batchScale: Float, correction: UnsafePointer<Int32>? = nil, bias: UnsafePointer<Float>?,
                                clampMin: Float, clampMax: Float, silu: Bool, into output: UnsafeMutablePointer<Float>) {
        let sf = SIMD16<Float>(repeating: batchScale)
        let lo = SIMD16<Float>(repeating: clampMin), hi = SIMD16<Float>(repeating: clampMax)
        var c = 0
        while c < count {
            let width = min(16, count &- c)
            // Without per-channel scales the channel factor is 1: v · 1 is v exactly, so one
            // formula serves both (and keeps the loop free of a branch on `perChannel`).
            let scale = perChannel ? TierMath.load(scales + c, count: width) : SIMD16<Float>(repeating: 1)
            let shift = correction.map { Tier.load($0 + c, count: width) } ?? SIMD16<Int32>()
            let offset = bias.map { TierMath.load($0 + c, count: width) } ?? SIMD16<Float>()
            @inline(__always) func value(_ r: Int) -> SIMD16<Float> {
                var v = Tier.toFloat(Tier.load(acc + (r &* count &+ c), count: width) &- shift)
                v = v * scale * sf
                if bias != nil { v += offset }
                return TierMath.clamp(v, lo: lo, hi: hi)
            }
            var r = 0
            while r &+ 4 <= rows {
                var q = LaneQuad(value(r), value(r &+ 1), value(r &+ 2), value(r &+ 3))
                if silu { q = q * LaneMath.logistic(q) }
                TierMath.store(q.a, to: output + (r &* count &+ c), count: width)
                TierMath.store(q.b, to: output + ((r &+ 1) &* count &+ c), count: width)
                TierMath.store(q.c, to: output + ((r &+ 2) &* count &+ c), count: width)
                TierMath.store(q.d, to: output + ((r &+ 3) &* count &+ c), count: width)
                r &+= 4
            }
            while r < rows {
                var v = value(r)
                if silu { v = v * LaneMath.logistic(v) }
                TierMath.store(v, to: output + (r &* count &+ c), count: width)
                r &+= 1
            }
            c &+= 16
        }
    }

    /// `p[i] = p[i] · logistic(p[i])` with LOGISTIC's and MUL's roundings (DetectorInterpreter's
    /// `FloatVectorMath.logisticProduct`, bit for bit), four 16-lane vectors per step as
    /// one `LaneQuad`, the last values through masked loads and stores.
    package static func siluInPlace(_ p: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i &+ 64 <= count {
            let a = TierMath.load(p + i, count: 16), b = TierMath.load(p + (i &+ 16), count: 16)
            let c = TierMath.load(p + (i &+ 32), count: 16), d = TierMath.load(p + (i &+ 48), count: 16)
            let x = LaneQuad(a, b, c, d), y = x * LaneMath.logistic(x)
            TierMath.store(y.a, to: p + i, count: 16); TierMath.store(y.b, to: p + (i &+ 16), count: 16)
            TierMath.store(y.c, to: p + (i &+ 32), count: 16); TierMath.store(y.d, to: p + (i &+ 48), count: 16)
            i &+= 64
        }
        while i < count {
            let width = min(16, count &- i)
            let v = TierMath.load(p + i, count: width)
            TierMath.store(v * LaneMath.logistic(v), to: p + i, count: width)
            i &+= 16
        }
    }

    /// The smallest and largest of `count` (≥ 1) values, NaNs skipped; ±greatestFiniteMagnitude
    /// seeds (as `HybridQuantization.range`), 32 values per step in two pairs of accumulators.
    package static func range(_ x: UnsafePointer<Float>, count: Int) -> (lo: Float, hi: Float) {
        var lo = Float.greatestFiniteMagnitude, hi = -Float.greatestFiniteMagnitude
        var i = 0
        if count >= 16 {
            var lo0 = SIMD16<Float>(repeating: lo), hi0 = SIMD16<Float>(repeating: hi), lo1 = lo0, hi1 = hi0
            while i &+ 32 <= count {
                let a = UnsafeRawPointer(x + i).loadUnaligned(as: SIMD16<Float>.self)
                let b = UnsafeRawPointer(x + (i &+ 16)).loadUnaligned(as: SIMD16<Float>.self)
                lo0 = Tier.minimum(a, lo0); hi0 = Tier.maximum(a, hi0)
                lo1 = Tier.minimum(b, lo1); hi1 = Tier.maximum(b, hi1)
                i &+= 32
            }
            if i &+ 16 <= count {
                let a = UnsafeRawPointer(x + i).loadUnaligned(as: SIMD16<Float>.self)
                lo0 = Tier.minimum(a, lo0); hi0 = Tier.maximum(a, hi0)
                i &+= 16
            }
            lo0 = Tier.minimum(lo1, lo0); hi0 = Tier.maximum(hi1, hi0)
            for l in 0..<16 { lo = min(lo, lo0[l]); hi = max(hi, hi0[l]) }
        }
        while i < count { lo = min(lo, x[i]); hi = max(hi, x[i]); i &+= 1 }
        return (lo, hi)
    }

    /// `q[i] = clamp(round(offset + x[i] · inverse), lo, hi) + shift` as bytes (without
    /// `addsOffset`, `x[i] · inverse`), rounding half away from zero, NaN → 0: the formula of
    /// `HybridQuantization.quantize` (the rounding step is the tier's `Tier.quantum`, exact),
    /// 16 values at a time, the last few through masked loads and stores. `shift` 128 writes `q + 128` (the byte GEMM's unsigned
    /// input), 0 the int8 bit pattern.
    package static func quantize(_ x: UnsafePointer<Float>, count: Int, inverse: Float, offset: Float, addsOffset: Bool,
                                 lo: Float, hi: Float, shift: Int32, into q: UnsafeMutableRawPointer) {
        let vinv = SIMD16<Float>(repeating: inverse), voff = SIMD16<Float>(repeating: offset)
        let vlo = SIMD16<Float>(repeating: lo), vhi = SIMD16<Float>(repeating: hi), vshift = SIMD16<Int32>(repeating: shift)
        var i = 0
        while i < count {
            let width = min(16, count &- i)
            var v = TierMath.load(x + i, count: width) * vinv
            if addsOffset { v = voff + v }
            let integer = Tier.quantum(v, lo: vlo, hi: vhi, shift: vshift)
            Tier.storeLowBytes(integer, to: q + i, count: width)
            i &+= 16
        }
    }
}
