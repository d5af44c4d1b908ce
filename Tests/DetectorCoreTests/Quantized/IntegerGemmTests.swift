import XCTest
@testable import DetectorCore

final class IntegerGemmTests: XCTestCase {
    func testBlockedGemmMatchesReferenceOnRandomShapes() {
        var rng = TestRandom(seed: 42)
        for _ in 0..<40 {
            let m = rng.int(1...19), n = rng.int(1...13), k = rng.int(1...70)
            // Operands are zero-point-shifted 8-bit values: [-255, 255].
            let a = (0..<m * k).map { _ in Int16(rng.int(-255...255)) }
            let b = (0..<n * k).map { _ in Int16(rng.int(-255...255)) }
            var fast = [Int32](repeating: -1, count: m * n), ref = [Int32](repeating: -2, count: m * n)
            a.withUnsafeBufferPointer { ap in b.withUnsafeBufferPointer { bp in
                fast.withUnsafeMutableBufferPointer { IntegerGemm.multiply(a: ap.baseAddress!, b: bp.baseAddress!, m: m, n: n, k: k, c: $0.baseAddress!) }
                ref.withUnsafeMutableBufferPointer { IntegerGemm.reference(a: ap, b: bp, m: m, n: n, k: k, c: $0) }
            } }
            XCTAssertEqual(fast, ref, "m=\(m) n=\(n) k=\(k)")
        }
    }

    func testExactFloatGemmMatchesIntegerReferenceIncludingExtremes() {
        var rng = TestRandom(seed: 99)
        for trial in 0..<30 {
            let m = rng.int(1...11), n = rng.int(1...21)
            // Long k crosses several 256-step exact blocks; extremes make the largest sums.
            let k = trial < 4 ? 1500 : rng.int(1...600)
            let extreme = trial < 4
            let a = (0..<m * k).map { _ in Int16(extreme ? (trial % 2 == 0 ? 255 : -255) : rng.int(-255...255)) }
            let b = (0..<n * k).map { _ in Int16(extreme ? 255 : rng.int(-255...255)) }
            var fast = [Int32](repeating: -1, count: m * n), ref = [Int32](repeating: -2, count: m * n)
            let panels = ExactFloatGemm.packB(b, n: n, k: k)
            let af = a.map { Float($0) }
            af.withUnsafeBufferPointer { ap in panels.withUnsafeBufferPointer { bp in
                fast.withUnsafeMutableBufferPointer { ExactFloatGemm.multiply(a: ap.baseAddress!, packedB: bp.baseAddress!, m: m, n: n, k: k, c: $0.baseAddress!) }
            } }
            a.withUnsafeBufferPointer { ap in b.withUnsafeBufferPointer { bp in
                ref.withUnsafeMutableBufferPointer { IntegerGemm.reference(a: ap, b: bp, m: m, n: n, k: k, c: $0) }
            } }
            XCTAssertEqual(fast, ref, "m=\(m) n=\(n) k=\(k)")
            if extreme { XCTAssertEqual(abs(ref[0]), Int32(k * 255 * 255)) }
        }
    }

    func testGemmHandComputed() {
        // [1 2 3; -4 5 -6] x [7 8 9]^T = [50, -42]
        let a: [Int16] = [1, 2, 3, -4, 5, -6], b: [Int16] = [7, 8, 9]
        var c = [Int32](repeating: 0, count: 2)
        a.withUnsafeBufferPointer { ap in b.withUnsafeBufferPointer { bp in
            c.withUnsafeMutableBufferPointer { IntegerGemm.multiply(a: ap.baseAddress!, b: bp.baseAddress!, m: 2, n: 1, k: 3, c: $0.baseAddress!) }
        } }
        XCTAssertEqual(c, [50, -42])
    }

    func testConvAndDepthwiseFastPathsMatchReferenceOnRandomShapes() throws {
        var rng = TestRandom(seed: 7)
        for trial in 0..<24 {
            let h = rng.int(1...9), w = rng.int(1...9), cin = rng.int(1...6), cout = rng.int(1...7)
            let fh = rng.int(1...3), fw = rng.int(1...3), s = rng.int(1...2), d = rng.int(1...2)
            guard let g = QuantizedWindowGeometry(batches: rng.int(1...2), inputHeight: h, inputWidth: w, filterHeight: fh, filterWidth: fw,
                                         strideHeight: s, strideWidth: s, dilationHeight: d, dilationWidth: d,
                                         samePadding: trial % 2 == 0) else { continue }
            let input = (0..<g.batches * h * w * cin).map { _ in UInt8(rng.int(0...255)) }
            let filter = (0..<cout * fh * fw * cin).map { _ in UInt8(rng.int(0...255)) }
            let bias = (0..<cout).map { _ in Int32(rng.int(-3000...3000)) }
            let qi = QuantizationParams(scale: 0.02, zeroPoint: Int32(rng.int(0...255)))
            let qo = QuantizationParams(scale: 0.3, zeroPoint: Int32(rng.int(0...255)))
            let p = try XCTUnwrap(filter.withUnsafeBufferPointer { f in bias.withUnsafeBufferPointer { b in
                QuantizedConvParams(geometry: g, inputDepth: cin, outputDepth: cout, input: qi, output: qo, filter: f,
                                    filterScales: [0.011], filterZeroPoints: [Int32(rng.int(0...255))], bias: b,
                                    activation: .relu6, outputType: UInt8.self)
            } })
            let count = g.batches * g.outputHeight * g.outputWidth * cout
            var fast = [UInt8](repeating: 1, count: count), ref = [UInt8](repeating: 2, count: count)
            input.withUnsafeBufferPointer { x in
                fast.withUnsafeMutableBufferPointer { QuantizedConv2D.run(p, input: x.baseAddress!, output: $0.baseAddress!, threads: 2) }
                ref.withUnsafeMutableBufferPointer { QuantizedConv2D.reference(p, input: x.baseAddress!, output: $0.baseAddress!) }
            }
            XCTAssertEqual(fast, ref, "conv trial \(trial)")

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
