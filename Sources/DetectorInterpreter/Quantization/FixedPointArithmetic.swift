import DetectorModelFile
import DetectorPlatform
// Integer fixed-point primitives with the rounding of TensorFlow Lite's reference kernels
// (gemmlowp semantics). Every requantizing kernel goes through these so results are bit-exact.

/// Fixed-point helpers used by the quantized kernels.
///
/// All functions are pure and total: no input traps (overflow wraps or saturates exactly
/// where the reference implementation does).
package enum FixedPoint {
    /// `(a * b * 2) >> 32` rounded to nearest (ties away from zero), saturating the single
    /// overflowing case `a == b == Int32.min` to `Int32.max`.
    ///
    /// ```swift
    /// FixedPoint.saturatingRoundingDoublingHighMul(1 << 30, 1 << 30) // 1 << 29
    /// ```
    @inlinable @inline(__always)
    package static func saturatingRoundingDoublingHighMul(_ a: Int32, _ b: Int32) -> Int32 {
        if a == b && a == Int32.min { return Int32.max }
        let product = Int64(a) &* Int64(b)
        let nudge: Int64 = product >= 0 ? (1 << 30) : (1 - (1 << 30))
        // C++ `/` truncates toward zero; Swift's `/` on integers does too.
        return Int32(truncatingIfNeeded: (product &+ nudge) / (1 << 31))
    }

    /// `x / 2^exponent` rounded to nearest, ties away from zero (gemmlowp `RoundingDivideByPOT`).
    /// `exponent` is clamped to 0...31.
    @inlinable @inline(__always)
    package static func roundingDivideByPOT(_ x: Int32, _ exponent: Int32) -> Int32 {
        let e = exponent < 0 ? 0 : (exponent > 31 ? 31 : exponent)
        let mask: Int32 = Int32(truncatingIfNeeded: (Int64(1) << Int64(e)) - 1)
        let remainder = x & mask
        let threshold = (mask >> 1) &+ (x < 0 ? 1 : 0)
        return (x >> e) &+ (remainder > threshold ? 1 : 0)
    }

    /// The classic (double-rounding) `MultiplyByQuantizedMultiplier` of TFLite:
    /// `x * multiplier * 2^(shift - 31)` where a positive `shift` is a left shift applied first
    /// (wrapping, as the C++ does on two's-complement targets) and a negative one a rounding
    /// right shift applied after the high multiply.
    @inlinable @inline(__always)
    package static func multiplyByQuantizedMultiplier(_ x: Int32, _ multiplier: Int32, _ shift: Int32) -> Int32 {
        let leftShift = shift > 0 ? shift : 0
        let rightShift = shift > 0 ? 0 : -shift
        let shifted = leftShift > 0 ? x &<< leftShift : x
        return roundingDivideByPOT(saturatingRoundingDoublingHighMul(shifted, multiplier), rightShift)
    }

    /// `MultiplyByQuantizedMultiplierSmallerThanOneExp`: high multiply then rounding right shift
    /// by `-leftShift` (`leftShift <= 0`).
    @inlinable @inline(__always)
    package static func multiplyByQuantizedMultiplierSmallerThanOneExp(_ x: Int32, _ multiplier: Int32, _ leftShift: Int32) -> Int32 {
        roundingDivideByPOT(saturatingRoundingDoublingHighMul(x, multiplier), -leftShift)
    }

    /// `MultiplyByQuantizedMultiplierGreaterThanOne`: wrapping left shift then high multiply.
    @inlinable @inline(__always)
    package static func multiplyByQuantizedMultiplierGreaterThanOne(_ x: Int32, _ multiplier: Int32, _ leftShift: Int32) -> Int32 {
        saturatingRoundingDoublingHighMul(x &<< leftShift, multiplier)
    }

    /// The single-rounding variant (`TFLITE_SINGLE_ROUNDING` builds, used by TFLite Micro):
    /// one 64-bit multiply and one rounding shift, ties rounded up. Not used by the desktop
    /// runtime's reference kernels; kept for models validated against single-rounding builds.
    @inlinable
    package static func multiplyByQuantizedMultiplierSingleRounding(_ x: Int32, _ multiplier: Int32, _ shift: Int32) -> Int32 {
        let totalShift = Int64(31 - shift)
        guard totalShift > 0, totalShift < 63 else { return x }
        let round = Int64(1) << (totalShift - 1)
        let result = (Int64(x) * Int64(multiplier) + round) >> totalShift
        return Int32(clamping: result)
    }

    /// Saturating `x * 2^exponent` for a non-negative exponent (gemmlowp `SaturatingRoundingMultiplyByPOT`),
    /// a rounding divide for a negative one.
    @inlinable @inline(__always)
    package static func saturatingRoundingMultiplyByPOT(_ x: Int32, _ exponent: Int32) -> Int32 {
        if exponent == 0 { return x }
        if exponent < 0 { return roundingDivideByPOT(x, -exponent) }
        if exponent >= 31 { return x > 0 ? Int32.max : (x < 0 ? Int32.min : 0) }
        let threshold: Int32 = (Int32(1) << (31 - exponent)) - 1
        if x > threshold { return Int32.max }
        if x < -threshold { return Int32.min }
        return x << exponent
    }

    /// gemmlowp `RoundingHalfSum`: `(a + b) / 2` rounded away from zero.
    @inlinable @inline(__always)
    package static func roundingHalfSum(_ a: Int32, _ b: Int32) -> Int32 {
        let sum = Int64(a) + Int64(b)
        let sign: Int64 = sum >= 0 ? 1 : -1
        return Int32(truncatingIfNeeded: (sum + sign) / 2)
    }
}
