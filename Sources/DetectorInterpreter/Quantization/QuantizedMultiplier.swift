import DetectorModelFile
import DetectorPlatform
import Foundation

/// A real multiplier encoded as TFLite does: a Q0.31 significand in [2^30, 2^31) and a
/// power-of-two exponent, `real ≈ multiplier * 2^(shift - 31)`.
package struct QuantizedMultiplier: Sendable, Equatable, CustomStringConvertible {
    /// Q0.31 significand (0 when the real value is 0 or underflows).
    package var multiplier: Int32
    /// Exponent: positive = left shift, negative = right shift.
    package var shift: Int32

    package init(multiplier: Int32, shift: Int32) {
        self.multiplier = multiplier
        self.shift = shift
    }

    /// TFLite `QuantizeMultiplier`: `frexp`, significand rounded half away from zero to 31 bits,
    /// the carry case `2^31` folded into the exponent, exponents below -31 flushed to zero.
    /// Non-finite or negative values (which no valid model produces) encode as zero.
    ///
    /// ```swift
    /// let m = QuantizedMultiplier(0.5)  // multiplier 1 << 30, shift 0
    /// ```
    package init(_ real: Double) {
        guard real.isFinite, real > 0 else {
            self.init(multiplier: 0, shift: 0)
            return
        }
        let fr = frexp(real)
        var exponent = Int32(clamping: fr.1)
        var fixed = Int64((fr.0 * 2147483648.0).rounded(.toNearestOrAwayFromZero))
        if fixed == (Int64(1) << 31) {
            fixed /= 2
            exponent += 1
        }
        if exponent < -31 {
            exponent = 0
            fixed = 0
        }
        self.init(multiplier: Int32(clamping: fixed), shift: exponent)
    }

    /// Applies the multiplier to `x` with the reference kernels' double rounding.
    @inlinable @inline(__always)
    package func apply(_ x: Int32) -> Int32 {
        FixedPoint.multiplyByQuantizedMultiplier(x, multiplier, shift)
    }

    package var description: String { "QuantizedMultiplier(\(multiplier), shift \(shift))" }
}

/// A `QuantizedMultiplier` unpacked for the hot requantization loops: the same double-rounding
/// arithmetic as `FixedPoint.multiplyByQuantizedMultiplier`, without branches on the shift and
/// without overflow checks (none can occur: the multiplier is non-negative, so the saturating case
/// `Int32.min * Int32.min` never arises, and every product fits in `Int64`).
package struct RequantizationStep: Sendable, Equatable {
    package let multiplier: Int64
    package let leftShift: Int32
    package let rightShift: Int32
    package let mask: Int32
    package let halfMask: Int32

    package init(_ m: QuantizedMultiplier) {
        multiplier = Int64(max(m.multiplier, 0))
        leftShift = max(m.shift, 0)
        let r = min(max(-m.shift, 0), 31)
        rightShift = r
        mask = Int32(truncatingIfNeeded: (Int64(1) << Int64(r)) - 1)
        halfMask = mask >> 1
    }

    @inlinable @inline(__always)
    package func apply(_ x: Int32) -> Int32 {
        let product = Int64(x &<< leftShift) &* multiplier
        let nudge: Int64 = product >= 0 ? (1 << 30) : (1 - (1 << 30))
        let t = product &+ nudge
        // Truncating division by 2^31 (toward zero), as the C++ `/`.
        let high = Int32(truncatingIfNeeded: (t &+ ((t >> 63) & 0x7FFF_FFFF)) >> 31)
        let remainder = high & mask
        let threshold = halfMask &+ (high >> 31 & 1)
        return (high >> rightShift) &+ (remainder > threshold ? 1 : 0)
    }
}
