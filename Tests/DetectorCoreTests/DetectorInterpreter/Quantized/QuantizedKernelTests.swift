import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Hand-computed cases for each quantized kernel, run through the interpreter.
final class QuantizedKernelTests: XCTestCase {
    typealias Q = QuantizedGraph

    func testConvUint8ZeroPointsHalvesAndSaturation() throws {
        // input q(0.5, 10), filter q(0.25, 3) = [7] (real 1.0), bias 4 (real 0.5).
        // acc(12) = 2*4 + 4 = 12 -> *0.125 = 1.5 -> 2; acc(6) = -16 + 4 = -12 -> -1.5 -> -2.
        for (outQ, input, expected) in [(Q.q(1.0, 5), [UInt8(12), 6], [UInt8(7), 3]),
                                        (Q.q(0.125, 5), [255, 0], [255, 0])] {
            var g = Q()
            let x = g.input([1, 1, 2, 1], .uint8, Q.q(0.5, 10))
            let f = g.constant([UInt8(7)], shape: [1, 1, 1, 1], .uint8, Q.q(0.25, 3))
            let b = g.constant([Int32(4)], shape: [1], .int32, Q.q(0.125, 0))
            let o = g.output(.uint8, outQ)
            g.op(.conv2D, [x, f, b], [o]) { $0.padding = .valid }
            let r = try g.run([input])
            XCTAssertEqual(r.bytes, expected)
            XCTAssertEqual(r.shape, [1, 1, 2, 1])
        }
    }

    func testConvInt8PerChannel() throws {
        // input q(0.5, -1) = [3, -5] (real 2, -2); filter scales [0.25, 0.5]:
        // ch0 [4, 4] -> acc 0 + bias 1 -> 0.125 -> 0; ch1 [2, -2] -> acc 16 + 2 = 18 -> *0.25 = 4.5 -> 5.
        var g = Q()
        let x = g.input([1, 1, 1, 2], .int8, Q.q(0.5, -1))
        let f = g.constant([Int8(4), 4, 2, -2], shape: [2, 1, 1, 2], .int8,
                           TensorQuantization(scales: [0.25, 0.5], zeroPoints: [0, 0], quantizedDimension: 0))
        let b = g.constant([Int32(1), 2], shape: [2], .int32)
        let o = g.output(.int8, Q.q(1.0, 2))
        g.op(.conv2D, [x, f, b], [o])
        XCTAssertEqual(asInt8(try g.run([int8Bytes([3, -5])]).bytes), [2, 7])
    }

    func testDepthwiseUint8SamePaddingSkipsOutOfBoundsTaps() throws {
        // 1x1x3x1 input, 1x1x3 filter of ones (zp 1 -> w - zp = 1), SAME padding:
        // outputs are sums of neighbours: [x0+x1, x0+x1+x2, x1+x2] with x - zp = [1, 2, 3].
        var g = Q()
        let x = g.input([1, 1, 3, 1], .uint8, Q.q(1, 10))
        let f = g.constant([UInt8(2), 2, 2], shape: [1, 1, 3, 1], .uint8, Q.q(1, 1))
        let o = g.output(.uint8, Q.q(1, 0))
        g.op(.depthwiseConv2D, [x, f], [o]) { $0.padding = .same }
        XCTAssertEqual(try g.run([[11, 12, 13]]).bytes, [3, 6, 5])
    }

    func testFullyConnectedUint8() throws {
        // x - zp = [1, -1], weights - zp = [[1, 2], [3, 3]], multiplier 1 -> [-1, 0] + zp 100.
        var g = Q()
        let x = g.input([1, 2], .uint8, Q.q(1, 128))
        let w = g.constant([UInt8(11), 12, 13, 13], shape: [2, 2], .uint8, Q.q(1, 10))
        let o = g.output(.uint8, Q.q(1, 100))
        g.op(.fullyConnected, [x, w, -1], [o])
        XCTAssertEqual(try g.run([[129, 127]]).bytes, [99, 100])
    }

    func testAddUint8BroadcastWithRescaling() throws {
        // in1 q(0.5, 128) = [130, 127] (1.0, -0.5); in2 q(0.25, 100) = [104] (1.0); out q(1, 10):
        // 2.0 -> 12; 0.5 -> rounds away from zero to 1 -> 11.
        var g = Q()
        let a = g.input([2], .uint8, Q.q(0.5, 128))
        let b = g.input([1], .uint8, Q.q(0.25, 100))
        let o = g.output(.uint8, Q.q(1, 10))
        g.op(.add, [a, b], [o])
        XCTAssertEqual(try g.run([[130, 127], [104]]).bytes, [12, 11])
    }

    func testSubInt8() throws {
        // (6 - 2) * 0.5 = 2 -> q(0.5, 0) 4; (0 - 2) * 0.5 = -1 -> -2.
        var g = Q()
        let a = g.input([2], .int8, Q.q(0.5, 0))
        let b = g.input([2], .int8, Q.q(0.5, 0))
        let o = g.output(.int8, Q.q(0.5, 0))
        g.op(.sub, [a, b], [o])
        XCTAssertEqual(asInt8(try g.run([int8Bytes([6, 0]), int8Bytes([2, 2])]).bytes), [4, -2])
    }

    func testMulInt8RoundsHighMulTiesUpward() throws {
        // multiplier 0.25 / 0.5 = 0.5: 12 * 0.5 = 6 -> -4; -9 * 0.5 = -4.5 -> -4 (tie toward +inf) -> -14.
        var g = Q()
        let a = g.input([2], .int8, Q.q(0.5, 0))
        let b = g.input([1], .int8, Q.q(0.5, 0))
        let o = g.output(.int8, Q.q(0.5, -10))
        g.op(.mul, [a, b], [o])
        XCTAssertEqual(asInt8(try g.run([int8Bytes([4, -3]), int8Bytes([3])]).bytes), [-4, -14])
    }

    func testSoftmaxUint8() throws {
        var g = Q()
        let x = g.input([2, 2], .uint8, Q.q(1, 0))
        let o = g.output(.uint8, Q.q(1.0 / 256, 0))
        g.op(.softmax, [x], [o]) { $0.beta = 1 }
        // Equal logits -> 0.5 each; a gap of 10 -> ~1 and ~0.
        XCTAssertEqual(try g.run([[7, 7, 10, 0]]).bytes, [128, 128, 255, 0])
    }

    func testLogisticUint8Table() throws {
        var g = Q()
        let x = g.input([3], .uint8, Q.q(0.1, 128))
        let o = g.output(.uint8, Q.q(1.0 / 256, 0))
        g.op(.logistic, [x], [o])
        XCTAssertEqual(try g.run([[128, 255, 0]]).bytes, [128, 255, 0])
    }

    func testPoolingRoundsAverageAwayFromZero() throws {
        for (type, input, avg) in [(TensorDataType.uint8, [UInt8(1), 2, 3, 5], UInt8(3)),
                                   (.int8, int8Bytes([-1, -2, -3, -5]), UInt8(bitPattern: -3))] {
            var g = Q()
            let x = g.input([1, 2, 2, 1], type, Q.q(1, 0))
            let o = g.output(type, Q.q(1, 0))
            g.op(.averagePool2D, [x], [o]) { $0.filterHeight = 2; $0.filterWidth = 2; $0.strideHeight = 2; $0.strideWidth = 2; $0.padding = .valid }
            XCTAssertEqual(try g.run([input]).bytes, [avg])
        }
        var g = Q()
        let x = g.input([1, 2, 2, 1], .uint8, Q.q(1, 0))
        let o = g.output(.uint8, Q.q(1, 0))
        g.op(.maxPool2D, [x], [o]) { $0.filterHeight = 2; $0.filterWidth = 2; $0.strideHeight = 1; $0.strideWidth = 1; $0.padding = .same }
        XCTAssertEqual(try g.run([[1, 2, 3, 5]]).bytes, [5, 5, 5, 5])
    }

    func testConcatenationRequantizesMismatchedInputs() throws {
        var g = Q()
        let a = g.input([1, 2], .uint8, Q.q(1, 0))
        let b = g.input([1, 2], .uint8, Q.q(0.5, 10))
        let o = g.output(.uint8, Q.q(1, 0))
        g.op(.concatenation, [a, b], [o]) { $0.axis = -1 }
        // (30 - 10) * 0.5 = 10; (13 - 10) * 0.5 = 1.5 -> 2 (half away from zero).
        let r = try g.run([[7, 200], [30, 13]])
        XCTAssertEqual(r.bytes, [7, 200, 10, 2])
        XCTAssertEqual(r.shape, [1, 4])
    }

    func testQuantizeFromFloatAndRequantize() throws {
        var g = Q()
        let x = g.input([4], .float32, nil)
        let o = g.output(.int8, Q.q(0.5, -1))
        g.op(.quantize, [x], [o])
        let feed: [Float] = [1.25, -1.25, 100, -100]
        XCTAssertEqual(asInt8(try g.run([feed.withUnsafeBytes { Array($0) }]).bytes), [2, -4, 127, -128])

        var r = Q()
        let u = r.input([3], .uint8, Q.q(1, 128))
        let s = r.output(.int8, Q.q(1, 0))
        r.op(.quantize, [u], [s])
        XCTAssertEqual(asInt8(try r.run([[0, 128, 255]]).bytes), [-128, 0, 127])
    }

    func testDequantize() throws {
        var g = Q()
        let x = g.input([3], .int8, Q.q(0.25, -2))
        let o = g.output(.float32, nil)
        g.op(.dequantize, [x], [o])
        let bytes = try g.run([int8Bytes([-2, 2, -128])]).bytes
        let values = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        XCTAssertEqual(values, [0, 1, -31.5])
    }

    func testLeakyReluInt8() throws {
        var g = Q()
        let x = g.input([2], .int8, Q.q(0.5, 0))
        let o = g.output(.int8, Q.q(0.5, 0))
        g.op(.leakyRelu, [x], [o]) { $0.alpha = 0.5 }
        // 10 -> 10; -10 -> -5.
        XCTAssertEqual(asInt8(try g.run([int8Bytes([10, -10])]).bytes), [10, -5])
    }

    func testHardSwishInt8() throws {
        var g = Q()
        let x = g.input([3], .int8, Q.q(0.1, 0))
        let o = g.output(.int8, Q.q(0.1, 0))
        g.op(.hardSwish, [x], [o])
        // x = 4.0 -> 4.0 (40); x = -4.0 -> 0; x = 1.0 -> 1 * 4 / 6 = 0.667 -> 7.
        XCTAssertEqual(asInt8(try g.run([int8Bytes([40, -40, 10])]).bytes), [40, 0, 7])
    }

    func testResizeNearestNeighborUint8() throws {
        var g = Q()
        let x = g.input([1, 1, 2, 1], .uint8, Q.q(1, 0))
        let size = g.constant([Int32(1), 4], shape: [2], .int32)
        let o = g.output(.uint8, Q.q(1, 0))
        g.op(.resizeNearestNeighbor, [x, size], [o])
        XCTAssertEqual(try g.run([[3, 9]]).bytes, [3, 3, 9, 9])
    }

    func testMalformedQuantizedOpsFailAtLoad() {
        // Filter depth mismatch and a missing scale both surface as load-time errors, not traps.
        var g = Q()
        let x = g.input([1, 2, 2, 3], .uint8, Q.q(1, 0))
        let f = g.constant([UInt8](repeating: 1, count: 8), shape: [1, 2, 2, 2], .uint8, Q.q(1, 0))
        let o = g.output(.uint8, Q.q(1, 0))
        g.op(.conv2D, [x, f], [o])
        XCTAssertThrowsError(try g.run([[UInt8](repeating: 0, count: 12)]))

        var h = Q()
        let y = h.input([2], .uint8, nil)
        let p = h.output(.uint8, Q.q(1, 0))
        h.op(.logistic, [y], [p])
        XCTAssertThrowsError(try h.run([[0, 0]]))
    }
}

extension QuantizedKernelTests {
    func testResizeBilinearInt8AndUInt8() throws {
        // 1x1x2x1 -> 1x1x4x1, no half-pixel: positions 0, 0.5, 1, 1.5 (clamped to the last pixel).
        var g = Q()
        let x = g.input([1, 1, 2, 1], .int8, Q.q(1, 0))
        let size = g.constant([Int32(1), 4], shape: [2], .int32)
        let o = g.output(.int8, Q.q(1, 0))
        g.op(.resizeBilinear, [x, size], [o])
        // int8: (10 + 21) / 2 = 15.5 rounds away from zero -> 16; negative ties too.
        XCTAssertEqual(asInt8(try g.run([int8Bytes([10, 21])]).bytes), [10, 16, 21, 21])
        XCTAssertEqual(asInt8(try g.run([int8Bytes([-10, -21])]).bytes), [-10, -16, -21, -21])

        var u = Q()
        let y = u.input([1, 1, 2, 1], .uint8, Q.q(1, 0))
        let s2 = u.constant([Int32(1), 4], shape: [2], .int32)
        let p = u.output(.uint8, Q.q(1, 0))
        u.op(.resizeBilinear, [y, s2], [p])
        // uint8 float path truncates: 15.5 -> 15.
        XCTAssertEqual(try u.run([[10, 21]]).bytes, [10, 15, 21, 21])
    }
}

extension QuantizedKernelTests {
    func testMeanUint8OverSpatialAxes() throws {
        // Mean of (x - 10) over H, W: [1, 2, 3, 5] -> 11 / 4 = 2.75 -> 3 (+ zp 10 = 13); second channel all 0 -> 10.
        var g = Q()
        let x = g.input([1, 2, 2, 2], .uint8, Q.q(0.5, 10))
        let axes = g.constant([Int32(1), 2], shape: [2], .int32)
        let o = g.output(.uint8, Q.q(0.5, 10))
        g.op(.mean, [x, axes], [o]) { $0.keepDims = true }
        let r = try g.run([[11, 10, 12, 10, 13, 10, 15, 10]])
        XCTAssertEqual(r.bytes, [13, 10])
        XCTAssertEqual(r.shape, [1, 1, 1, 2])
    }
}

extension QuantizedKernelTests {
    func testMulTableMatchesDirectArithmetic() {
        let p = QuantizedMulParams(input1: .init(scale: 0.037, zeroPoint: -7), input2: .init(scale: 0.0041, zeroPoint: 12),
                                   output: .init(scale: 0.011, zeroPoint: 3), activation: .relu6, type: Int8.self)
        let table = QuantizedPairTable(Int8.self, p.product).entries
        XCTAssertEqual(table.count, 65536)
        // Spot-check against the direct path, including the extremes.
        for (a, b) in [(Int8(-128), Int8(-128)), (127, 127), (-128, 127), (0, 0), (-7, 12), (55, -91)] {
            var out: Int8 = 0
            let plan = BroadcastPlan([1], [1])!
            withUnsafePointer(to: a) { ap in withUnsafePointer(to: b) { bp in
                QuantizedMul.run(p, plan: plan, input1: ap, input2: bp, output: &out)
            } }
            XCTAssertEqual(Int8(bitPattern: table[Int(UInt8(bitPattern: a)) << 8 | Int(UInt8(bitPattern: b))]), out, "\(a) * \(b)")
        }
    }
}
