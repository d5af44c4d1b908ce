/// Vectorized float32 transcendental functions for the activation kernels.
///
/// `exp` reduces x = n·ln 2 + r with |r| ≤ ln 2 / 2 (ln 2 split in two so n·ln2hi is exact
/// without FMA), evaluates a degree-7 polynomial for eʳ (Cephes' expf coefficients) and
/// scales by 2ⁿ through the exponent bits. Within 2 ulp of `expf` on [-87.3, 88.7]; inputs
/// outside are clamped to that range (so huge arguments give ≈ 2¹²⁸·… finite values, not ∞).
/// The scalar `expf` loops stay in `FloatActivations` as the test oracle.
enum FloatVectorMath {
    static let expMinArgument: Float = -87.33654
    static let expMaxArgument: Float = 88.37626

    @inline(__always)
    static func exp(_ x: SIMD8<Float>) -> SIMD8<Float> {
        var x = select(negativeMask(x - SIMD8(repeating: expMinArgument)), SIMD8(repeating: expMinArgument), x)
        x = select(negativeMask(SIMD8(repeating: expMaxArgument) - x), SIMD8(repeating: expMaxArgument), x)
        // n = round(x / ln 2) with the 1.5·2²³ rounding trick.
        let magic = SIMD8<Float>(repeating: 12582912.0)
        let shifted = x * SIMD8(repeating: 1.44269504088896341) + magic
        let n = shifted - magic
        let r = (x - n * SIMD8(repeating: 0.693359375)) - n * SIMD8(repeating: -2.12194440e-4)
        var p = SIMD8<Float>(repeating: 1.9875691500e-4)
        p = p * r + SIMD8(repeating: 1.3981999507e-3)
        p = p * r + SIMD8(repeating: 8.3334519073e-3)
        p = p * r + SIMD8(repeating: 4.1665795894e-2)
        p = p * r + SIMD8(repeating: 1.6666665459e-1)
        p = p * r + SIMD8(repeating: 5.0000001201e-1)
        let er = p * (r * r) + r + SIMD8(repeating: 1)
        // 2ⁿ from the exponent bits: n + 127 is in [1, 254] after the clamp. `n` is split in
        // two halves so that 2^(n/2) stays a normal number even at the ends of the range.
        let ni = unsafeBitCast(shifted, to: SIMD8<Int32>.self) &- SIMD8(repeating: 0x4B40_0000)
        let half = ni &>> 1
        let scale1 = unsafeBitCast((half &+ 127) &<< 23, to: SIMD8<Float>.self)
        let scale2 = unsafeBitCast((ni &- half &+ 127) &<< 23, to: SIMD8<Float>.self)
        return er * scale1 * scale2
    }

    /// Logistic with the reference kernel's cut-offs: 1 above 16.619…, exp(x) below -9,
    /// else 1 / (1 + exp(-x)).
    @inline(__always)
    static func logistic(_ x: SIMD8<Float>) -> SIMD8<Float> {
        // One exp for both branches: exp(x) below -9, exp(-x) elsewhere.
        let below = negativeMask(x + SIMD8(repeating: 9))
        let e = exp(select(below, x, -x))
        let one = SIMD8<Float>(repeating: 1)
        var y = select(below, e, one / (one + e))
        y = select(negativeMask(SIMD8(repeating: 16.619047164916992188) - x), one, y)
        return y
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
