import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Hand-checked cases for the element-wise kernels (broadcasting, activations, integer ops).
final class ElementwiseKernelTests: XCTestCase {
    func binary(_ op: String, _ a: [Float], _ aShape: [Int], _ b: [Float], _ bShape: [Int],
                activation: OperatorParameters.Activation = .none) throws -> ([Float], [Int]) {
        var g = GraphBuilder()
        let x = g.input(aShape)
        let y = g.constant(b, shape: bShape)
        g.outputs = g.op(try XCTUnwrap(BuiltinOperator(name: op)), [x, y]) { $0.activation = activation }
        let r = try g.run([a])
        return (r.values, r.shape)
    }

    func testAddBroadcastsRank1OverRank4() throws {
        let (v, s) = try binary("ADD", [1, 2, 3, 4, 5, 6], [1, 1, 2, 3], [10, 20, 30], [3])
        XCTAssertEqual(s, [1, 1, 2, 3])
        XCTAssertEqual(v, [11, 22, 33, 14, 25, 36])
    }

    func testSubBroadcastsBothWays() throws {
        // [2,1] - [1,3] → [2,3]
        let (v, s) = try binary("SUB", [1, 2], [2, 1], [10, 20, 30], [1, 3])
        XCTAssertEqual(s, [2, 3])
        XCTAssertEqual(v, [-9, -19, -29, -8, -18, -28])
    }

    func testMulScalarAndRelu6Activation() throws {
        let (v, _) = try binary("MUL", [-1, 0.5, 2, 4], [4], [2], [], activation: .relu6)
        XCTAssertEqual(v, [0, 1, 4, 6])
    }

    func testDivMaximumMinimum() throws {
        XCTAssertEqual(try binary("DIV", [1, -3], [2], [4, 2], [2]).0, [0.25, -1.5])
        XCTAssertEqual(try binary("MAXIMUM", [1, -3], [2], [0, 0], [2]).0, [1, 0])
        XCTAssertEqual(try binary("MINIMUM", [1, -3], [2], [0, 0], [2]).0, [0, -3])
    }

    func testFloorModFollowsDivisorSign() throws {
        XCTAssertEqual(try binary("FLOOR_MOD", [7, -7, 7, -7], [4], [3, 3, -3, -3], [4]).0, [1, 2, -2, -1])
    }

    func testIntegerFloorModAndDivisionByZeroError() throws {
        var g = GraphBuilder()
        let x = g.input([4], .int32)
        let y = g.intConstant([3, 3, -3, 0], shape: [4])
        g.outputs = g.op(.floorMod, [x, y], outputs: [.int32])
        let interpreter = try Interpreter(graph: g.build())
        try interpreter.copyInput([Int32(7), -7, 7, 1].withUnsafeBytes { Array($0) }, at: 0)
        XCTAssertThrowsError(try interpreter.invoke()) // 1 mod 0
    }

    func testIncompatibleBroadcastFailsAtLoad() {
        var g = GraphBuilder()
        let x = g.input([2, 3])
        let y = g.constant([1, 2], shape: [2])
        g.outputs = g.op(.add, [x, y])
        XCTAssertThrowsError(try Interpreter(graph: g.build())) { error in
            guard case .invalidOperator(0, "ADD", _)? = error as? InterpreterError else { return XCTFail("\(error)") }
        }
    }

    /// Large broadcasts (split over threads by output rows) against a plain index-by-index loop:
    /// per-channel, per-row and scalar operands, at 1 and 3 threads.
    func testLargeBroadcastsMatchAnIndexLoopOnAnyThreadCount() throws {
        let shape = [1, 40, 41, 24]
        let n = shape.reduce(1, *)
        let a = (0..<n).map { Float(($0 * 7919) % 201) / 50 - 2 }
        for (op, bShape) in [("PRELU", [24]), ("ADD", [1, 40, 1, 24]), ("MUL", [40, 41, 1]), ("SUB", [1]), ("MAXIMUM", [41, 24])] {
            let bCount = bShape.reduce(1, *)
            let b = (0..<bCount).map { Float(($0 * 31) % 17) / 8 - 1 }
            // b's index for output index (y, x, c): each of its dimensions aligned from the right.
            let padded = [Int](repeating: 1, count: 4 - bShape.count) + bShape
            var expected = [Float](repeating: 0, count: n)
            for y in 0..<40 { for x in 0..<41 { for c in 0..<24 {
                let i = (y * 41 + x) * 24 + c
                let by = padded[1] == 1 ? 0 : y, bx = padded[2] == 1 ? 0 : x, bc = padded[3] == 1 ? 0 : c
                let v = b[(by * padded[2] + bx) * padded[3] + bc], u = a[i]
                switch op {
                case "PRELU": expected[i] = u >= 0 ? u : u * v
                case "ADD": expected[i] = u + v
                case "MUL": expected[i] = u * v
                case "SUB": expected[i] = u - v
                default: expected[i] = max(u, v)
                }
            } } }
            for threads in [1, 3] {
                var g = GraphBuilder()
                let x = g.input(shape)
                let yt = g.constant(b, shape: bShape)
                g.outputs = g.op(try XCTUnwrap(BuiltinOperator(name: op)), [x, yt])
                let r = try g.run([a], threads: threads)
                XCTAssertEqual(r.shape, shape, "\(op) \(bShape)")
                XCTAssertEqual(r.values, expected, "\(op) with b of shape \(bShape), \(threads) threads")
            }
        }
    }

    /// Same-shape ADD, SUB and MUL (the vector path, split over threads) with each fused
    /// activation, on an element count that is no multiple of 8, against a plain loop.
    func testLargeSameShapeOpsMatchAPlainLoopOnAnyThreadCount() throws {
        let shape = [1, 37, 41, 23]
        let n = shape.reduce(1, *)
        let a = (0..<n).map { Float(($0 * 7919) % 201) / 50 - 2 }, b = (0..<n).map { Float(($0 * 31) % 173) / 40 - 2 }
        let clamps: [(OperatorParameters.Activation, (Float) -> Float)] = [(.none, { $0 }), (.relu, { max($0, 0) }),
                                                                (.relu6, { min(max($0, 0), 6) }), (.reluN1To1, { min(max($0, -1), 1) })]
        for (op, f) in [("ADD", { (u: Float, v: Float) in u + v }), ("SUB", { $0 - $1 }), ("MUL", { $0 * $1 })] {
            for (activation, clamp) in clamps {
                let expected = (0..<n).map { clamp(f(a[$0], b[$0])) }
                for threads in [1, 3] {
                    var g = GraphBuilder()
                    let x = g.input(shape), y = g.input(shape)
                    g.outputs = g.op(try XCTUnwrap(BuiltinOperator(name: op)), [x, y]) { $0.activation = activation }
                    let r = try g.run([a, b], threads: threads)
                    XCTAssertEqual(r.values, expected, "\(op) \(activation), \(threads) threads")
                }
            }
        }
    }

    func testPReluBroadcastsAlphaPerChannel() throws {
        let (v, _) = try binary("PRELU", [-2, -2, 3, 3], [1, 2, 2], [0.5, 0.25], [2])
        XCTAssertEqual(v, [-1, -0.5, 3, 3])
    }

    /// PRELU's per-channel path (alpha `[1, 1, C]`, 8 lanes a step and a scalar tail): hand-
    /// computed values in both the vector part and the tail of a row of 11, with NaN (the
    /// product, NaN), −0 (kept: −0 ≥ 0), −∞ (× alpha) and +∞; then a layer large enough to be
    /// split over 1 and 3 threads against a plain loop.
    func testPReluPerChannelAlphaVectorAndTail() throws {
        let alpha: [Float] = [0.5, 0.25, 2, -1, 0, 0.5, 0.5, 0.5, 0.5, 3, 0.125]
        let row: [Float] = [-2, -4, -1, -3, -5, .nan, -0.0, .infinity, 6, -1, -8]
        let (v, shape) = try binary("PRELU", row + row.map { -$0 }, [1, 2, 11], alpha, [1, 1, 11])
        XCTAssertEqual(shape, [1, 2, 11])
        let first: [Float] = [-1, -1, -2, 3, -0.0, .nan, -0.0, .infinity, 6, -3, -1]
        let second: [Float] = [2, 4, 1, 3, 5, .nan, 0, -.infinity * 0.5, -3, 1, 8]
        for (i, expected) in (first + second).enumerated() {
            if expected.isNaN { XCTAssertTrue(v[i].isNaN, "element \(i): \(v[i])"); continue }
            XCTAssertEqual(v[i], expected, "element \(i)")
            XCTAssertEqual(v[i].sign, expected.sign, "element \(i) sign")
        }
        let big = [1, 30, 31, 19], n = big.reduce(1, *)
        let a = (0..<n).map { Float(($0 * 7919) % 201) / 50 - 2 }
        let al = (0..<19).map { Float($0 % 7) / 4 - 0.5 }
        let expected = (0..<n).map { a[$0] >= 0 ? a[$0] : a[$0] * al[$0 % 19] }
        for threads in [1, 3] {
            var g = GraphBuilder()
            let x = g.input(big)
            g.outputs = g.op(try XCTUnwrap(BuiltinOperator(name: "PRELU")), [x, g.constant(al, shape: [1, 1, 19])])
            XCTAssertEqual(try g.run([a], threads: threads).values, expected, "\(threads) threads")
        }
    }

    func unary(_ op: String, _ x: [Float], _ configure: (inout OperatorParameters) -> Void = { _ in }) throws -> [Float] {
        var g = GraphBuilder()
        let a = g.input([x.count])
        g.outputs = g.op(try XCTUnwrap(BuiltinOperator(name: op)), [a], configure)
        return try g.run([x]).values
    }

    func testActivations() throws {
        let x: [Float] = [-7, -1.5, -0.5, 0, 0.5, 2, 7, 9, 10, 11]
        XCTAssertEqual(try unary("RELU", x), [0, 0, 0, 0, 0.5, 2, 7, 9, 10, 11])
        XCTAssertEqual(try unary("RELU6", x), [0, 0, 0, 0, 0.5, 2, 6, 6, 6, 6])
        XCTAssertEqual(try unary("RELU_N1_TO_1", x), [-1, -1, -0.5, 0, 0.5, 1, 1, 1, 1, 1])
        XCTAssertEqual(try unary("LEAKY_RELU", [-2, 3]) { $0.alpha = 0.1 }, [-0.2, 3])
        // hard swish: x·relu6(x+3)/6 → -1.5·1.5/6 = -0.375; 2·5/6
        let hs = try unary("HARD_SWISH", [-4, -1.5, 2, 4])
        XCTAssertEqual(hs[0], 0); XCTAssertEqual(hs[1], -0.375, accuracy: 1e-7)
        XCTAssertEqual(hs[2], 10.0 / 6, accuracy: 1e-6); XCTAssertEqual(hs[3], 4)
        let lg = try unary("LOGISTIC", [0, 20, -20, 1])
        XCTAssertEqual(lg[0], 0.5); XCTAssertEqual(lg[1], 1)
        XCTAssertEqual(lg[2], Float(exp(-20.0)), accuracy: 1e-12) // below -9 the reference uses exp(x)
        XCTAssertEqual(lg[3], Float(1 / (1 + exp(-1.0))), accuracy: 1e-7)
        let th = try unary("TANH", [0, 1])
        XCTAssertEqual(th[0], 0); XCTAssertEqual(th[1], Float(tanh(1.0)), accuracy: 1e-7)
    }

    func testSoftmaxWithBetaOverLastAxis() throws {
        var g = GraphBuilder()
        let a = g.input([2, 2])
        g.outputs = g.op(.softmax, [a]) { $0.beta = 2 }
        let v = try g.run([[0, 1, 5, 5]]).values
        let e = Float(exp(2.0))
        XCTAssertEqual(v[0], 1 / (1 + e), accuracy: 1e-7)
        XCTAssertEqual(v[1], e / (1 + e), accuracy: 1e-7)
        XCTAssertEqual(v[2], 0.5); XCTAssertEqual(v[3], 0.5)
    }

    /// Rows of every length class of the 16-lane loop (shorter than a vector, whole vectors,
    /// vectors plus a tail), against softmax in Double and against the scalar oracle; one and
    /// three threads and every tier give the same bits.
    func testSoftmaxRowsOfEveryLengthMatchDoubleAndTheScalarOracle() throws {
        var rng = SplitMix64(seed: 29)
        for depth in [1, 3, 8, 16, 21, 37, 64] {
            let rows = 1100 // enough values for the row split across threads at depth ≥ 16
            let values = (0..<(rows * depth)).map { _ in Float(Double(rng.next() >> 11) / Double(1 << 53) * 24 - 12) }
            var g = GraphBuilder()
            let a = g.input([rows, depth])
            g.outputs = g.op(.softmax, [a]) { $0.beta = 0.75 }
            let one = try g.run([values]).values
            XCTAssertEqual(try g.run([values], threads: 3).values, one, "depth \(depth)")
            for tier in TierTesting.tiers {
                XCTAssertEqual(try g.run([values], tier: tier).values, one, "depth \(depth) at \(tier)")
            }
            var oracle = [Float](repeating: 0, count: values.count)
            values.withUnsafeBufferPointer { s in oracle.withUnsafeMutableBufferPointer { d in
                for r in 0..<rows { SoftmaxKernel.reference(s.baseAddress! + r * depth, d.baseAddress! + r * depth, depth: depth, beta: 0.75) }
            } }
            for r in 0..<rows {
                let row = values[(r * depth)..<((r + 1) * depth)].map(Double.init)
                let m = row.max()!
                let exps = row.map { Foundation.exp(($0 - m) * 0.75) }
                let sum = exps.reduce(0, +)
                for c in 0..<depth {
                    // Float rounds the argument (x - max) · beta, which moves e^argument by
                    // about |argument| · 2⁻²³ relative; the rest is a few ulp.
                    let k = r * depth + c, exact = exps[c] / sum, argument = abs((row[c] - m) * 0.75)
                    XCTAssertEqual(Double(one[k]), exact, accuracy: exact * (1e-6 + 2.5e-7 * argument) + 1e-30,
                                   "depth \(depth) row \(r)")
                    XCTAssertEqual(one[k], oracle[k], accuracy: oracle[k] * 1e-6, "depth \(depth) row \(r)")
                }
            }
        }
    }

    func testDequantizeFloat16AndPerChannelInt8() throws {
        var g = GraphBuilder()
        let half: [UInt16] = [Float16(1.5).bitPattern, Float16(-2).bitPattern]
        let h = g.constantBytes(half.withUnsafeBytes { Array($0) }, shape: [2], type: .float16)
        let x = g.input([2])
        let deq = g.op(.dequantize, [h])[0]
        let q = g.int8Constant([10, -10, 10, -10], shape: [2, 2],
                               quantization: .init(scales: [0.5, 0.25], zeroPoints: [0, 2], quantizedDimension: 0))
        let deq2 = g.op(.dequantize, [q])[0]
        let sum = g.op(.add, [x, deq])[0]
        g.outputs = [sum, deq2]
        let interpreter = try Interpreter(graph: g.build())
        XCTAssertEqual(interpreter.foldedOps, [true, true, false]) // both dequantizes run once at prepare
        try interpreter.copyInput([1, 1] as [Float], at: 0)
        try interpreter.invoke()
        XCTAssertEqual(try interpreter.outputFloats(at: 0), [2.5, -1])
        XCTAssertEqual(try interpreter.outputFloats(at: 1), [5, -5, 2, -3])
    }

    func testCastFloatToIntTruncatesAndSaturates() throws {
        var g = GraphBuilder()
        let a = g.input([4])
        g.outputs = g.op(.cast, [a], outputs: [.int32])
        let interpreter = try Interpreter(graph: g.build())
        try interpreter.copyInput([1.9, -1.9, 3e10, -3e10] as [Float], at: 0)
        try interpreter.invoke()
        XCTAssertEqual(try interpreter.output(at: 0, as: .int32, Int32.self), [1, -1, Int32.max, Int32.min])
    }

    /// The vector float16 conversion against the standard library's, for all 65,536 bit
    /// patterns (NaNs compared as NaN with the same sign and payload), at every offset of the
    /// 8-value steps and the scalar tail.
    func testBulkHalfToFloatMatchesFloat16ForEveryBitPattern() {
        let all = (0..<65536).map { UInt16($0) }
        var out = [Float](repeating: 0, count: all.count + 3)
        for offset in [0, 3] {
            let count = all.count - offset
            all.withUnsafeBufferPointer { src in out.withUnsafeMutableBufferPointer { dst in
                KernelSupport.halfToFloat(src.baseAddress! + offset, dst.baseAddress!, count: count)
            } }
            for i in 0..<count {
                let expected = Float(Float16(bitPattern: all[i + offset]))
                if expected.isNaN {
                    XCTAssertTrue(out[i].isNaN, "bits \(all[i + offset])")
                    XCTAssertEqual(out[i].bitPattern & 0x803F_E000 | 0x0040_0000, expected.bitPattern & 0x803F_E000 | 0x0040_0000)
                } else {
                    XCTAssertEqual(out[i].bitPattern, expected.bitPattern, "bits \(all[i + offset])")
                }
            }
        }
        let hand: [UInt16] = [0x3C00, 0xC000, 0x0001, 0x7BFF, 0x7C00, 0x8000]
        var small = [Float](repeating: 0, count: 6)
        hand.withUnsafeBufferPointer { src in small.withUnsafeMutableBufferPointer { dst in
            KernelSupport.halfToFloat(src.baseAddress!, dst.baseAddress!, count: 6)
        } }
        XCTAssertEqual(small[0..<4], [1, -2, 0x1p-24, 65504])
        XCTAssertEqual(small[4], .infinity)
        XCTAssertEqual(small[5].bitPattern, 0x8000_0000)
    }
}
