/// Requantization of Int32 sums to 8-bit outputs at every tier, 16 channels per step: the
/// arithmetic of DetectorInterpreter's `VectorRequantization` (TFLite's `MultiplyByQuantizedMultiplier`
/// with both roundings folded into one unsigned 32×32→64 multiply and a shift), so the bytes
/// are the same as the reference kernels' at every tier.
///
/// For `x = acc + bias`, `2M` the doubled multiplier and `r` the right shift of a channel:
/// `|result| = ⌊(|x|·2M + 2^31 − 2·neg + (r > 0 ? 2^(31+r) : 0)) / 2^(32+r)⌋`, with the sign of
/// `x`; then `+ outputZeroPoint`, the clamp, and the low byte is stored (uint8 and int8 alike).
package enum TierRequantization {
    /// Requantizes `count` sums of one output row. The per-channel arrays hold at least
    /// `count` rounded up to 16 values (the padding channels are never stored).
    package static func apply(_ acc: UnsafePointer<Int32>, count: Int, bias: UnsafePointer<Int32>,
                              doubledMultiplier: UnsafePointer<UInt32>, rightShift: UnsafePointer<UInt32>,
                              outputZeroPoint: Int32, activationMin: Int32, activationMax: Int32,
                              output: UnsafeMutableRawPointer) {
        row(acc, count: count, bias: bias, doubledMultiplier: doubledMultiplier, rightShift: rightShift,
            zp: SIMD16<Int32>(repeating: outputZeroPoint), lo: SIMD16<Int32>(repeating: activationMin),
            hi: SIMD16<Int32>(repeating: activationMax), output: output)
    }

    /// `apply` for `rows` rows of `count` sums stored one after another (sums and bytes alike):
    /// one call per tile instead of one per row (automl's 8- to 48-channel layers spent more
    /// in the calls than in the arithmetic).
    package static func apply(_ acc: UnsafePointer<Int32>, rows: Int, count: Int, bias: UnsafePointer<Int32>,
                              doubledMultiplier: UnsafePointer<UInt32>, rightShift: UnsafePointer<UInt32>,
                              outputZeroPoint: Int32, activationMin: Int32, activationMax: Int32,
                              output: UnsafeMutableRawPointer) {
        let zp = SIMD16<Int32>(repeating: outputZeroPoint)
        let lo = SIMD16<Int32>(repeating: activationMin), hi = SIMD16<Int32>(repeating: activationMax)
        var r = 0
        while r < rows {
            row(acc + r &* count, count: count, bias: bias, doubledMultiplier: doubledMultiplier, rightShift: rightShift,
                zp: zp, lo: lo, hi: hi, output: output + r &* count)
            r &+= 1
        }
    }

    @inline(__always)
    static func row(_ acc: UnsafePointer<Int32>, count: Int, bias: UnsafePointer<Int32>,
                    doubledMultiplier: UnsafePointer<UInt32>, rightShift: UnsafePointer<UInt32>,
                    zp: SIMD16<Int32>, lo: SIMD16<Int32>, hi: SIMD16<Int32>, output: UnsafeMutableRawPointer) {
        var c = 0
        while c < count {
            let width = min(16, count &- c)
            let x = Tier.load(acc + c, count: width)
            let q = requantize(x &+ UnsafeRawPointer(bias + c).loadUnaligned(as: SIMD16<Int32>.self),
                               doubledMultiplier: UnsafeRawPointer(doubledMultiplier + c).loadUnaligned(as: SIMD16<UInt32>.self),
                               shift: UnsafeRawPointer(rightShift + c).loadUnaligned(as: SIMD16<UInt32>.self)) &+ zp
            Tier.storeLowBytes(Tier.clamp(q, lo: lo, hi: hi), to: output + c, count: width)
            c &+= 16
        }
    }

    /// The folded arithmetic for 16 lanes (`x` includes the bias): even lanes in the low and
    /// odd lanes in the high halves of eight 64-bit lanes, one `vpmuludq` each, for the high
    /// word `h = ⌊(|x|·2M + 2^31 − 2·neg) / 2^32⌋`; then `⌊(h + ⌊2^r / 2⌋) / 2^r⌋` in 32-bit
    /// lanes, the same value as the one-step form (nested floors of divisions fold), with
    /// `h + 2^(r−1) ≤ 2^31 + 2^30` (no wrap).
    @inline(__always)
    static func requantize(_ x: SIMD16<Int32>, doubledMultiplier: SIMD16<UInt32>, shift: SIMD16<UInt32>) -> SIMD16<Int32> {
        let sign = x &>> 31
        let magnitude = unsafeBitCast((x ^ sign) &- sign, to: SIMD8<UInt64>.self)
        let m = unsafeBitCast(doubledMultiplier, to: SIMD8<UInt64>.self)
        let sign64 = unsafeBitCast(sign, to: SIMD8<UInt64>.self)
        let low = SIMD8<UInt64>(repeating: 0xFFFF_FFFF), two = SIMD8<UInt64>(repeating: 2)
        let half = SIMD8<UInt64>(repeating: 1 << 31)
        let even = (magnitude & low) &* (m & low) &+ half &- (sign64 & two)
        let odd = (magnitude &>> 32) &* (m &>> 32) &+ half &- ((sign64 &>> 32) & two)
        let high = unsafeBitCast((even &>> 32) | (odd & ~low), to: SIMD16<UInt32>.self)
        let rounded = high &+ ((SIMD16<UInt32>(repeating: 1) &<< shift) &>> 1)
        let result = unsafeBitCast(rounded &>> shift, to: SIMD16<Int32>.self)
        return (result ^ sign) &- sign
    }
}
