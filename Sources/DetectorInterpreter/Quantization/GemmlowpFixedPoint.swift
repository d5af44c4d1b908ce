import DetectorModelFile
import DetectorPlatform
// The gemmlowp fixed-point transcendental functions the reference quantized SOFTMAX uses.
// A value with `integerBits` integer bits is an Int32 raw `r` meaning r / 2^(31 - integerBits).

/// gemmlowp-compatible fixed-point `exp` and reciprocal, bit-exact with the C++ templates.
package enum GemmlowpMath {
    @inlinable @inline(__always)
    package static func mul(_ a: Int32, _ b: Int32) -> Int32 { FixedPoint.saturatingRoundingDoublingHighMul(a, b) }

    /// exp(a) for a in [-1/4, 0), result with 0 integer bits.
    @inlinable
    static func expOnIntervalBetweenNegativeOneQuarterAnd0Excl(_ a: Int32) -> Int32 {
        let constantTerm: Int32 = 1895147668
        let constant1Over3: Int32 = 715827883
        let x = a &+ (Int32(1) << 28)  // + 1/8 in Q0.31
        let x2 = mul(x, x)
        let x3 = mul(x2, x)
        let x4 = mul(x2, x2)
        let x4Over4 = FixedPoint.saturatingRoundingMultiplyByPOT(x4, -2)
        let inner = mul(x4Over4 &+ x3, constant1Over3) &+ x2
        let poly = FixedPoint.saturatingRoundingMultiplyByPOT(inner, -1)
        return constantTerm &+ mul(constantTerm, x &+ poly)
    }

    /// gemmlowp `exp_on_negative_values` for an input with `integerBits` integer bits (a <= 0);
    /// result in Q0.31.
    @inlinable
    package static func expOnNegativeValues(_ a: Int32, integerBits: Int32) -> Int32 {
        let fractionalBits = 31 - integerBits
        let oneQuarter: Int32 = Int32(1) << (fractionalBits - 2)
        let mask = oneQuarter &- 1
        let aModQuarterMinusOneQuarter = (a & mask) &- oneQuarter
        // Rescale to 0 integer bits: multiply by 2^integerBits (saturating).
        var result = expOnIntervalBetweenNegativeOneQuarterAnd0Excl(
            FixedPoint.saturatingRoundingMultiplyByPOT(aModQuarterMinusOneQuarter, integerBits))
        let remainder = aModQuarterMinusOneQuarter &- a
        // Barrel shifter: exp(-2^e) for e = -2...4 as Q0.31 constants.
        @inline(__always) func step(_ exponent: Int32, _ multiplier: Int32) {
            if integerBits > exponent, remainder & (Int32(1) << (fractionalBits + exponent)) != 0 {
                result = mul(result, multiplier)
            }
        }
        step(-2, 1672461947)
        step(-1, 1302514674)
        step(0, 790015084)
        step(1, 290630308)
        step(2, 39332535)
        step(3, 720401)
        step(4, 242)
        if integerBits > 5 {
            let clampB = 36 - integerBits
            let clamp: Int32 = -(Int32(1) << clampB)
            if a < clamp { result = 0 }
        }
        if a == 0 { result = Int32.max }
        return result
    }

    /// gemmlowp `one_over_one_plus_x_for_x_in_0_1` (input and output in Q0.31).
    @inlinable
    package static func oneOverOnePlusXForXIn01(_ a: Int32) -> Int32 {
        let halfDenominator = FixedPoint.roundingHalfSum(a, Int32.max)
        let constant48Over17: Int32 = 1515870810
        let constantNeg32Over17: Int32 = -1010580540
        var x = constant48Over17 &+ mul(halfDenominator, constantNeg32Over17)  // Q2.29
        let oneQ2: Int32 = Int32(1) << 29
        for _ in 0..<3 {
            let halfDenominatorTimesX = mul(halfDenominator, x)            // Q2.29
            let oneMinus = oneQ2 &- halfDenominatorTimesX                   // Q2.29
            let product = mul(x, oneMinus)                                  // Q4.27
            x = x &+ FixedPoint.saturatingRoundingMultiplyByPOT(product, 2) // back to Q2.29
        }
        // ExactMulByPot<-1>: Q2 -> Q1 with the same raw, then Rescale<0>: multiply by 2^1.
        return FixedPoint.saturatingRoundingMultiplyByPOT(x, 1)
    }

    /// TFLite `GetReciprocal`: 1/x for a positive accumulator with `integerDigits` integer bits,
    /// returned as a Q0.31 scale plus the number of bits the true value is above one.
    @inlinable
    package static func reciprocal(_ x: Int32, integerDigits: Int32) -> (scale: Int32, numBitsOverUnit: Int32) {
        let headroomPlusOne = Int32(UInt32(bitPattern: x).leadingZeroBitCount)
        let numBitsOverUnit = integerDigits - headroomPlusOne
        let shifted = UInt32(bitPattern: x) << UInt32(headroomPlusOne & 31)
        let shiftedSumMinusOne = Int32(bitPattern: shifted &- (UInt32(1) << 31))
        return (oneOverOnePlusXForXIn01(shiftedSumMinusOne), numBitsOverUnit)
    }
}
