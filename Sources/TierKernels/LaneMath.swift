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
/// The functions take any `LaneVector`: `MathLanes`, or a `LaneQuad` of four, which runs
/// each step on four independent vectors before the next, so the long dependency chains
/// (a 30-step polynomial-and-division) overlap in the core instead of filling its scheduler
/// with one chain (yolov8n_int8's faithful SiLU: 47.6 → 44.4 ms, AMD EPYC Zen 4, AVX-512).
/// `LaneVector`'s requirements are met by the concrete vector operators, not the stdlib's
/// generic lane-by-lane SIMD ones (those measured 1.3× slower on yolov8n_int8).
///
/// ```swift
/// let y = LaneMath.logistic(MathLanes(repeating: 0))   // 0.5 in every lane
/// ```
enum LaneMath {
    static let expMinArgument: Float = -87.33654
    static let expMaxArgument: Float = 88.37626

    /// All ones where `v` is negative (sign bit set), else 0.
    @inline(__always)
    static func negativeMask<V: LaneVector>(_ v: V) -> V.Bits {
        v.laneBits &>> 31
    }

    /// `a` where `mask` is all ones, `b` where it is 0.
    @inline(__always)
    static func select<V: LaneVector>(_ mask: V.Bits, _ a: V, _ b: V) -> V {
        V(laneBits: (a.laneBits & mask) | (b.laneBits & ~mask))
    }

    /// e^x, the reference kernels' formula step by step.
    @inline(__always)
    static func exp<V: LaneVector>(_ x: V) -> V {
        let minArgument = V(repeating: expMinArgument), maxArgument = V(repeating: expMaxArgument)
        var x = select(negativeMask(x - minArgument), minArgument, x)
        x = select(negativeMask(maxArgument - x), maxArgument, x)
        let (er, shifted) = reducedExp(x)
        // 2ⁿ from the exponent bits: n + 127 is in [1, 254] after the clamp. `n` is split in
        // two halves so that 2^(n/2) stays a normal number even at the ends of the range.
        let ni = shifted.laneBits &- V.Bits(repeating: 0x4B40_0000)
        let half = ni &>> 1
        let scale1 = V(laneBits: (half &+ V.Bits(repeating: 127)) &<< 23)
        let scale2 = V(laneBits: (ni &- half &+ V.Bits(repeating: 127)) &<< 23)
        return er * scale1 * scale2
    }

    /// `exp` for arguments ≤ 9 (logistic's: -x for x ≥ -9, else x), bit for bit: no upper
    /// clamp, and 2ⁿ as one scale. n = round(x / ln 2) is in [-126, 13] after the lower clamp,
    /// so 2ⁿ is a normal number and eʳ · 2ⁿ rounds once, as eʳ · 2^(n/2) (exact) · 2^(n − n/2)
    /// does in `exp`.
    @inline(__always)
    static func expAtMostNine<V: LaneVector>(_ x: V) -> V {
        let minArgument = V(repeating: expMinArgument)
        let (er, shifted) = reducedExp(select(negativeMask(x - minArgument), minArgument, x))
        // The low bits of `shifted` hold n (two's complement); shifted into the exponent field
        // and added to the bits of 1.0 they give 2ⁿ.
        let scale = V(laneBits: (shifted.laneBits &<< 23) &+ V.Bits(repeating: 0x3F80_0000))
        return er * scale
    }

    /// `exp`'s reduction x = n·ln 2 + r and eʳ (Cephes' polynomial) for a clamped x: eʳ, and
    /// `shifted` = x / ln 2 + 1.5·2²³, whose low bits hold n = round(x / ln 2).
    @inline(__always)
    private static func reducedExp<V: LaneVector>(_ x: V) -> (er: V, shifted: V) {
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
        return (p * (r * r) + r + V(repeating: 1), shifted)
    }

    /// Logistic with the reference kernel's cut-offs: 1 above 16.619…, exp(x) below -9,
    /// else 1 / (1 + exp(-x)).
    @inline(__always)
    static func logistic<V: LaneVector>(_ x: V) -> V {
        // One exp for both branches: exp(x) below -9, exp(-x) elsewhere.
        let below = negativeMask(x + V(repeating: 9))
        let e = expAtMostNine(select(below, x, -x))
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
    static func expOfNegated<V: LaneVector>(_ a: V) -> V {
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
        let scale = V(laneBits: (shifted.laneBits &<< 23) &+ V.Bits(repeating: 0x3F80_0000))
        return er * scale
    }

    /// Logistic with the reference cut-offs (1 above 16.619…, e^x below -9) from one
    /// `expOfNegated` e = e^-|x|: 1 / (1 + e) for x ≥ 0, e / (1 + e) below. Within 4e-7
    /// relative of `logistic`, not bit-faithful to it.
    @inline(__always)
    static func fastLogistic<V: LaneVector>(_ x: V) -> V {
        let bits = x.laneBits
        let e = expOfNegated(V(laneBits: bits & V.Bits(repeating: 0x7FFF_FFFF)))
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
    static func silu<V: LaneVector>(_ x: V) -> V {
        let bits = x.laneBits
        let e = expOfNegated(V(laneBits: bits & V.Bits(repeating: 0x7FFF_FFFF)))
        let floor = V(repeating: -87)
        let xc = select(negativeMask(x - floor), floor, x)
        let numerator = select(bits &>> 31, xc * e, xc)
        return numerator / (V(repeating: 1) + e)
    }
}

/// What `LaneMath` needs of a vector of float lanes: lane-wise arithmetic, and the lanes'
/// bits as 32-bit integers (`Bits`) for masks, selects and exponent tricks.
protocol LaneVector {
    associatedtype Bits: LaneBits
    init(repeating value: Float)
    init(laneBits: Bits)
    var laneBits: Bits { get }
    static func + (a: Self, b: Self) -> Self
    static func - (a: Self, b: Self) -> Self
    static func * (a: Self, b: Self) -> Self
    static func / (a: Self, b: Self) -> Self
    static prefix func - (a: Self) -> Self
}

/// The 32-bit integer lanes of a `LaneVector`'s bits.
protocol LaneBits {
    init(repeating value: Int32)
    static func & (a: Self, b: Self) -> Self
    static func | (a: Self, b: Self) -> Self
    static prefix func ~ (a: Self) -> Self
    static func &+ (a: Self, b: Self) -> Self
    static func &- (a: Self, b: Self) -> Self
    static func &>> (a: Self, b: Int32) -> Self
    static func &<< (a: Self, b: Int32) -> Self
}

extension MathLanes: LaneVector {
    @inline(__always)
    init(laneBits: MaskStorage) { self = unsafeBitCast(laneBits, to: Self.self) }

    @inline(__always)
    var laneBits: MaskStorage { unsafeBitCast(self, to: MaskStorage.self) }
}

extension MathLanes.MaskStorage: LaneBits {}

/// Four `MathLanes` vectors as one `LaneVector`: every operation is applied to the four in
/// turn, so `LaneMath`'s chains for four vectors interleave step by step. Each lane gets the
/// same arithmetic as alone, so the results are the same bits.
///
/// ```swift
/// let q = LaneMath.logistic(LaneQuad(a, b, c, d))   // q.a == LaneMath.logistic(a), …
/// ```
typealias LaneQuad = LaneFour<MathLanes>

/// The bits of a `LaneQuad`.
typealias LaneQuadBits = LaneFour<MathLanes.MaskStorage>

/// Four values of one type. Generic on purpose: a non-generic struct of four vectors gets
/// value witnesses shared by name across modules (`__swift_memcpy256_16`), which the linker
/// would let one tier module's copy serve the others; a generic one's are its own.
struct LaneFour<Lanes> {
    var a, b, c, d: Lanes

    @inline(__always)
    init(_ a: Lanes, _ b: Lanes, _ c: Lanes, _ d: Lanes) { self.a = a; self.b = b; self.c = c; self.d = d }
}

extension LaneFour: LaneVector where Lanes == MathLanes {
    @inline(__always)
    init(repeating value: Float) { let v = MathLanes(repeating: value); self.init(v, v, v, v) }

    @inline(__always)
    init(laneBits q: LaneQuadBits) {
        self.init(MathLanes(laneBits: q.a), MathLanes(laneBits: q.b), MathLanes(laneBits: q.c), MathLanes(laneBits: q.d))
    }

    @inline(__always)
    var laneBits: LaneQuadBits { LaneQuadBits(a.laneBits, b.laneBits, c.laneBits, d.laneBits) }

    @inline(__always)
    static func + (x: Self, y: Self) -> Self { Self(x.a + y.a, x.b + y.b, x.c + y.c, x.d + y.d) }

    @inline(__always)
    static func - (x: Self, y: Self) -> Self { Self(x.a - y.a, x.b - y.b, x.c - y.c, x.d - y.d) }

    @inline(__always)
    static func * (x: Self, y: Self) -> Self { Self(x.a * y.a, x.b * y.b, x.c * y.c, x.d * y.d) }

    @inline(__always)
    static func / (x: Self, y: Self) -> Self { Self(x.a / y.a, x.b / y.b, x.c / y.c, x.d / y.d) }

    @inline(__always)
    static prefix func - (x: Self) -> Self { Self(-x.a, -x.b, -x.c, -x.d) }
}

extension LaneFour: LaneBits where Lanes == MathLanes.MaskStorage {
    @inline(__always)
    init(repeating value: Int32) { let v = Lanes(repeating: value); self.init(v, v, v, v) }

    @inline(__always)
    static func & (x: Self, y: Self) -> Self { Self(x.a & y.a, x.b & y.b, x.c & y.c, x.d & y.d) }

    @inline(__always)
    static func | (x: Self, y: Self) -> Self { Self(x.a | y.a, x.b | y.b, x.c | y.c, x.d | y.d) }

    @inline(__always)
    static prefix func ~ (x: Self) -> Self { Self(~x.a, ~x.b, ~x.c, ~x.d) }

    @inline(__always)
    static func &+ (x: Self, y: Self) -> Self { Self(x.a &+ y.a, x.b &+ y.b, x.c &+ y.c, x.d &+ y.d) }

    @inline(__always)
    static func &- (x: Self, y: Self) -> Self { Self(x.a &- y.a, x.b &- y.b, x.c &- y.c, x.d &- y.d) }

    @inline(__always)
    static func &>> (x: Self, n: Int32) -> Self { Self(x.a &>> n, x.b &>> n, x.c &>> n, x.d &>> n) }

    @inline(__always)
    static func &<< (x: Self, n: Int32) -> Self { Self(x.a &<< n, x.b &<< n, x.c &<< n, x.d &<< n) }
}
