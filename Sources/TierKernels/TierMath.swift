/// Vector helpers of the tier kernels, at 16 float lanes: partial loads and stores, clamp and
/// the hybrid quantization's rounding step. The transcendental functions (exp, logistic,
/// SiLU) are `LaneMath`'s, shared with DetectorInterpreter's 8-lane `FloatVectorMath`.
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
}

extension TierMath {
    // The same at 8 lanes, for a kernel whose module sets 8 lanes (`DepthwiseLanes` at the
    // baseline): through the tier's 16-lane primitives, whose unused upper lanes the compiler drops.
    // `load(_:count:as:)` names the lanes, so a kernel written over its module's lane type picks
    // the 8- or the 16-lane load.

    @inline(__always)
    static func load(_ p: UnsafePointer<Float>, count: Int, as _: SIMD16<Float>.Type) -> SIMD16<Float> {
        load(p, count: count)
    }

    /// `count` (≤ 8) floats from `p`, the other lanes 0.
    @inline(__always)
    static func load(_ p: UnsafePointer<Float>, count: Int, as _: SIMD8<Float>.Type) -> SIMD8<Float> {
        if count >= 8 { return UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self) }
        return Tier.load(p, count: count).lowHalf
    }

    /// Stores the first `count` (≤ 8) lanes of `v` at `p`.
    @inline(__always)
    static func store(_ v: SIMD8<Float>, to p: UnsafeMutablePointer<Float>, count: Int) {
        if count >= 8 { UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self); return }
        Tier.store(SIMD16(lowHalf: v, highHalf: v), to: p, count: count)
    }

    /// `min(max(v, lo), hi)` lane by lane, NaN kept.
    @inline(__always)
    static func clamp(_ v: SIMD8<Float>, lo: SIMD8<Float>, hi: SIMD8<Float>) -> SIMD8<Float> {
        Tier.clamp(SIMD16(lowHalf: v, highHalf: v), lo: SIMD16(lowHalf: lo, highHalf: lo), hi: SIMD16(lowHalf: hi, highHalf: hi)).lowHalf
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
}

/// How a product joins its sum: rounded first (`Separate`, the reference kernels'
/// arithmetic) or unrounded (`Fused`, one `vfmadd`; a tier without FMA never asks for it, and
/// its `Fused` is `Separate`, so no `fmaf` call is compiled there).
protocol MultiplyAdd {
    static func add(_ acc: SIMD16<Float>, _ a: SIMD16<Float>, _ b: SIMD16<Float>) -> SIMD16<Float>
    static func add(_ acc: SIMD8<Float>, _ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float>
}

enum Separate: MultiplyAdd {
    @inline(__always)
    static func add(_ acc: SIMD16<Float>, _ a: SIMD16<Float>, _ b: SIMD16<Float>) -> SIMD16<Float> { acc + a * b }
    @inline(__always)
    static func add(_ acc: SIMD8<Float>, _ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { acc + a * b }
}

enum Fused: MultiplyAdd {
    @inline(__always)
    static func add(_ acc: SIMD16<Float>, _ a: SIMD16<Float>, _ b: SIMD16<Float>) -> SIMD16<Float> {
        Tier.hasFusedMultiplyAdd ? acc.addingProduct(a, b) : acc + a * b
    }
    @inline(__always)
    static func add(_ acc: SIMD8<Float>, _ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
        Tier.hasFusedMultiplyAdd ? acc.addingProduct(a, b) : acc + a * b
    }
}
