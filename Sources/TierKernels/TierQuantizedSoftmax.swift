/// 8-bit SOFTMAX over rows of at most 16 values (YOLOv8's distribution head: 33,600 rows of
/// 16), one row per vector, with the reference kernel's fixed-point arithmetic, in two passes
/// around the per-row reciprocal, which the caller computes (`GemmlowpMath.reciprocal`,
/// scalar, between the passes: independent rows, so its latency overlaps):
/// - `exponentials`: the row's maximum; the Q0.31 exponentials looked up by `max − x` (0…255)
///   in `QuantizedSoftmaxTable.exps`, kept for the second pass; the exact Int32 sum of their
///   terms, each exponential rounding-shifted right by 12 (`(e >> 12) + bit 11 of e`, which is
///   the table's `terms` for e ≥ 0);
/// - `outputs`: per element `min(((scale · e + 2³⁰) >> 31 + ½) >> s, top) + min`.
/// Integer arithmetic throughout, so the bytes equal `QuantizedSoftmax.run`'s (the oracle in
/// `QuantizedSoftmaxRowsTests`).
///
/// ```swift
/// TierQuantizedSoftmax.exponentials(x, rows: n, depth: 16, signed: true, exps: table, into: e, sums: s)
/// ```
package enum TierQuantizedSoftmax {
    /// Per row of `depth` (1…16) bytes: its 16 exponentials (0 past `depth`) at `e + 16·r` and
    /// the sum of their terms at `sums[r]`.
    package static func exponentials(_ input: UnsafeRawPointer, rows: Int, depth: Int, signed: Bool, exps: UnsafePointer<Int32>,
                                     into e: UnsafeMutablePointer<Int32>, sums: UnsafeMutablePointer<Int32>) {
        var valid = SIMD16<Int32>()
        for l in 0..<16 where l < depth { valid[l] = -1 }
        for r in 0..<rows {
            let x = Tier.widenBytes(input + r &* depth, count: depth, signed: signed)
            let m = maximum(x, valid: valid)
            let v = Tier.gather(exps, (SIMD16<Int32>(repeating: m) &- x) & 255) & valid
            UnsafeMutableRawPointer(e + 16 &* r).storeBytes(of: v, as: SIMD16<Int32>.self)
            let t = (v &>> 12) &+ ((v &>> 11) & 1)
            let h8 = t.lowHalf &+ t.highHalf, h4 = h8.lowHalf &+ h8.highHalf, h2 = h4.lowHalf &+ h4.highHalf
            sums[r] = h2.x &+ h2.y
        }
    }

    /// Per row with `scales[r] ≥ 0` (others are left to the caller): `depth` output bytes
    /// `min(((scales[r] · e + 2³⁰) >> 31 + half) >> s, top) + outputMin` from the row's
    /// exponentials at `e + 16·r`, with `s = shifts[r]` clamped to 0…31 and `half = (1 << s) >> 1`.
    package static func outputs(_ e: UnsafePointer<Int32>, rows: Int, depth: Int, scales: UnsafePointer<Int32>,
                                shifts: UnsafePointer<Int32>, outputMin: Int32, top: Int32, output: UnsafeMutableRawPointer) {
        let roundingBit = SIMD8<Int64>(repeating: 1 << 30)
        let vtop = SIMD16<Int32>(repeating: top), vmin = SIMD16<Int32>(repeating: outputMin)
        for r in 0..<rows where scales[r] >= 0 {
            let v = UnsafeRawPointer(e + 16 &* r).loadUnaligned(as: SIMD16<Int32>.self)
            let shift = shifts[r] < 0 ? 0 : (shifts[r] > 31 ? 31 : shifts[r])
            let scale = SIMD8<Int64>(repeating: Int64(scales[r]))
            let half = SIMD8<Int64>(repeating: (Int64(1) << Int64(shift)) >> 1)
            let s = SIMD8<Int64>(repeating: Int64(shift))
            let lo = ((scale &* SIMD8<Int64>(truncatingIfNeeded: v.lowHalf) &+ roundingBit) &>> 31 &+ half) &>> s
            let hi = ((scale &* SIMD8<Int64>(truncatingIfNeeded: v.highHalf) &+ roundingBit) &>> 31 &+ half) &>> s
            let unsat = SIMD16<Int32>(lowHalf: SIMD8<Int32>(truncatingIfNeeded: lo), highHalf: SIMD8<Int32>(truncatingIfNeeded: hi))
            let below = (unsat &- vtop) &>> 31   // all ones where unsat < top (both in 0…2³¹)
            Tier.storeLowBytes(((unsat & below) | (vtop & ~below)) &+ vmin, to: output + r &* depth, count: depth)
        }
    }

    /// The largest of the valid lanes (8-bit values, so differences do not overflow).
    @inline(__always)
    private static func maximum(_ x: SIMD16<Int32>, valid: SIMD16<Int32>) -> Int32 {
        let v = (x & valid) | (SIMD16<Int32>(repeating: -1024) & ~valid)
        let h8 = larger(v.lowHalf, v.highHalf), h4 = larger(h8.lowHalf, h8.highHalf), h2 = larger(h4.lowHalf, h4.highHalf)
        return Swift.max(h2.x, h2.y)
    }

    @inline(__always)
    private static func larger(_ a: SIMD8<Int32>, _ b: SIMD8<Int32>) -> SIMD8<Int32> {
        let below = (a &- b) &>> 31
        return (b & below) | (a & ~below)
    }

    @inline(__always)
    private static func larger(_ a: SIMD4<Int32>, _ b: SIMD4<Int32>) -> SIMD4<Int32> {
        let below = (a &- b) &>> 31
        return (b & below) | (a & ~below)
    }

    @inline(__always)
    private static func larger(_ a: SIMD2<Int32>, _ b: SIMD2<Int32>) -> SIMD2<Int32> {
        let below = (a &- b) &>> 31
        return (b & below) | (a & ~below)
    }
}
