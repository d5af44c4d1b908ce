/// Vectorized float32 transcendental functions for the activation kernels: logistic and
/// SiLU, both from one exponential of a non-positive argument (`expOfNegated`), which
/// reduces -a = n·ln 2 + r with |r| ≤ ln 2 / 2 (ln 2 split in two so n·ln2hi is exact
/// without FMA) and scales a polynomial for eʳ by 2ⁿ through the exponent bits. The scalar
/// `expf` formulas stay in `FloatActivations` as the test oracle.
enum FloatVectorMath {
    /// Logistic with the reference kernel's cut-offs: 1 above 16.619…, exp(x) below -9,
    /// else 1 / (1 + exp(-x)), computed as e / (1 + e) for x < 0 with e = e^-|x|
    /// (`expOfNegated`), so one exponential serves both signs.
    @inline(__always)
    static func logistic(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let bits = unsafeBitCast(x, to: SIMD8<Int32>.self)
        let e = expOfNegated(unsafeBitCast(bits & SIMD8(repeating: 0x7FFF_FFFF), to: SIMD8<Float>.self))
        let one = SIMD8<Float>(repeating: 1)
        let r = one / (one + e)
        var y = select(bits &>> 31, e * r, r)
        y = select(negativeMask(x + SIMD8(repeating: 9)), e, y)
        y = select(negativeMask(SIMD8(repeating: 16.619047164916992188) - x), one, y)
        return y
    }

    /// e^-a for a ≥ 0 (NaN-free input), within 2e-7 relative; a is clamped to 87 so the
    /// result stays a normal number. The argument is never positive, so unlike `exp` there
    /// is no upper clamp and a single 2ⁿ scale (n in [-126, 0]) suffices; eʳ is a degree-5
    /// polynomial fitted for this kernel (1.7e-7 relative on |r| ≤ ln 2 / 2).
    @inline(__always)
    static func expOfNegated(_ a: SIMD8<Float>) -> SIMD8<Float> {
        let limit = SIMD8<Float>(repeating: 87)
        let a = select(negativeMask(limit - a), limit, a)
        // n = round(-a / ln 2) with the 1.5·2²³ trick; r = -a - n·ln 2 (ln 2 in two parts).
        let magic = SIMD8<Float>(repeating: 12582912.0)
        let shifted = a * SIMD8(repeating: -1.44269504088896341) + magic
        let n = shifted - magic
        let r = (n * SIMD8(repeating: -0.693359375) - a) - n * SIMD8(repeating: -2.12194440e-4)
        var p = SIMD8<Float>(repeating: 8.312525227665901e-3)
        p = p * r + SIMD8(repeating: 4.1890114545822144e-2)
        p = p * r + SIMD8(repeating: 1.6667114198207855e-1)
        p = p * r + SIMD8(repeating: 4.99992311000824e-1)
        let er = p * (r * r) + r + SIMD8(repeating: 1)
        // The low bits of `shifted` hold n; shifting them into the exponent field and adding
        // the bits of 1.0 gives 2ⁿ (the magic number's own bits shift out).
        let scale = unsafeBitCast((unsafeBitCast(shifted, to: SIMD8<Int32>.self) &<< 23) &+ SIMD8(repeating: 0x3F80_0000),
                                  to: SIMD8<Float>.self)
        return er * scale
    }

    /// SiLU, x · logistic(x), within 4e-7 relative of the exact value (|x| ≤ 87; beyond,
    /// x for large x and ≈ -1e-36 for very negative x). Cheaper than `x * logistic(x)`: one
    /// `expOfNegated` e = e^-|x| and one division, x / (1 + e) for x ≥ 0 and x·e / (1 + e)
    /// below. It does not reproduce the reference LOGISTIC's cut-offs (above 16.6 and below
    /// -9), which change the product by less than 2e-7 of |x|.
    @inline(__always)
    static func silu(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let bits = unsafeBitCast(x, to: SIMD8<Int32>.self)
        let e = expOfNegated(unsafeBitCast(bits & SIMD8(repeating: 0x7FFF_FFFF), to: SIMD8<Float>.self))
        let floor = SIMD8<Float>(repeating: -87)
        let xc = select(negativeMask(x - floor), floor, x)
        let numerator = select(bits &>> 31, xc * e, xc)
        return numerator / (SIMD8(repeating: 1) + e)
    }

    /// Replaces `count` floats at `p` by their SiLU (`silu`), 8 at a time.
    static func siluInPlace(_ p: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i &+ 8 <= count {
            let v = UnsafeRawPointer(p + i).loadUnaligned(as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(p + i).storeBytes(of: silu(v), as: SIMD8<Float>.self)
            i &+= 8
        }
        while i < count { p[i] = silu(SIMD8(repeating: p[i]))[0]; i &+= 1 }
    }

    // Lane masks and selects written with integer bit operations: the generic `.<`,
    // `replace(with:where:)` and `clamped` are not reliably inlined and vectorized here.
    // Comparisons are made as the sign of an exact difference (both operands are in the
    // same binade range where it matters); a NaN difference counts as negative.

    /// All ones where `v` is negative (sign bit set), else 0.
    @inline(__always)
    static func negativeMask(_ v: SIMD8<Float>) -> SIMD8<Int32> {
        unsafeBitCast(v, to: SIMD8<Int32>.self) &>> 31
    }

    /// `a` where `mask` is all ones, `b` where it is 0.
    @inline(__always)
    static func select(_ mask: SIMD8<Int32>, _ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
        let ai = unsafeBitCast(a, to: SIMD8<Int32>.self), bi = unsafeBitCast(b, to: SIMD8<Int32>.self)
        return unsafeBitCast((ai & mask) | (bi & ~mask), to: SIMD8<Float>.self)
    }
}
