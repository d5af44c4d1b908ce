import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class FixedPointArithmeticTests: XCTestCase {
    func testSaturatingRoundingDoublingHighMul() {
        // 0.5 * 0.5 = 0.25 in Q0.31.
        XCTAssertEqual(FixedPoint.saturatingRoundingDoublingHighMul(1 << 30, 1 << 30), 1 << 29)
        // The single overflow case saturates.
        XCTAssertEqual(FixedPoint.saturatingRoundingDoublingHighMul(Int32.min, Int32.min), Int32.max)
        // -1 * (1 - 2^-31) = -(2^31 - 1) / 2^31 -> raw -2147483647.
        XCTAssertEqual(FixedPoint.saturatingRoundingDoublingHighMul(Int32.min, Int32.max), -2147483647)
        // Exact halves: the nudge (2^30, or 1 - 2^30 for negative products) followed by a
        // truncating division rounds ties toward +infinity: 0.5 -> 1, -0.5 -> 0, -1.5 -> -1.
        XCTAssertEqual(FixedPoint.saturatingRoundingDoublingHighMul(1, 1 << 30), 1)
        XCTAssertEqual(FixedPoint.saturatingRoundingDoublingHighMul(-1, 1 << 30), 0)
        XCTAssertEqual(FixedPoint.saturatingRoundingDoublingHighMul(-3, 1 << 30), -1)
        XCTAssertEqual(FixedPoint.saturatingRoundingDoublingHighMul(3, 1 << 30), 2)
        // Just below half: 1 * (2^30 - 1) * 2 / 2^32 < 0.5 -> 0 both signs.
        XCTAssertEqual(FixedPoint.saturatingRoundingDoublingHighMul(1, (1 << 30) - 1), 0)
        XCTAssertEqual(FixedPoint.saturatingRoundingDoublingHighMul(-1, (1 << 30) - 1), 0)
    }

    func testRoundingDivideByPOTRoundsHalvesAwayFromZero() {
        XCTAssertEqual(FixedPoint.roundingDivideByPOT(5, 1), 3)    // 2.5
        XCTAssertEqual(FixedPoint.roundingDivideByPOT(-5, 1), -3)  // -2.5
        XCTAssertEqual(FixedPoint.roundingDivideByPOT(3, 1), 2)    // 1.5
        XCTAssertEqual(FixedPoint.roundingDivideByPOT(-3, 1), -2)  // -1.5
        XCTAssertEqual(FixedPoint.roundingDivideByPOT(6, 2), 2)    // 1.5
        XCTAssertEqual(FixedPoint.roundingDivideByPOT(-6, 2), -2)  // -1.5
        XCTAssertEqual(FixedPoint.roundingDivideByPOT(5, 2), 1)    // 1.25
        XCTAssertEqual(FixedPoint.roundingDivideByPOT(-5, 2), -1)  // -1.25
        XCTAssertEqual(FixedPoint.roundingDivideByPOT(7, 2), 2)    // 1.75
        XCTAssertEqual(FixedPoint.roundingDivideByPOT(-7, 2), -2)  // -1.75
        XCTAssertEqual(FixedPoint.roundingDivideByPOT(Int32.max, 31), 1)
        XCTAssertEqual(FixedPoint.roundingDivideByPOT(Int32.min, 31), -1)
        XCTAssertEqual(FixedPoint.roundingDivideByPOT(12345, 0), 12345)
    }

    func testQuantizeMultiplier() {
        XCTAssertEqual(QuantizedMultiplier(0.5), QuantizedMultiplier(multiplier: 1 << 30, shift: 0))
        XCTAssertEqual(QuantizedMultiplier(1.0), QuantizedMultiplier(multiplier: 1 << 30, shift: 1))
        XCTAssertEqual(QuantizedMultiplier(0.75), QuantizedMultiplier(multiplier: 1610612736, shift: 0))
        XCTAssertEqual(QuantizedMultiplier(3.0), QuantizedMultiplier(multiplier: 1610612736, shift: 2))
        // 0.1 = 0.8 * 2^-3; 0.8 * 2^31 = 1717986918.4 -> 1717986918.
        XCTAssertEqual(QuantizedMultiplier(0.1), QuantizedMultiplier(multiplier: 1717986918, shift: -3))
        // Significand rounding up to 2^31 carries into the exponent.
        XCTAssertEqual(QuantizedMultiplier(1 - 1e-12), QuantizedMultiplier(multiplier: 1 << 30, shift: 1))
        // Underflow below 2^-32 flushes to zero; zero and invalid values encode as zero.
        XCTAssertEqual(QuantizedMultiplier(1e-12), QuantizedMultiplier(multiplier: 0, shift: 0))
        XCTAssertEqual(QuantizedMultiplier(0), QuantizedMultiplier(multiplier: 0, shift: 0))
        XCTAssertEqual(QuantizedMultiplier(.nan), QuantizedMultiplier(multiplier: 0, shift: 0))
    }

    func testMultiplyByQuantizedMultiplier() {
        let half = QuantizedMultiplier(0.5)
        XCTAssertEqual(half.apply(5), 3)    // 2.5 -> 3 (high-mul ties go up)
        XCTAssertEqual(half.apply(-5), -2)  // -2.5 -> -2
        XCTAssertEqual(half.apply(4), 2)
        let quarter = QuantizedMultiplier(0.25)  // shift -1: high-mul then rounding shift
        XCTAssertEqual(quarter.shift, -1)
        XCTAssertEqual(quarter.apply(6), 2)    // 1.5 -> 2
        XCTAssertEqual(quarter.apply(-6), -2)  // -1.5 -> -2
        // Double rounding: 5 * 0.5 = 2.5 -> 3 in the high-mul, then 3 / 2 = 1.5 -> 2 (real 1.25).
        XCTAssertEqual(quarter.apply(5), 2)
        XCTAssertEqual(quarter.apply(-5), -1)  // -2.5 -> -2, then -1
        let three = QuantizedMultiplier(3.0)   // left shift 2
        XCTAssertEqual(three.apply(7), 21)
        XCTAssertEqual(three.apply(-7), -21)
        // Double rounding: 0.3 * 5 = 1.5 but the high-mul rounds first; compare with the
        // real product where no tie is involved.
        let m = QuantizedMultiplier(0.3)
        XCTAssertEqual(m.apply(100), 30)
        XCTAssertEqual(m.apply(-100), -30)
        // Saturation of the high multiply at the top end.
        XCTAssertEqual(FixedPoint.multiplyByQuantizedMultiplier(Int32.min, Int32.min, 0), Int32.max)
    }

    func testActivationRange() {
        let q = QuantizationParams(scale: 0.5, zeroPoint: 10)
        XCTAssertEqual(quantizedActivationRange(.none, output: q, as: UInt8.self).min, 0)
        XCTAssertEqual(quantizedActivationRange(.relu, output: q, as: UInt8.self).min, 10)
        XCTAssertEqual(quantizedActivationRange(.relu6, output: q, as: UInt8.self).max, 22)
        XCTAssertEqual(quantizedActivationRange(.reluN1To1, output: q, as: Int8.self).min, 8)
        XCTAssertEqual(quantizedActivationRange(.reluN1To1, output: q, as: Int8.self).max, 12)
        // Clamped to the type range.
        let big = QuantizationParams(scale: 0.01, zeroPoint: 0)
        XCTAssertEqual(quantizedActivationRange(.relu6, output: big, as: Int8.self).max, 127)
    }

    func testGemmlowpExpAndReciprocal() {
        // exp(0) is one (saturated Q0.31).
        XCTAssertEqual(GemmlowpMath.expOnNegativeValues(0, integerBits: 5), Int32.max)
        // exp(-1) with 5 integer bits: raw -1 << 26. Compare with the real value within 2 ulp of Q0.31 (~1e-9).
        let e1 = Double(GemmlowpMath.expOnNegativeValues(-(1 << 26), integerBits: 5)) / 2147483648.0
        XCTAssertEqual(e1, 0.36787944117144233, accuracy: 1e-6)
        let e3 = Double(GemmlowpMath.expOnNegativeValues(-(3 << 26) - (1 << 25), integerBits: 5)) / 2147483648.0
        XCTAssertEqual(e3, 0.0301973834223185, accuracy: 1e-6)  // exp(-3.5)
        // 1 / (1 + 0.5) = 2/3.
        let r = Double(GemmlowpMath.oneOverOnePlusXForXIn01(1 << 30)) / 2147483648.0
        XCTAssertEqual(r, 2.0 / 3.0, accuracy: 1e-8)
    }
}

extension FixedPointArithmeticTests {
    func testRequantizationStepMatchesMultiplyByQuantizedMultiplier() {
        var rng = TestRandom(seed: 5)
        let reals: [Double] = [0.5, 0.25, 1.0, 3.0, 0.0001, 0.020636025536435752, 1e-9, 0.75, 7.9]
        for real in reals {
            let m = QuantizedMultiplier(real)
            let step = RequantizationStep(m)
            var xs: [Int32] = [0, 1, -1, 5, -5, 6, -6, 1 << 20, -(1 << 20), 8843, -8843]
            for _ in 0..<2000 { xs.append(Int32(rng.int(-(1 << 24)...(1 << 24)))) }
            for x in xs {
                XCTAssertEqual(step.apply(x), m.apply(x), "x=\(x) real=\(real)")
            }
        }
    }
}
