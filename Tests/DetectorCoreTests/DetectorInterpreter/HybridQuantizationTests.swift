import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The vectorized on-the-fly input quantization of the hybrid kernels against the scalar
/// formula with `rounded(.toNearestOrAwayFromZero)`, on the values where rounding is delicate.
final class HybridQuantizationTests: XCTestCase {
    /// Hand-checked: half away from zero, NaN → 0, clamps; the scalar oracle and every tier's
    /// kernel (a whole 16-lane step, then the same values as a partial one).
    func testQuantizeRoundsHalfAwayFromZero() {
        let hand: [Float] = [0.5, -0.5, 1.5, -2.5, 0.49999997, .nan, 200, -200]
        let expected: [Int8] = [1, -1, 2, -3, 0, 0, 127, -127]
        var q = [Int8](repeating: 9, count: 8)
        hand.withUnsafeBufferPointer { x in q.withUnsafeMutableBufferPointer {
            HybridQuantization.quantizeScalar(x.baseAddress!, count: 8, inverse: 1, offset: nil, lo: -127, hi: 127, into: $0.baseAddress!)
        } }
        XCTAssertEqual(q, expected)
        let twice = hand + hand + hand
        for tier in TierTesting.tiers {
            var fast = [Int8](repeating: 9, count: twice.count)
            twice.withUnsafeBufferPointer { x in fast.withUnsafeMutableBufferPointer {
                HybridQuantization.quantize(x.baseAddress!, count: x.count, inverse: 1, offset: nil, lo: -127, hi: 127,
                                            into: $0.baseAddress!, tier: tier, threads: 1, unsignedBytes: false)
            } }
            XCTAssertEqual(fast, expected + expected + expected, "\(tier)")
        }
    }

    /// Every tier's quantization (16 lanes, partial tails), split over two
    /// threads when large, signed and as `q + 128` bytes, against `quantizeScalar`.
    func testTierQuantizeMatchesScalarFormula() {
        var special: [Float] = [0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 126.5, -126.5, 127.5, -127.5, 128.5, -128.5,
                                0.49999997, -0.49999997, .nan, -.nan, .infinity, -.infinity, 1e30, -1e30, 4194304.5, -8388609,
                                .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude]
        for t: Float in [0.5, 1.5, 2.5, 63.5, 126.5] { special += [t.nextUp, t.nextDown, -t.nextUp, -t.nextDown] }
        var rng = SplitMix64(seed: 11)
        let random = (0..<(1 << 16) + 37).map { _ in Float(Int64(bitPattern: rng.next()) % 40000) / 100 }
        for (inverse, offset, lo, hi) in [(Float(1), nil, Float(-127), Float(127)), (1, Float(-128), -128, 127), (1, 127, -128, 127),
                                          (127 / 3.7, nil, -127, 127), (1 / 0.0123, 12, -128, 127)] as [(Float, Float?, Float, Float)] {
            for (values, threads) in [(special, 1), (special + random, 2)] {
                for start in [0, 1, 5, 15] where start < values.count {
                    let input = Array(values[start...])
                    var scalar = [Int8](repeating: -99, count: input.count)
                    input.withUnsafeBufferPointer { x in scalar.withUnsafeMutableBufferPointer {
                        HybridQuantization.quantizeScalar(x.baseAddress!, count: x.count, inverse: inverse, offset: offset, lo: lo, hi: hi,
                                                          into: $0.baseAddress!)
                    } }
                    for tier in TierTesting.tiers {
                        for unsignedBytes in [false, true] {
                            var fast = [Int8](repeating: 99, count: input.count)
                            input.withUnsafeBufferPointer { x in fast.withUnsafeMutableBufferPointer {
                                HybridQuantization.quantize(x.baseAddress!, count: x.count, inverse: inverse, offset: offset, lo: lo,
                                                            hi: hi, into: $0.baseAddress!, tier: tier, threads: threads,
                                                            unsignedBytes: unsignedBytes)
                            } }
                            let expected = unsignedBytes ? scalar.map { $0 ^ Int8(bitPattern: 0x80) } : scalar
                            XCTAssertEqual(fast, expected, "\(tier) unsigned \(unsignedBytes) inverse \(inverse) " +
                                           "offset \(String(describing: offset)) start \(start) count \(input.count)")
                        }
                    }
                }
            }
        }
    }

    /// Every tier's range, whole and split over threads: the extremes wherever they sit (each
    /// lane position, the tail), NaNs skipped, infinities kept.
    func testTierRangeFindsExtremesAndSkipsNaN() {
        for tier in TierTesting.tiers {
            for count in [1, 15, 16, 17, 33, 47, (1 << 16) + 5] {
                for position in Set([0, count / 2, count - 1]) {
                    var x = [Float](repeating: 0.25, count: count)
                    for i in stride(from: 3, to: count, by: 7) { x[i] = .nan }
                    x[position] = -3
                    if count > 1 { x[(position + count / 3 + 1) % count] = 5 }
                    let expected: (Float, Float) = count == 1 ? (-3, -3) : (-3, 5)
                    for threads in [1, 2] {
                        let r = x.withUnsafeBufferPointer {
                            HybridQuantization.range($0.baseAddress!, count: count, tier: tier, threads: threads)
                        }
                        XCTAssertEqual(r.lo, expected.0, "\(tier) count \(count) at \(position) threads \(threads)")
                        XCTAssertEqual(r.hi, expected.1, "\(tier) count \(count) at \(position) threads \(threads)")
                    }
                }
            }
            let infinite: [Float] = [1, .nan, -.infinity, 2, .infinity] + [Float](repeating: 0, count: 20)
            let r = infinite.withUnsafeBufferPointer { HybridQuantization.range($0.baseAddress!, count: $0.count, tier: tier, threads: 1) }
            XCTAssertEqual(r.lo, -.infinity, "\(tier)"); XCTAssertEqual(r.hi, .infinity, "\(tier)")
        }
    }

    /// Symmetric and asymmetric quantization give the same scale, offset and values at every tier
    /// as at the baseline, for an input large enough to be split over the threads.
    func testTierSymmetricAndAsymmetricMatchBaseline() {
        var rng = SplitMix64(seed: 5)
        let x = (0..<(1 << 16) * 3 + 11).map { _ in Float(rng.next() % 100_000) / 7_000 + 1.5 }
        var symmetric = [Int8](repeating: 0, count: x.count), asymmetric = symmetric
        x.withUnsafeBufferPointer { xp in
            let s0 = symmetric.withUnsafeMutableBufferPointer {
                HybridQuantization.symmetric(xp.baseAddress!, count: xp.count, into: $0.baseAddress!)
            }
            let a0 = asymmetric.withUnsafeMutableBufferPointer {
                HybridQuantization.asymmetric(xp.baseAddress!, count: xp.count, into: $0.baseAddress!)
            }
            XCTAssertEqual(a0.offset, -128)   // all inputs positive: the range starts at 0
            for tier in TierTesting.tiers {
                var fast = [Int8](repeating: 0, count: x.count)
                let s = fast.withUnsafeMutableBufferPointer {
                    HybridQuantization.symmetric(xp.baseAddress!, count: xp.count, into: $0.baseAddress!, tier: tier, threads: 2)
                }
                XCTAssertEqual(s, s0, "\(tier)"); XCTAssertEqual(fast, symmetric, "symmetric \(tier)")
                let a = fast.withUnsafeMutableBufferPointer {
                    HybridQuantization.asymmetric(xp.baseAddress!, count: xp.count, into: $0.baseAddress!, tier: tier, threads: 2,
                                                  unsignedBytes: true)
                }
                XCTAssertEqual(a.scale, a0.scale, "\(tier)"); XCTAssertEqual(a.offset, a0.offset, "\(tier)")
                XCTAssertEqual(fast, asymmetric.map { $0 ^ Int8(bitPattern: 0x80) }, "asymmetric \(tier)")
            }
        }
    }

    func testRangeSkipsNaNAndSeesEveryLane() {
        var x = [Float](repeating: 1, count: 19)
        x[3] = .nan; x[9] = -4; x[17] = 6; x[18] = .nan
        let tail: [Float] = [.nan, 2, -3]
        for tier in TierTesting.tiers {
            let r = x.withUnsafeBufferPointer { HybridQuantization.range($0.baseAddress!, count: $0.count, tier: tier, threads: 1) }
            XCTAssertEqual(r.lo, -4, "\(tier)"); XCTAssertEqual(r.hi, 6, "\(tier)")
            let t = tail.withUnsafeBufferPointer { HybridQuantization.range($0.baseAddress!, count: 3, tier: tier, threads: 1) }
            XCTAssertEqual(t.lo, -3, "\(tier)"); XCTAssertEqual(t.hi, 2, "\(tier)")
        }
    }
}
