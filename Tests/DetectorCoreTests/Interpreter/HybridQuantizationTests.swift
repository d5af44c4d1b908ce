import XCTest
@testable import DetectorCore

/// The vectorized on-the-fly input quantization of the hybrid kernels against the scalar
/// formula with `rounded(.toNearestOrAwayFromZero)`, on the values where rounding is delicate.
final class HybridQuantizationTests: XCTestCase {
    /// Ties, their neighbours, values just below ½ (where adding ½ would round up), signed
    /// zeros, NaN, infinities and out-of-range values, through both the 8-lane loop and the tail.
    func testVectorQuantizeMatchesScalarFormula() {
        var special: [Float] = [0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 126.5, -126.5, 127.5, -127.5, 128.5, -128.5,
                                0.49999997, -0.49999997, 1e-30, -1e-30, .nan, -.nan, .infinity, -.infinity, 1e30, -1e30,
                                .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude]
        for t: Float in [0.5, 1.5, 2.5, 3.5, 63.5, 100.5, 126.5] {
            special += [t.nextUp, t.nextDown, -t.nextUp, -t.nextDown]
        }
        var rng = SplitMix64(seed: 3)
        let random = (0..<203).map { _ in Float(Int64(bitPattern: rng.next()) % 30000) / 100 }
        let values = special + random
        // Inverses of 1 (values as they are) and of the forms the kernels use; offsets too.
        for (inverse, offset, lo, hi) in [(Float(1), nil, Float(-127), Float(127)), (1, Float(0), -128, 127), (1, 3, -128, 127),
                                          (1, -7, -128, 127), (127 / 3.7, nil, -127, 127), (1 / 0.0123, 12, -128, 127)] as [(Float, Float?, Float, Float)] {
            for start in 0..<3 {
                let input = Array(values[start...])
                var fast = [Int8](repeating: 99, count: input.count), scalar = [Int8](repeating: -99, count: input.count)
                input.withUnsafeBufferPointer { x in
                    fast.withUnsafeMutableBufferPointer {
                        HybridQuantization.quantize(x.baseAddress!, count: x.count, inverse: inverse, offset: offset, lo: lo, hi: hi,
                                                    into: $0.baseAddress!)
                    }
                    scalar.withUnsafeMutableBufferPointer {
                        HybridQuantization.quantizeScalar(x.baseAddress!, count: x.count, inverse: inverse, offset: offset, lo: lo, hi: hi,
                                                          into: $0.baseAddress!)
                    }
                }
                XCTAssertEqual(fast, scalar, "inverse \(inverse) offset \(String(describing: offset)) start \(start)")
            }
        }
        // Hand-checked: half away from zero, NaN → 0, clamps.
        let hand: [Float] = [0.5, -0.5, 1.5, -2.5, 0.49999997, .nan, 200, -200]
        var q = [Int8](repeating: 0, count: 8)
        hand.withUnsafeBufferPointer { x in q.withUnsafeMutableBufferPointer {
            HybridQuantization.quantize(x.baseAddress!, count: 8, inverse: 1, offset: nil, lo: -127, hi: 127, into: $0.baseAddress!)
        } }
        XCTAssertEqual(q, [1, -1, 2, -3, 0, 0, 127, -127])
    }

    func testRangeSkipsNaNAndSeesEveryLane() {
        var x = [Float](repeating: 1, count: 19)
        x[3] = .nan; x[9] = -4; x[17] = 6; x[18] = .nan
        let r = x.withUnsafeBufferPointer { HybridQuantization.range($0.baseAddress!, count: $0.count) }
        XCTAssertEqual(r.lo, -4); XCTAssertEqual(r.hi, 6)
        let tail: [Float] = [.nan, 2, -3]
        let t = tail.withUnsafeBufferPointer { HybridQuantization.range($0.baseAddress!, count: 3) }
        XCTAssertEqual(t.lo, -3); XCTAssertEqual(t.hi, 2)
    }
}
