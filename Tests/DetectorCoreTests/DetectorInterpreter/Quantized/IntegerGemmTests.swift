import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class IntegerGemmTests: XCTestCase {
    /// Runs the packed fast path on `[m][k]` A and `[n][k]` B (A rows padded as the kernels do).
    private func fastGemm(_ a: [Int16], _ b: [Int16], m: Int, n: Int, k: Int, tier: InstructionSetTier) -> [Int32] {
        let kp = IntegerGemm.paddedDepth(k)
        var padded = [Int16](repeating: 0, count: m * kp)
        for i in 0..<m { for q in 0..<k { padded[i * kp + q] = a[i * k + q] } }
        let panels = b.withUnsafeBufferPointer { IntegerGemm.packB($0, n: n, k: k, tier: tier) }
        // Extra column of sentinels: the fast path must not write past column n of its row stride.
        return GemmTestSupport.stridedOutput(m: m, n: n, tier: tier) { c, ldc in
            padded.withUnsafeBufferPointer { ap in panels.withUnsafeBufferPointer { bp in
                IntegerGemm.multiply(a: ap.baseAddress!, lda: kp, packedB: bp.baseAddress!, m: m, n: n, kPadded: kp,
                                     c: c, ldc: ldc, tier: tier)
            } }
        }
    }

    func testPackedGemmMatchesReferenceOnRandomShapes() {
        var rng = TestRandom(seed: 42)
        for _ in 0..<60 {
            // Odd k, n not a multiple of 4, 8 or 16, m not a multiple of the 4- or 8-row register tiles.
            let m = rng.int(1...19), n = rng.int(1...37), k = rng.int(1...70)
            // Zero-point-shifted 8-bit values: 8-bit range minus a zero point in [-128, 255].
            let a = (0..<m * k).map { _ in Int16(rng.int(-383...383)) }
            let b = (0..<n * k).map { _ in Int16(rng.int(-383...383)) }
            let ref = GemmTestSupport.reference(a, b, m: m, n: n, k: k)
            for tier in TierTesting.tiers {
                XCTAssertEqual(fastGemm(a, b, m: m, n: n, k: k, tier: tier), ref, "m=\(m) n=\(n) k=\(k) \(tier)")
            }
        }
    }

    func testPackedGemmExtremesAndLongDepth() {
        var rng = TestRandom(seed: 99)
        for trial in 0..<8 {
            let m = rng.int(1...9), n = rng.int(1...17)
            let k = trial < 4 ? 4099 : rng.int(600...1500)
            let extreme = trial < 4
            let a = (0..<m * k).map { _ in Int16(extreme ? (trial % 2 == 0 ? 383 : -383) : rng.int(-383...383)) }
            let b = (0..<n * k).map { _ in Int16(extreme ? 383 : rng.int(-383...383)) }
            let ref = GemmTestSupport.reference(a, b, m: m, n: n, k: k)
            for tier in TierTesting.tiers {
                XCTAssertEqual(fastGemm(a, b, m: m, n: n, k: k, tier: tier), ref, "m=\(m) n=\(n) k=\(k) \(tier)")
            }
            if extreme { XCTAssertEqual(abs(ref[0]), Int32(k * 383 * 383)) }
        }
    }

    /// The `Int16` GEMM with the requantization in its registers (`multiplyRequantized`) against
    /// the reference sums requantized one by one with TFLite's `MultiplyByQuantizedMultiplier`
    /// (`QuantizedMultiplier.apply`), every tier: rows not a multiple of the 2-, 4- or 8-row
    /// tiles, channels across panels of 16, an output stride wider than a row (the gap untouched).
    func testGemmRequantizedMatchesReferenceSumsThenRequantization() throws {
        var rng = TestRandom(seed: 4242)
        for trial in 0..<40 {
            let m = rng.int(1...21), n = trial % 3 == 0 ? rng.int(1...15) : rng.int(1...40), k = rng.int(1...60)
            let a = (0..<m * k).map { _ in Int16(rng.int(-383...383)) }
            let b = (0..<n * k).map { _ in Int16(rng.int(-383...383)) }
            let sums = GemmTestSupport.reference(a, b, m: m, n: n, k: k)
            let multipliers = (0..<n).map { _ in QuantizedMultiplier(Double(rng.int(1...1000)) * 1e-6) }
            let bias = (0..<n).map { _ in Int32(rng.int(-50000...50000)) }
            let zp = Int32(rng.int(-20...20)), lo = Int32(trial % 4 == 0 ? -128 : -100), hi = Int32(trial % 4 == 0 ? 127 : 90)
            let expected = (0..<m * n).map { e in Int8(min(max(multipliers[e % n].apply(sums[e] &+ bias[e % n]) &+ zp, lo), hi)) }
            let kp = IntegerGemm.paddedDepth(k)
            var padded = [Int16](repeating: 0, count: m * kp)
            for i in 0..<m { for q in 0..<k { padded[i * kp + q] = a[i * k + q] } }
            for tier in TierTesting.tiers {
                let panels = b.withUnsafeBufferPointer { IntegerGemm.packB($0, n: n, k: k, tier: tier) }
                let vr = try XCTUnwrap(VectorRequantization(multipliers: multipliers, bias: bias, outputZeroPoint: zp,
                                                            activationMin: lo, activationMax: hi, tier: tier))
                let ldo = n + 3
                var out = [Int8](repeating: 77, count: m * ldo)
                VectorRequantization.withRows(vr) { rq in
                    guard let rq else { return XCTFail("rows") }
                    padded.withUnsafeBufferPointer { ap in panels.withUnsafeBufferPointer { bp in out.withUnsafeMutableBufferPointer { op in
                        guard let ap = ap.baseAddress, let bp = bp.baseAddress, let op = op.baseAddress else { return }
                        IntegerGemm.multiplyRequantized(a: ap, lda: kp, packedB: bp, m: m, n: n, kPadded: kp, requantization: rq,
                                                        output: op, ldo: ldo, kernel: KernelTable.for(tier).integerGEMM)
                    } } }
                }
                XCTAssertEqual((0..<m).flatMap { out[$0 * ldo..<$0 * ldo + n] }, expected, "m=\(m) n=\(n) k=\(k) \(tier)")
                XCTAssertEqual((0..<m).flatMap { out[$0 * ldo + n..<$0 * ldo + ldo] }, [Int8](repeating: 77, count: 3 * m), "gap \(tier)")
                if m * n >= 40 { XCTAssertGreaterThan(Set(expected).count, 3, "trial \(trial) degenerate") }
            }
        }
    }

    func testGemmHandComputed() {
        // [1 2 3; -4 5 -6] x [7 8 9]^T = [50, -42]
        for tier in TierTesting.tiers {
            XCTAssertEqual(fastGemm([1, 2, 3, -4, 5, -6], [7, 8, 9], m: 2, n: 1, k: 3, tier: tier), [50, -42], "\(tier)")
        }
    }

    func testConvAndDepthwiseFastPathsMatchReferenceOnRandomShapes() throws {
        var rng = TestRandom(seed: 7)
        for trial in 0..<24 {
            let h = rng.int(1...9), w = rng.int(1...9), cin = rng.int(1...6), cout = rng.int(1...7)
            let fh = rng.int(1...3), fw = rng.int(1...3), s = rng.int(1...2), d = rng.int(1...2)
            guard let g = WindowGeometry(batches: rng.int(1...2), inputHeight: h, inputWidth: w, filterHeight: fh, filterWidth: fw,
                                         strideHeight: s, strideWidth: s, dilationHeight: d, dilationWidth: d,
                                         samePadding: trial % 2 == 0) else { continue }
            let input = (0..<g.batches * h * w * cin).map { _ in UInt8(rng.int(0...255)) }
            let filter = (0..<cout * fh * fw * cin).map { _ in UInt8(rng.int(0...255)) }
            let bias = (0..<cout).map { _ in Int32(rng.int(-3000...3000)) }
            let qi = QuantizationParams(scale: 0.02, zeroPoint: Int32(rng.int(0...255)))
            let qo = QuantizationParams(scale: 0.3, zeroPoint: Int32(rng.int(0...255)))
            let filterZeroPoint = Int32(rng.int(0...255))
            for tier in TierTesting.tiers {
                let p = try XCTUnwrap(filter.withUnsafeBufferPointer { f in bias.withUnsafeBufferPointer { b in
                    QuantizedConvParams(geometry: g, inputDepth: cin, outputDepth: cout, input: qi, output: qo, filter: f,
                                        filterScales: [0.011], filterZeroPoints: [filterZeroPoint], bias: b,
                                        activation: .relu6, outputType: UInt8.self, tier: tier)
                } })
                let count = g.batches * g.outputHeight * g.outputWidth * cout
                var fast = [UInt8](repeating: 1, count: count), ref = [UInt8](repeating: 2, count: count)
                input.withUnsafeBufferPointer { x in
                    fast.withUnsafeMutableBufferPointer { QuantizedConv2D.run(p, input: x.baseAddress!, output: $0.baseAddress!, threads: 2) }
                    ref.withUnsafeMutableBufferPointer { QuantizedConv2D.reference(p, filter: filter, filterZeroPoints: [filterZeroPoint], input: x.baseAddress!, output: $0.baseAddress!) }
                }
                XCTAssertEqual(fast, ref, "conv trial \(trial) \(tier)")
            }

            let dm = rng.int(1...2)
            let dwFilter = (0..<fh * fw * cin * dm).map { _ in Int8(rng.int(-127...127)) }
            let scales = (0..<cin * dm).map { _ in Float(rng.int(1...100)) * 0.0007 }
            let dp = try XCTUnwrap(dwFilter.withUnsafeBufferPointer { f in
                QuantizedDepthwiseConvParams(geometry: g, inputDepth: cin, depthMultiplier: dm, input: qi, output: qo, filter: f,
                                             filterScales: scales, filterZeroPoints: [0], bias: nil,
                                             activation: .none, outputType: Int8.self)
            })
            let xi = input.map { Int8(truncatingIfNeeded: Int($0) - 128) }
            let dcount = g.batches * g.outputHeight * g.outputWidth * cin * dm
            var dfast = [Int8](repeating: 1, count: dcount), dref = [Int8](repeating: 2, count: dcount)
            xi.withUnsafeBufferPointer { x in
                dfast.withUnsafeMutableBufferPointer { QuantizedDepthwiseConv2D.run(dp, input: x.baseAddress!, output: $0.baseAddress!, threads: 2) }
                dref.withUnsafeMutableBufferPointer { QuantizedDepthwiseConv2D.reference(dp, input: x.baseAddress!, output: $0.baseAddress!) }
            }
            XCTAssertEqual(dfast, dref, "depthwise trial \(trial)")
        }
    }
}
