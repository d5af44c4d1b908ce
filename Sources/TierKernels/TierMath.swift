/// Vector helpers of the tier kernels, at 16 float lanes: partial loads and stores, clamp,
/// and the fast SiLU (the same formula and constants as DetectorInterpreter's
/// `FloatVectorMath.silu`, the 8-lane version the untiered element-wise ops use, and the test
/// oracle).
enum TierMath {
    /// `count` (≤ 16) floats from `p`, the other lanes 0 (a masked load below 16).
    @inline(__always)
    static func load(_ p: UnsafePointer<Float>, count: Int) -> SIMD16<Float> {
        if count >= 16 { return UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self) }
        return Tier.load(p, count: count)
    }

    /// Stores the first `count` (≤ 16) lanes of `v` at `p`.
    @inline(__always)
    static func store(_ v: SIMD16<Float>, to p: UnsafeMutablePointer<Float>, count: Int) {
        if count >= 16 { UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD16<Float>.self); return }
        Tier.store(v, to: p, count: count)
    }

    /// `min(max(v, lo), hi)` lane by lane, NaN kept (the tier's `vmaxps`/`vminps`).
    @inline(__always)
    static func clamp(_ v: SIMD16<Float>, lo: SIMD16<Float>, hi: SIMD16<Float>) -> SIMD16<Float> {
        Tier.clamp(v, lo: lo, hi: hi)
    }

    /// All ones where `v` is negative (sign bit set), else 0.
    @inline(__always)
    static func negativeMask(_ v: SIMD16<Float>) -> SIMD16<Int32> {
        unsafeBitCast(v, to: SIMD16<Int32>.self) &>> 31
    }

    /// `a` where `mask` is all ones, `b` where it is 0.
    @inline(__always)
    static func select(_ mask: SIMD16<Int32>, _ a: SIMD16<Float>, _ b: SIMD16<Float>) -> SIMD16<Float> {
        let ai = unsafeBitCast(a, to: SIMD16<Int32>.self), bi = unsafeBitCast(b, to: SIMD16<Int32>.self)
        return unsafeBitCast((ai & mask) | (bi & ~mask), to: SIMD16<Float>.self)
    }

    /// e^-a for a ≥ 0, clamped at a = 87 (see `FloatVectorMath.expOfNegated`).
    @inline(__always)
    static func expOfNegated(_ a: SIMD16<Float>) -> SIMD16<Float> {
        let limit = SIMD16<Float>(repeating: 87)
        let a = select(negativeMask(limit - a), limit, a)
        let magic = SIMD16<Float>(repeating: 12582912.0)
        let shifted = a * SIMD16(repeating: -1.44269504088896341) + magic
        let n = shifted - magic
        let r = (n * SIMD16(repeating: -0.693359375) - a) - n * SIMD16(repeating: -2.12194440e-4)
        var p = SIMD16<Float>(repeating: 8.312525227665901e-3)
        p = p * r + SIMD16(repeating: 4.1890114545822144e-2)
        p = p * r + SIMD16(repeating: 1.6667114198207855e-1)
        p = p * r + SIMD16(repeating: 4.99992311000824e-1)
        let er = p * (r * r) + r + SIMD16(repeating: 1)
        let scale = unsafeBitCast((unsafeBitCast(shifted, to: SIMD16<Int32>.self) &<< 23) &+ SIMD16(repeating: 0x3F80_0000),
                                  to: SIMD16<Float>.self)
        return er * scale
    }

    /// x · logistic(x) from one e^-|x| and one division (see `FloatVectorMath.silu`).
    @inline(__always)
    static func silu(_ x: SIMD16<Float>) -> SIMD16<Float> {
        let bits = unsafeBitCast(x, to: SIMD16<Int32>.self)
        let e = expOfNegated(unsafeBitCast(bits & SIMD16(repeating: 0x7FFF_FFFF), to: SIMD16<Float>.self))
        let floor = SIMD16<Float>(repeating: -87)
        let xc = select(negativeMask(x - floor), floor, x)
        let numerator = select(bits &>> 31, xc * e, xc)
        return numerator / (SIMD16(repeating: 1) + e)
    }
}

extension TierMath {
    /// `round(clamp(v, lo, hi)) + shift` per lane, rounding half away from zero, NaN → `shift`
    /// (the hybrid input quantization's step: `Tier.quantum` at the tiers that have no cheaper
    /// rounding conversion; `lo`, `hi` integers with |·| < 2²²), with exact float steps: the
    /// magnitude rounded to nearest even by adding and subtracting 1.5 · 2²³, ties that went
    /// down (magnitude − rounded = ½ exactly) moved up, the sign put back, the integer read
    /// from the mantissa of `rounded + 1.5 · 2²³`.
    @inline(__always)
    static func floatStepQuantum(_ v: SIMD16<Float>, lo: SIMD16<Float>, hi: SIMD16<Float>, shift: SIMD16<Int32>) -> SIMD16<Int32> {
        let magic = SIMD16<Float>(repeating: 12582912)
        let magnitude = SIMD16<Int32>(repeating: 0x7FFF_FFFF), signBit = SIMD16<Int32>(repeating: Int32(bitPattern: 0x8000_0000))
        let bits = unsafeBitCast(v, to: SIMD16<Int32>.self)
        // All ones where v is not NaN (|bits| at most the bits of infinity).
        let number = ((bits & magnitude) &- SIMD16(repeating: 0x7F80_0001)) &>> 31
        let c = unsafeBitCast(Tier.clamp(v, lo: lo, hi: hi), to: SIMD16<Int32>.self)
        let a = unsafeBitCast(c & magnitude, to: SIMD16<Float>.self)
        var r = (a + magic) - magic
        let tie = unsafeBitCast(r - a + SIMD16(repeating: 0.5), to: SIMD16<Int32>.self)
        let isTie = ~((tie | (SIMD16<Int32>() &- tie)) &>> 31)
        r += unsafeBitCast(unsafeBitCast(SIMD16<Float>(repeating: 1), to: SIMD16<Int32>.self) & isTie, to: SIMD16<Float>.self)
        let rounded = unsafeBitCast(unsafeBitCast(r, to: SIMD16<Int32>.self) | (c & signBit), to: SIMD16<Float>.self)
        let integer = unsafeBitCast(rounded + magic, to: SIMD16<Int32>.self) &- SIMD16(repeating: 0x4B40_0000)
        return ((integer &+ shift) & number) | (shift & ~number)
    }

    /// e^x with the reference kernels' formula step by step (the same clamp, reduction,
    /// Cephes polynomial and 2ⁿ scaling as DetectorInterpreter's `FloatVectorMath.exp`, with no
    /// fused multiply-add), so each lane rounds exactly as the 8-lane version does.
    @inline(__always)
    static func exp(_ x: SIMD16<Float>) -> SIMD16<Float> {
        let minArgument = SIMD16<Float>(repeating: -87.33654), maxArgument = SIMD16<Float>(repeating: 88.37626)
        var x = select(negativeMask(x - minArgument), minArgument, x)
        x = select(negativeMask(maxArgument - x), maxArgument, x)
        let magic = SIMD16<Float>(repeating: 12582912.0)
        let shifted = x * SIMD16(repeating: 1.44269504088896341) + magic
        let n = shifted - magic
        let r = (x - n * SIMD16(repeating: 0.693359375)) - n * SIMD16(repeating: -2.12194440e-4)
        var p = SIMD16<Float>(repeating: 1.9875691500e-4)
        p = p * r + SIMD16(repeating: 1.3981999507e-3)
        p = p * r + SIMD16(repeating: 8.3334519073e-3)
        p = p * r + SIMD16(repeating: 4.1665795894e-2)
        p = p * r + SIMD16(repeating: 1.6666665459e-1)
        p = p * r + SIMD16(repeating: 5.0000001201e-1)
        let er = p * (r * r) + r + SIMD16(repeating: 1)
        let ni = unsafeBitCast(shifted, to: SIMD16<Int32>.self) &- SIMD16(repeating: 0x4B40_0000)
        let half = ni &>> 1
        let scale1 = unsafeBitCast((half &+ 127) &<< 23, to: SIMD16<Float>.self)
        let scale2 = unsafeBitCast((ni &- half &+ 127) &<< 23, to: SIMD16<Float>.self)
        return er * scale1 * scale2
    }

    /// Logistic with the reference cut-offs (see `FloatVectorMath.logistic`).
    @inline(__always)
    static func logistic(_ x: SIMD16<Float>) -> SIMD16<Float> {
        let below = negativeMask(x + SIMD16(repeating: 9))
        let e = exp(select(below, x, -x))
        let one = SIMD16<Float>(repeating: 1)
        var y = select(below, e, one / (one + e))
        y = select(negativeMask(SIMD16(repeating: 16.619047164916992188) - x), one, y)
        return y
    }
}
