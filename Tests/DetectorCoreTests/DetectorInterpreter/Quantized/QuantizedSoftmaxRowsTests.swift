import XCTest
@testable import DetectorInterpreter
@testable import DetectorPlatform

/// The tiers' one-row-per-vector 8-bit SOFTMAX (`TierQuantizedSoftmax`, rows of at most 16)
/// against the reference arithmetic without tables (`QuantizedSoftmax.run(params, …)`): the
/// same bytes for int8 and uint8, every depth 1…16, row counts across the 256-row blocks, both
/// thread counts, and input scales from tiny (every difference below `diffMin`) to large.
final class QuantizedSoftmaxRowsTests: XCTestCase {
    /// The second pass derives each sum term from its exponential as `(e >> 12) + bit 11`:
    /// that is the table's own `terms` entry (RoundingDivideByPOT by 12) for every difference.
    func testSumTermIsTheExponentialRoundedRightByTwelve() {
        var rng = TestRandom(seed: 31)
        for _ in 0..<200 {
            let p = QuantizedSoftmaxParams(beta: [1, 0.5, 2][rng.below(3)], inputScale: Float(pow(10, Double(rng.int(-3000...500)) / 1000)))
            let table = QuantizedSoftmaxTable(p)
            for k in 0..<256 {
                let e = table.exps[k]
                XCTAssertGreaterThanOrEqual(e, 0)
                XCTAssertEqual((e >> 12) + ((e >> 11) & 1), table.terms[k], "\(p) difference \(k)")
            }
        }
    }

    func testRowsMatchTheReferenceAtEveryTier() throws {
        let kernels = TierTesting.tiers.compactMap { tier in KernelTable.for(tier).quantizedSoftmax.map { (tier, $0) } }
        guard !kernels.isEmpty else { throw XCTSkip("no tier with the vector softmax rows on this CPU") }
        var rng = TestRandom(seed: 32)
        func check<T: QuantizedElement>(_: T.Type, signed: Bool) {
            let p = QuantizedSoftmaxParams(beta: [1, 0.5, 2][rng.below(3)], inputScale: Float(pow(10, Double(rng.int(-3000...500)) / 1000)))
            let table = QuantizedSoftmaxTable(p)
            let depth = rng.int(1...16), outer = [1, 3, 255, 256, 257, 700][rng.below(6)]
            let spread = [1, 2, 16, 256][rng.below(4)]
            let base = rng.int(0...255)
            let input = (0..<(depth * outer)).map { _ in T(truncatingIfNeeded: UInt8(truncatingIfNeeded: base + rng.below(spread))) }
            var expected = [T](repeating: 0, count: input.count)
            QuantizedSoftmax.run(p, input: input, output: &expected, outerCount: outer, depth: depth)
            for (tier, kernel) in kernels {
                for threads in [1, 2] {
                    var got = [T](repeating: 0, count: input.count)
                    input.withUnsafeBytes { x in got.withUnsafeMutableBytes { y in
                        guard let xb = x.baseAddress, let yb = y.baseAddress else { return }
                        QuantizedSoftmax.runShortRows(table, kernel: kernel, input: xb, output: yb, signed: signed,
                                                      outerCount: outer, depth: depth, threads: threads)
                    } }
                    XCTAssertEqual(got, expected, "\(tier) \(T.self) \(p) depth \(depth) rows \(outer) threads \(threads)")
                }
            }
        }
        for _ in 0..<80 { check(Int8.self, signed: true); check(UInt8.self, signed: false) }
    }
}
