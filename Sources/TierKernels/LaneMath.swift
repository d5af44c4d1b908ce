/// The float transcendental functions of the kernels, written once for any lane count: the
/// interpreter's element-wise ops use them at 8 lanes (`FloatVectorMath`, compiled into
/// DetectorInterpreter), the tier kernels at 16 (compiled into each tier module). This file
/// is compiled into every one of those modules (a link in each folder), each with its own
/// `MathLanes` and instruction set; a lane's result does not depend on the lane count (no
/// fused multiply-add: Swift does not contract `a * b + c`).
///
/// Two families, for two accuracy needs:
/// - `exp` and `logistic` follow the reference kernels' formulas step by step (the same
///   cut-offs, 1 / (1 + e^-x) with e^-x from an exp within 2 ulp of `expf`), so they mostly
///   round like them: LOGISTIC, and SiLU where its result feeds the input quantization of
///   hybrid kernels, which turns a last-bit difference into a whole quantum.
/// - `expOfNegated` and `silu` are cheaper (one exponential of a non-positive argument, a
///   shorter polynomial, one division) and within 4e-7 relative, not bit-faithful: for SiLU
///   in float convolutions.
///
/// `exp` reduces x = n·ln 2 + r with |r| ≤ ln 2 / 2 (ln 2 split in two so n·ln2hi is exact
/// without FMA), evaluates a degree-7 polynomial for eʳ (Cephes' expf coefficients) and
/// scales by 2ⁿ through the exponent bits; inputs outside [-87.3, 88.7] are clamped (so huge
/// arguments give ≈ 2¹²⁸·… finite values, not ∞). The scalar `expf` formulas stay in
/// DetectorInterpreter's `FloatActivations` as the test oracle.
///
/// Lane masks and selects are integer bit operations on the lanes' bits: the generic `.<`,
/// `replacing(with:where:)` and `clamped` are not reliably inlined and vectorized. A
/// comparison is the sign of an exact difference (both operands are in the same binade range
/// where it matters); a NaN difference counts as negative.
///
/// ```swift
/// let y = LaneMath.logistic(MathLanes(repeating: 0))   // 0.5 in every lane
/// ```
enum LaneMath {
    /// The lanes of this module: `MathLanes` is `SIMD16<Float>` in the tier modules (`Tier.swift`)
    /// and `SIMD8<Float>` in DetectorInterpreter (`FloatVectorMath.swift`). A concrete type, not
    /// a generic parameter: generic SIMD code calls the stdlib's lane-by-lane generic operators
    /// instead of the concrete vector ones (measured 1.3× slower on yolov8n_int8 at AVX-512).
    typealias V = MathLanes
    typealias Bits = MathLanes.MaskStorage

    static let expMinArgument: Float = -87.33654
    static let expMaxArgument: Float = 88.37626

    /// All ones where `v` is negative (sign bit set), else 0.
    @inline(__always)
    static func negativeMask(_ v: V) -> Bits {
        unsafeBitCast(v, to: Bits.self) &>> 31
    }

    /// `a` where `mask` is all ones, `b` where it is 0.
    @inline(__always)
    static func select(_ mask: Bits, _ a: V, _ b: V) -> V {
        let ai = unsafeBitCast(a, to: Bits.self), bi = unsafeBitCast(b, to: Bits.self)
        return unsafeBitCast((ai & mask) | (bi & ~mask), to: V.self)
    }

    /// e^x, the reference kernels' formula step by step.
    @inline(__always)
    static func exp(_ x: V) -> V {
        let minArgument = V(repeating: expMinArgument), maxArgument = V(repeating: expMaxArgument)
        var x = select(negativeMask(x - minArgument), minArgument, x)
        x = select(negativeMask(maxArgument - x), maxArgument, x)
        // n = round(x / ln 2) with the 1.5·2²³ rounding trick.
        let magic = V(repeating: 12582912.0)
        let shifted = x * V(repeating: 1.44269504088896341) + magic
        let n = shifted - magic
        let r = (x - n * V(repeating: 0.693359375)) - n * V(repeating: -2.12194440e-4)
        var p = V(repeating: 1.9875691500e-4)
        p = p * r + V(repeating: 1.3981999507e-3)
        p = p * r + V(repeating: 8.3334519073e-3)
        p = p * r + V(repeating: 4.1665795894e-2)
        p = p * r + V(repeating: 1.6666665459e-1)
        p = p * r + V(repeating: 5.0000001201e-1)
        let er = p * (r * r) + r + V(repeating: 1)
        // 2ⁿ from the exponent bits: n + 127 is in [1, 254] after the clamp. `n` is split in
        // two halves so that 2^(n/2) stays a normal number even at the ends of the range.
        let ni = unsafeBitCast(shifted, to: Bits.self) &- Bits(repeating: 0x4B40_0000)
        let half = ni &>> 1
        let scale1 = unsafeBitCast((half &+ 127) &<< 23, to: V.self)
        let scale2 = unsafeBitCast((ni &- half &+ 127) &<< 23, to: V.self)
        return er * scale1 * scale2
    }

    /// Logistic with the reference kernel's cut-offs: 1 above 16.619…, exp(x) below -9,
    /// else 1 / (1 + exp(-x)).
    @inline(__always)
    static func logistic(_ x: V) -> V {
        // One exp for both branches: exp(x) below -9, exp(-x) elsewhere.
        let below = negativeMask(x + V(repeating: 9))
        let e = exp(select(below, x, -x))
        let one = V(repeating: 1)
        var y = select(below, e, one / (one + e))
        y = select(negativeMask(V(repeating: 16.619047164916992188) - x), one, y)
        return y
    }

    /// e^-a for a ≥ 0 (NaN-free input), within 2e-7 relative; a is clamped to 87 so the
    /// result stays a normal number. The argument is never positive, so unlike `exp` there
    /// is no upper clamp and a single 2ⁿ scale (n in [-126, 0]) suffices; eʳ is a degree-5
    /// polynomial fitted for this kernel (1.7e-7 relative on |r| ≤ ln 2 / 2).
    @inline(__always)
    static func expOfNegated(_ a: V) -> V {
        let limit = V(repeating: 87)
        let a = select(negativeMask(limit - a), limit, a)
        // n = round(-a / ln 2) with the 1.5·2²³ trick; r = -a - n·ln 2 (ln 2 in two parts).
        let magic = V(repeating: 12582912.0)
        let shifted = a * V(repeating: -1.44269504088896341) + magic
        let n = shifted - magic
        let r = (n * V(repeating: -0.693359375) - a) - n * V(repeating: -2.12194440e-4)
        var p = V(repeating: 8.312525227665901e-3)
        p = p * r + V(repeating: 4.1890114545822144e-2)
        p = p * r + V(repeating: 1.6667114198207855e-1)
        p = p * r + V(repeating: 4.99992311000824e-1)
        let er = p * (r * r) + r + V(repeating: 1)
        // The low bits of `shifted` hold n; shifting them into the exponent field and adding
        // the bits of 1.0 gives 2ⁿ (the magic number's own bits shift out).
        let scale = unsafeBitCast((unsafeBitCast(shifted, to: Bits.self) &<< 23) &+ Bits(repeating: 0x3F80_0000),
                                  to: V.self)
        return er * scale
    }

    /// Logistic with the reference cut-offs (1 above 16.619…, e^x below -9) from one
    /// `expOfNegated` e = e^-|x|: 1 / (1 + e) for x ≥ 0, e / (1 + e) below. Within 4e-7
    /// relative of `logistic`, not bit-faithful to it.
    @inline(__always)
    static func fastLogistic(_ x: V) -> V {
        let bits = unsafeBitCast(x, to: Bits.self)
        let e = expOfNegated(unsafeBitCast(bits & Bits(repeating: 0x7FFF_FFFF), to: V.self))
        let one = V(repeating: 1)
        let r = one / (one + e)
        var y = select(bits &>> 31, e * r, r)
        y = select(negativeMask(x + V(repeating: 9)), e, y)
        y = select(negativeMask(V(repeating: 16.619047164916992188) - x), one, y)
        return y
    }

    /// SiLU, x · logistic(x), within 4e-7 relative of the exact value (|x| ≤ 87; beyond,
    /// x for large x and ≈ -1e-36 for very negative x). Cheaper than `x * logistic(x)`: one
    /// `expOfNegated` e = e^-|x| and one division, x / (1 + e) for x ≥ 0 and x·e / (1 + e)
    /// below. It does not reproduce the reference LOGISTIC's cut-offs (above 16.6 and below
    /// -9), which change the product by less than 2e-7 of |x|.
    @inline(__always)
    static func silu(_ x: V) -> V {
        let bits = unsafeBitCast(x, to: Bits.self)
        let e = expOfNegated(unsafeBitCast(bits & Bits(repeating: 0x7FFF_FFFF), to: V.self))
        let floor = V(repeating: -87)
        let xc = select(negativeMask(x - floor), floor, x)
        let numerator = select(bits &>> 31, xc * e, xc)
        return numerator / (V(repeating: 1) + e)
    }
}
