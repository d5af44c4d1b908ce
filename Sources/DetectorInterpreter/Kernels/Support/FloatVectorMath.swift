import DetectorModelFile
import DetectorPlatform
/// Vectorized float32 transcendental functions for the activation kernels.
///
/// Two families, for two accuracy needs:
/// - `exp` and `logistic` follow the reference kernels' formulas step by step (the same
///   cut-offs, 1 / (1 + e^-x) with e^-x from an exp within 2 ulp of `expf`), so they mostly
///   round like them. LOGISTIC uses these, and so does SiLU where its result feeds the input
///   quantization of hybrid kernels, which turns a last-bit difference into a whole quantum.
/// - `expOfNegated` and `silu` are cheaper (one exponential of a non-positive argument, a
///   shorter polynomial, one division) and within 4e-7 relative, not bit-faithful: for SiLU
///   in float convolutions.
///
/// `exp` reduces x = n·ln 2 + r with |r| ≤ ln 2 / 2 (ln 2 split in two so n·ln2hi is exact
/// without FMA), evaluates a degree-7 polynomial for eʳ (Cephes' expf coefficients) and
/// scales by 2ⁿ through the exponent bits; inputs outside [-87.3, 88.7] are clamped (so huge
/// arguments give ≈ 2¹²⁸·… finite values, not ∞). The scalar `expf` formulas stay in
/// `FloatActivations` as the test oracle.
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

    /// Logistic with the reference cut-offs (1 above 16.619…, e^x below -9) from one
    /// `expOfNegated` e = e^-|x|: 1 / (1 + e) for x ≥ 0, e / (1 + e) below. Within 4e-7
    /// relative of `logistic`, not bit-faithful to it.
    @inline(__always)
    static func fastLogistic(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let bits = unsafeBitCast(x, to: SIMD8<Int32>.self)
        let e = expOfNegated(unsafeBitCast(bits & SIMD8(repeating: 0x7FFF_FFFF), to: SIMD8<Float>.self))
        let one = SIMD8<Float>(repeating: 1)
        let r = one / (one + e)
        var y = select(bits &>> 31, e * r, r)
        y = select(negativeMask(x + SIMD8(repeating: 9)), e, y)
        y = select(negativeMask(SIMD8(repeating: 16.619047164916992188) - x), one, y)
        return y
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

    /// x · logistic(x) with LOGISTIC's and MUL's roundings (`logistic`, then the product).
    @inline(__always)
    static func logisticProduct(_ x: SIMD8<Float>) -> SIMD8<Float> {
        x * logistic(x)
    }

    /// Replaces `count` floats at `p` by their `silu` (the faithful form, LOGISTIC's and MUL's
    /// roundings, is the kernel table's `HybridKernels.faithfulSiLU`).
    static func siluInPlace(_ p: UnsafeMutablePointer<Float>, count: Int) {
        map(UnsafePointer(p), to: p, range: 0..<count, silu)
    }

    /// `dst[i] = f(src[i])` over `range`, 8 lanes at a time; the last few values go through
    /// `tail` (default: `f` on one lane, so every value gets the same arithmetic). `src` may
    /// equal `dst`.
    @inline(__always)
    static func map(_ src: UnsafePointer<Float>, to dst: UnsafeMutablePointer<Float>, range: Range<Int>,
                    _ f: (SIMD8<Float>) -> SIMD8<Float>, tail: ((Float) -> Float)? = nil) {
        var i = range.lowerBound
        while i &+ 8 <= range.upperBound {
            UnsafeMutableRawPointer(dst + i).storeBytes(of: f(UnsafeRawPointer(src + i).loadUnaligned(as: SIMD8<Float>.self)),
                                                        as: SIMD8<Float>.self)
            i &+= 8
        }
        while i < range.upperBound { dst[i] = tail.map { $0(src[i]) } ?? f(SIMD8(repeating: src[i]))[0]; i &+= 1 }
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
