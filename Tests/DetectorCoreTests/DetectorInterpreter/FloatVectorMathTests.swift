import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The vector exponentials, logistic and SiLU against `expf`, double precision and the scalar reference formula.
final class FloatVectorMathTests: XCTestCase {
    /// Distance in units in the last place between two positive finite floats.
    private func ulps(_ a: Float, _ b: Float) -> Int {
        abs(Int(a.bitPattern) - Int(b.bitPattern))
    }

    func testExpIsWithinTwoUlpOfExpfOverTheWholeNormalRange() {
        var worst = 0, worstX: Float = 0
        var x: Float = LaneMath.expMinArgument
        while x < LaneMath.expMaxArgument {
            var v = SIMD8<Float>()
            for l in 0..<8 { v[l] = min(x + Float(l) * 0.0013, LaneMath.expMaxArgument) }
            let e = FloatVectorMath.exp(v)
            for l in 0..<8 {
                let u = ulps(e[l], expf(v[l]))
                if u > worst { worst = u; worstX = v[l] }
            }
            x += 0.0104
        }
        XCTAssertLessThanOrEqual(worst, 2, "worst at x = \(worstX)")
    }

    func testExpHandlesTheEndsAndExactPoints() {
        let e = FloatVectorMath.exp(SIMD8(0, 1, -1, 10, -10, 88.3, -87.3, 0.5))
        XCTAssertEqual(e[0], 1)
        XCTAssertEqual(Double(e[1]), M_E, accuracy: 1e-6)
        XCTAssertEqual(Double(e[2]), 1 / M_E, accuracy: 1e-7)
        XCTAssertEqual(Double(e[3]), 22026.465794806718, accuracy: 22026.47 * 2.4e-7)
        XCTAssertTrue(e[5].isFinite && e[5] > 2e38)
        XCTAssertTrue(e[6].isNormal && e[6] < 1.3e-38)
        // Clamped, not infinite or zero, far outside the range.
        let far = FloatVectorMath.exp(SIMD8(1000, -1000, .infinity, -.infinity, 0, 0, 0, 0))
        XCTAssertTrue(far[0].isFinite && far[1] > 0 && far[2].isFinite && far[3] > 0)
    }

    func testExpOfNegatedIsWithinTwoTenMillionthsOfExpfOverTheNormalRange() {
        var worst = 0.0, worstA: Float = 0
        var a: Float = 0
        while a < 87 {
            var v = SIMD8<Float>()
            for l in 0..<8 { v[l] = min(a + Float(l) * 0.0013, 87) }
            let e = FloatVectorMath.expOfNegated(v)
            for l in 0..<8 {
                let exact = Foundation.exp(-Double(v[l]))
                let rel = abs(Double(e[l]) - exact) / exact
                if rel > worst { worst = rel; worstA = v[l] }
            }
            a += 0.0104
        }
        XCTAssertLessThan(worst, 2.5e-7, "worst at a = \(worstA)")
    }

    func testExpOfNegatedHandlesTheEnds() {
        let e = FloatVectorMath.expOfNegated(SIMD8(0, 1, 10, 86.9, 87, 88, 1000, .infinity))
        XCTAssertEqual(e[0], 1)
        XCTAssertEqual(Double(e[1]), 1 / M_E, accuracy: 1e-7)
        XCTAssertEqual(Double(e[2]), exp(-10.0), accuracy: exp(-10.0) * 2e-7)
        XCTAssertTrue(e[3].isNormal && e[4].isNormal)
        // Clamped at 87: normal, positive, never 0 or a denormal far outside the range.
        for l in 5..<8 { XCTAssertEqual(e[l], e[4]) }
    }

    /// A vector logistic against the scalar reference formula over [-30, 30], and at the
    /// cut-offs (1 above 16.619…, e^x below -9) and 0.
    private func checkLogisticAgainstReference(_ logistic: (SIMD8<Float>) -> SIMD8<Float>,
                                               file: StaticString = #filePath, line: UInt = #line) {
        var worst: Float = 0
        var x: Float = -30
        while x < 30 {
            var v = SIMD8<Float>()
            for l in 0..<8 { v[l] = x + Float(l) * 0.00037 }
            let y = logistic(v)
            for l in 0..<8 {
                let r = FloatActivations.logistic(v[l])
                worst = max(worst, abs(y[l] - r) / max(r, Float.leastNormalMagnitude))
            }
            x += 0.0031
        }
        XCTAssertLessThan(worst, 4e-7, "relative error", file: file, line: line)
        let cut = logistic(SIMD8(16.62, 17, 100, -9.5, -20, 0, 16.6, -8.9))
        XCTAssertEqual(cut[0], 1, file: file, line: line); XCTAssertEqual(cut[1], 1, file: file, line: line)
        XCTAssertEqual(cut[2], 1, file: file, line: line); XCTAssertEqual(cut[5], 0.5, file: file, line: line)
        XCTAssertEqual(Double(cut[4]), exp(-20.0), accuracy: exp(-20.0) * 1e-6, file: file, line: line)
    }

    func testLogisticMatchesTheReferenceFormulaIncludingCutOffs() {
        checkLogisticAgainstReference(FloatVectorMath.logistic)
    }

    func testSiLUIsWithinFourTenMillionthsOfTheExactValue() {
        var worst = 0.0, worstX: Float = 0
        var x: Float = -87
        while x < 87 {
            var v = SIMD8<Float>()
            for l in 0..<8 { v[l] = x + Float(l) * 0.00071 }
            let y = FloatVectorMath.silu(v)
            for l in 0..<8 {
                let d = Double(v[l]), exact = d / (1 + Foundation.exp(-d))
                let rel = abs(Double(y[l]) - exact) / max(abs(exact), 1e-300)
                if rel > worst { worst = rel; worstX = v[l] }
            }
            x += 0.00573
        }
        XCTAssertLessThan(worst, 4e-7, "worst at x = \(worstX)")
        // Signs, zeros and the far ends: finite, the right sign, the right limit.
        let e = FloatVectorMath.silu(SIMD8(0, -0.0, 1e-30, -1e-30, 200, -200, .infinity, -.infinity))
        XCTAssertEqual(e[0], 0); XCTAssertEqual(e[1], 0)
        XCTAssertEqual(e[2], 5e-31, accuracy: 1e-36); XCTAssertEqual(e[3], -5e-31, accuracy: 1e-36)
        XCTAssertEqual(e[4], 200); XCTAssertEqual(e[6], .infinity)
        XCTAssertTrue(e[5] <= 0 && e[5] > -1e-35, "\(e[5])")
        XCTAssertTrue(e[7] <= 0 && e[7] > -1e-35, "\(e[7])")
        XCTAssertEqual(Double(FloatVectorMath.silu(SIMD8(repeating: 1))[0]), 0.7310585786300049, accuracy: 3e-7)
    }

    func testLogisticProductRoundsLikeLogisticThenMul() {
        var x: Float = -20
        while x < 20 {
            var v = SIMD8<Float>()
            for l in 0..<8 { v[l] = x + Float(l) * 0.00041 }
            let p = FloatVectorMath.logisticProduct(v), l = FloatVectorMath.logistic(v)
            for i in 0..<8 { XCTAssertEqual(p[i], v[i] * l[i]) }
            x += 0.0173
        }
    }

    func testFastLogisticMatchesTheReferenceFormulaIncludingCutOffs() {
        checkLogisticAgainstReference(FloatVectorMath.fastLogistic)
        let far = FloatVectorMath.fastLogistic(SIMD8(-100, .infinity, -.infinity, 0, 0, 0, 0, 0))
        XCTAssertTrue(far[0] >= 0 && far[0] < 1e-37); XCTAssertEqual(far[1], 1)
        XCTAssertTrue(far[2] >= 0 && far[2] < 1e-37)
    }
}
