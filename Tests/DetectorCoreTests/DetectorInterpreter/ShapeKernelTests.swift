import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Hand-checked cases for data-movement and shape ops.
final class ShapeKernelTests: XCTestCase {
    let iota12: [Float] = (0..<12).map(Float.init)

    func run(_ g: GraphBuilder, _ feeds: [[Float]]) throws -> ([Float], [Int]) {
        let r = try g.run(feeds)
        return (r.values, r.shape)
    }

    func testReshapeWithShapeTensorAndInferredDimension() throws {
        var g = GraphBuilder()
        let x = g.input([2, 6])
        let s = g.intConstant([3, -1], shape: [2])
        g.outputs = g.op(.reshape, [x, s])
        let (v, shape) = try run(g, [iota12])
        XCTAssertEqual(shape, [3, 4]); XCTAssertEqual(v, iota12)
    }

    func testSqueezeNegativeAxisAndExpandDims() throws {
        var g = GraphBuilder()
        let x = g.input([1, 3, 1])
        let sq = g.op(.squeeze, [x]) { $0.squeezeDims = [-1] }[0]
        let axis = g.intConstant([-1], shape: [1])
        g.outputs = g.op(.expandDims, [sq, axis])
        let interpreter = try Interpreter(graph: g.build())
        XCTAssertEqual(interpreter.tensorInfo(sq).shape, [1, 3])
        XCTAssertEqual(interpreter.outputs[0].shape, [1, 3, 1])
    }

    func testSqueezeOfNonUnitDimensionIsRejected() {
        var g = GraphBuilder()
        let x = g.input([2, 3])
        g.outputs = g.op(.squeeze, [x]) { $0.squeezeDims = [0] }
        XCTAssertThrowsError(try Interpreter(graph: g.build()))
    }

    func testConcatenationNegativeAxis() throws {
        var g = GraphBuilder()
        let a = g.input([2, 1])
        let b = g.constant([7, 8, 9, 10], shape: [2, 2])
        g.outputs = g.op(.concatenation, [a, b]) { $0.axis = -1 }
        let (v, s) = try run(g, [[1, 2]])
        XCTAssertEqual(s, [2, 3]); XCTAssertEqual(v, [1, 7, 8, 2, 9, 10])
    }

    func testPadAndPadV2() throws {
        var g = GraphBuilder()
        let a = g.input([1, 2])
        let p = g.intConstant([0, 1, 1, 2], shape: [2, 2])
        let value = g.constant([-1], shape: [])
        g.outputs = g.op(.padv2, [a, p, value])
        let (v, s) = try run(g, [[5, 6]])
        XCTAssertEqual(s, [2, 5])
        XCTAssertEqual(v, [-1, 5, 6, -1, -1, -1, -1, -1, -1, -1])
        var g2 = GraphBuilder()
        let b = g2.input([2])
        let p2 = g2.intConstant([1, 0], shape: [1, 2])
        g2.outputs = g2.op(.pad, [b, p2])
        XCTAssertEqual(try run(g2, [[5, 6]]).0, [0, 5, 6])
    }

    func testTranspose() throws {
        var g = GraphBuilder()
        let a = g.input([2, 3, 2])
        let perm = g.intConstant([2, 0, 1], shape: [3])
        g.outputs = g.op(.transpose, [a, perm])
        let (v, s) = try run(g, [iota12])
        XCTAssertEqual(s, [2, 2, 3])
        // out[k][i][j] = in[i][j][k] = 6i + 2j + k
        XCTAssertEqual(v, [0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11])
    }

    /// Every permutation of rank 3 and 4 shapes with size-1 dimensions, edges that are not
    /// multiples of the 16-element tile, and detector-head shapes (80 × 80 × 144 → NCHW, the
    /// 16 × 33600 DFL transpose): the reduced and tiled copy against the element-by-element
    /// oracle, on one and three threads.
    func testTransposeMatchesTheOracleForEveryPermutation() throws {
        func permutations(_ n: Int) -> [[Int]] {
            n == 0 ? [[]] : permutations(n - 1).flatMap { p in (0...p.count).map { i in var q = p; q.insert(n - 1, at: i); return q } }
        }
        let shapes: [[Int]] = [[3, 17, 5], [1, 20, 33], [2, 1, 18, 7], [1, 80, 80, 144], [1, 16, 4, 8400], [4, 3, 1, 2]]
        for shape in shapes {
            let count = Shape.count(shape)
            let values = (0..<count).map { Float($0) }
            for perm in permutations(shape.count) where count < 100_000 || perm == [0, 3, 1, 2] || perm == [0, 2, 3, 1] {
                var g = GraphBuilder()
                let a = g.input(shape)
                let p = g.intConstant(perm.map(Int32.init), shape: [perm.count])
                g.outputs = g.op(.transpose, [a, p])
                let (v, s) = try run(g, [values])
                XCTAssertEqual(s, perm.map { shape[$0] }, "\(shape) \(perm)")
                var expected = [Float](repeating: -1, count: count)
                values.withUnsafeBytes { i in expected.withUnsafeMutableBytes { o in
                    TransposeKernel.reference(input: i.baseAddress!, inShape: shape, permutation: perm, output: o.baseAddress!, elementSize: 4)
                } }
                XCTAssertEqual(v, expected, "\(shape) \(perm)")
                XCTAssertEqual(try g.run([values], threads: 3).values, expected, "\(shape) \(perm) on 3 threads")
            }
        }
        // The oracle itself, by hand: out[k][i][j] = in[i][j][k].
        let input: [Float] = (0..<12).map(Float.init)
        var out = [Float](repeating: 0, count: 12)
        input.withUnsafeBytes { i in out.withUnsafeMutableBytes { o in
            TransposeKernel.reference(input: i.baseAddress!, inShape: [2, 3, 2], permutation: [2, 0, 1], output: o.baseAddress!, elementSize: 4)
        } }
        XCTAssertEqual(out, [0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11])
    }

    /// Byte tensors (the 8 × 8 word transpose inside whole 16 × 16 tiles, scalar edges) against
    /// the oracle: NHWC → NCHW with edges that are not multiples of 16, the DFL transpose, and
    /// a 3-D permutation; one and three threads. And one 8 × 8 block by hand.
    func testByteTransposeMatchesTheOracle() throws {
        let cases: [([Int], [Int])] = [([1, 40, 37, 144], [0, 3, 1, 2]), ([1, 16, 4, 8400], [0, 2, 3, 1]),
                                       ([33, 5, 18], [2, 0, 1]), ([1, 19, 16, 24], [0, 3, 1, 2])]
        for (shape, perm) in cases {
            let count = Shape.count(shape)
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
            var g = QuantizedGraph()
            let x = g.input(shape, .int8, QuantizedGraph.q(0.5, 0))
            let p = g.constant(perm.map(Int32.init), shape: [perm.count], .int32)
            let o = g.output(.int8, QuantizedGraph.q(0.5, 0))
            g.op(.transpose, [x, p], [o])
            var expected = [UInt8](repeating: 0, count: count)
            bytes.withUnsafeBytes { i in expected.withUnsafeMutableBytes { out in
                TransposeKernel.reference(input: i.baseAddress!, inShape: shape, permutation: perm, output: out.baseAddress!, elementSize: 1)
            } }
            let one = try g.run([bytes])
            XCTAssertEqual(one.shape, perm.map { shape[$0] })
            XCTAssertEqual(one.bytes, expected, "\(shape) \(perm)")
            XCTAssertEqual(try g.run([bytes], threads: 3).bytes, expected, "\(shape) \(perm), 3 threads")
        }
        // Line k = [8k, 8k+1, …, 8k+7] → output line j = [j, 8+j, 16+j, …].
        let block = (0..<64).map(UInt8.init)
        var out = [UInt8](repeating: 0, count: 64)
        block.withUnsafeBytes { s in out.withUnsafeMutableBytes { d in
            TransposeKernel.transposeBytes8x8(s.baseAddress!, 8, d.baseAddress!, 8)
        } }
        XCTAssertEqual(out, (0..<8).flatMap { j in (0..<8).map { k in UInt8(8 * k + j) } })
    }

    /// The reduction: size-1 dimensions go, neighbours that stay in order merge.
    func testTransposeReductionMergesNeighbours() {
        let nchw = TransposeKernel.reduce(inShape: [1, 80, 80, 144], permutation: [0, 3, 1, 2])
        XCTAssertEqual(nchw.shape, [144, 6400]); XCTAssertEqual(nchw.strides, [1, 144])
        let same = TransposeKernel.reduce(inShape: [2, 3, 4], permutation: [0, 1, 2])
        XCTAssertEqual(same.shape, [24]); XCTAssertEqual(same.strides, [1])
        let swapOuter = TransposeKernel.reduce(inShape: [4, 16, 8400], permutation: [1, 0, 2])
        XCTAssertEqual(swapOuter.shape, [16, 4, 8400]); XCTAssertEqual(swapOuter.strides, [8400, 134400, 1])
        XCTAssertNil(TransposeKernel.tiledForm(outShape: swapOuter.shape, strides: swapOuter.strides))
        let t = TransposeKernel.tiledForm(outShape: nchw.shape, strides: nchw.strides)
        XCTAssertEqual(t?.rows, 144); XCTAssertEqual(t?.cols, 6400); XCTAssertEqual(t?.colInStride, 144)
        XCTAssertEqual(t?.rowOutStride, 6400)
    }

    func stridedSlice(_ shape: [Int], begin: [Int32], end: [Int32], strides: [Int32],
                      _ configure: @escaping (inout OperatorParameters) -> Void) throws -> ([Float], [Int]) {
        var g = GraphBuilder()
        let a = g.input(shape)
        let b = g.intConstant(begin, shape: [begin.count])
        let e = g.intConstant(end, shape: [end.count])
        let s = g.intConstant(strides, shape: [strides.count])
        g.outputs = g.op(.stridedSlice, [a, b, e, s], configure)
        return try run(g, [(0..<Shape.count(shape)).map(Float.init)])
    }

    func testStridedSliceMasks() throws {
        // [3,4]: rows 1..., every second column from the end backwards.
        var r = try stridedSlice([3, 4], begin: [1, -1], end: [0, 0], strides: [1, -2]) { $0.endMask = 0b11 }
        XCTAssertEqual(r.1, [2, 2]); XCTAssertEqual(r.0, [7, 5, 11, 9])
        // shrink axis 0 → row 2, begin mask on axis 1.
        r = try stridedSlice([3, 4], begin: [2, 3], end: [3, 4], strides: [1, 1]) { $0.shrinkAxisMask = 1; $0.beginMask = 2 }
        XCTAssertEqual(r.1, [4]); XCTAssertEqual(r.0, [8, 9, 10, 11])
        // new axis in front, ellipsis, last column shrunk: [1, 3]
        r = try stridedSlice([3, 4], begin: [0, 0, -1], end: [0, 0, 0], strides: [1, 1, 1]) {
            $0.newAxisMask = 1; $0.ellipsisMask = 2; $0.shrinkAxisMask = 4
        }
        XCTAssertEqual(r.1, [1, 3]); XCTAssertEqual(r.0, [3, 7, 11])
        // out-of-range ends are clamped; negative begin wraps.
        r = try stridedSlice([5], begin: [-3], end: [100], strides: [1]) { _ in }
        XCTAssertEqual(r.0, [2, 3, 4])
        // offset: end is relative to begin
        r = try stridedSlice([5], begin: [1], end: [2], strides: [1]) { $0.offset = true }
        XCTAssertEqual(r.0, [1, 2])
    }

    func testSliceWithMinusOneSize() throws {
        var g = GraphBuilder()
        let a = g.input([3, 4])
        let b = g.intConstant([1, 1], shape: [2])
        let s = g.intConstant([-1, 2], shape: [2])
        g.outputs = g.op(.slice, [a, b, s])
        let (v, shape) = try run(g, [iota12])
        XCTAssertEqual(shape, [2, 2]); XCTAssertEqual(v, [5, 6, 9, 10])
    }

    func testSplitPackUnpack() throws {
        var g = GraphBuilder()
        let a = g.input([2, 4])
        let axis = g.intConstant([1], shape: [])
        var p = OperatorParameters(); p.numSplits = 2
        let o1 = g.tensor([0]), o2 = g.tensor([0])
        g.operators.append(GraphOperator(code: .split, inputs: [axis, a], outputs: [o1, o2], parameters: p))
        var pp = OperatorParameters(); pp.axis = 0; pp.valuesCount = 2
        let packed = g.tensor([0])
        g.operators.append(GraphOperator(code: .pack, inputs: [o2, o1], outputs: [packed], parameters: pp))
        var up = OperatorParameters(); up.axis = -1; up.valuesCount = 2
        let u1 = g.tensor([0]), u2 = g.tensor([0])
        g.operators.append(GraphOperator(code: .unpack, inputs: [packed], outputs: [u1, u2], parameters: up))
        g.outputs = [o1, packed, u2]
        let interpreter = try Interpreter(graph: g.build())
        try interpreter.copyInput([0, 1, 2, 3, 4, 5, 6, 7] as [Float], at: 0)
        try interpreter.invoke()
        XCTAssertEqual(try interpreter.outputFloats(at: 0), [0, 1, 4, 5])
        XCTAssertEqual(interpreter.outputs[1].shape, [2, 2, 2])
        XCTAssertEqual(try interpreter.outputFloats(at: 1), [2, 3, 6, 7, 0, 1, 4, 5])
        XCTAssertEqual(interpreter.outputs[2].shape, [2, 2])
        XCTAssertEqual(try interpreter.outputFloats(at: 2), [3, 7, 1, 5])
    }

    func testGatherAxisAndOutOfRangeIndex() throws {
        var g = GraphBuilder()
        let a = g.input([2, 3])
        let idx = g.input([2], .int32)
        g.outputs = g.op(.gather, [a, idx]) { $0.axis = -1 }
        let interpreter = try Interpreter(graph: g.build())
        try interpreter.copyInput([0, 1, 2, 3, 4, 5] as [Float], at: 0)
        try interpreter.copyInput([Int32(2), 0].withUnsafeBytes { Array($0) }, at: 1)
        try interpreter.invoke()
        XCTAssertEqual(interpreter.outputs[0].shape, [2, 2])
        XCTAssertEqual(try interpreter.outputFloats(at: 0), [2, 0, 5, 3])
        try interpreter.copyInput([Int32(3), 0].withUnsafeBytes { Array($0) }, at: 1)
        XCTAssertThrowsError(try interpreter.invoke())
    }

    func testShapeDrivenReshapeFoldsAtPrepare() throws {
        // SHAPE → STRIDED_SLICE → PACK → RESHAPE, like dilated_conv's shape arithmetic.
        var g = GraphBuilder()
        let a = g.input([1, 1, 1], signature: [-1, -1, 1])
        let shape = g.op(.shape, [a], outputs: [.int32])[0]
        let b = g.intConstant([0], shape: [1]), e = g.intConstant([2], shape: [1]), s = g.intConstant([1], shape: [1])
        let firstTwo = g.op(.stridedSlice, [shape, b, e, s], outputs: [.int32])[0]
        let prod = g.op(.mul, [firstTwo, g.intConstant([1, 1], shape: [2])], outputs: [.int32])[0]
        let gathered0 = g.op(.gather, [prod, g.intConstant([0], shape: [])], outputs: [.int32])[0]
        let gathered1 = g.op(.gather, [prod, g.intConstant([1], shape: [])], outputs: [.int32])[0]
        var pp = OperatorParameters(); pp.valuesCount = 2
        let newShape = g.tensor([0], .int32)
        g.operators.append(GraphOperator(code: .pack, inputs: [gathered1, gathered0], outputs: [newShape], parameters: pp))
        g.outputs = g.op(.reshape, [a, newShape])
        let interpreter = try Interpreter(graph: g.build())
        try interpreter.resizeInput(at: 0, to: [2, 3, 1])
        try interpreter.copyInput((0..<6).map(Float.init), at: 0)
        try interpreter.invoke()
        XCTAssertEqual(interpreter.outputs[0].shape, [3, 2])
        XCTAssertEqual(interpreter.foldedOps.filter { !$0 }.count, 1) // only the RESHAPE runs at invoke
    }

    func testSpaceToBatchAndBackRoundTrips() throws {
        var g = GraphBuilder()
        let a = g.input([1, 3, 3, 1])
        let block = g.intConstant([2, 2], shape: [2])
        let pads = g.intConstant([0, 1, 0, 1], shape: [2, 2])
        let s2b = g.op(.spaceToBatchND, [a, block, pads])[0]
        let crops = g.intConstant([0, 1, 0, 1], shape: [2, 2])
        let back = g.op(.batchToSpaceND, [s2b, block, crops])[0]
        g.outputs = [s2b, back]
        let interpreter = try Interpreter(graph: g.build())
        let x: [Float] = (1...9).map(Float.init)
        try interpreter.copyInput(x, at: 0)
        try interpreter.invoke()
        XCTAssertEqual(interpreter.outputs[0].shape, [4, 2, 2, 1])
        // batch 0 takes (even row, even col): 1 3 7 9; batch 1 (even row, odd col): 2 0 8 0 …
        XCTAssertEqual(try interpreter.outputFloats(at: 0), [1, 3, 7, 9, 2, 0, 8, 0, 4, 6, 0, 0, 5, 0, 0, 0])
        XCTAssertEqual(try interpreter.outputFloats(at: 1), x)
    }

    func testDepthToSpaceAndSpaceToDepth() throws {
        var g = GraphBuilder()
        let a = g.input([1, 1, 1, 8])
        let d2s = g.op(.depthToSpace, [a]) { $0.blockSize = 2 }[0]
        let s2d = g.op(.spaceToDepth, [d2s]) { $0.blockSize = 2 }[0]
        g.outputs = [d2s, s2d]
        let interpreter = try Interpreter(graph: g.build())
        let x: [Float] = (0..<8).map(Float.init)
        try interpreter.copyInput(x, at: 0)
        try interpreter.invoke()
        XCTAssertEqual(interpreter.outputs[0].shape, [1, 2, 2, 2])
        XCTAssertEqual(try interpreter.outputFloats(at: 0), x) // DCR with one input pixel keeps order
        XCTAssertEqual(try interpreter.outputFloats(at: 1), x)
    }

    /// DEPTH_TO_SPACE on two batches of 13 × 17 pixels, blocks 2 and 3, against the DCR
    /// formula out[b, h·s+dy, w·s+dx, c] = in[b, h, w, (dy·s+dx)·C' + c]; one and three threads.
    func testDepthToSpaceMatchesTheFormulaOnAnyThreadCount() throws {
        for (s, c) in [(2, 3), (3, 5), (2, 64)] {
            let (b, h, w) = (2, 13, 17)
            let inShape = [b, h, w, s * s * c]
            let x = (0..<Shape.count(inShape)).map { Float($0) }
            var g = GraphBuilder()
            let a = g.input(inShape)
            g.outputs = g.op(.depthToSpace, [a]) { $0.blockSize = s }
            var expected: [Float] = []
            for bb in 0..<b { for oy in 0..<(h * s) { for ox in 0..<(w * s) { for cc in 0..<c {
                let (hh, dy, ww, dx) = (oy / s, oy % s, ox / s, ox % s)
                expected.append(x[((bb * h + hh) * w + ww) * s * s * c + (dy * s + dx) * c + cc])
            } } } }
            let one = try g.run([x])
            XCTAssertEqual(one.shape, [b, h * s, w * s, c])
            XCTAssertEqual(one.values, expected, "block \(s), \(c) channels")
            XCTAssertEqual(try g.run([x], threads: 3).values, expected, "block \(s), \(c) channels, 3 threads")
        }
    }

    /// RESIZE_NEAREST_NEIGHBOR upscaling 2 batches (repeated rows copied from the row above)
    /// and downscaling, against the reference index rule per value; one and three threads.
    func testResizeNearestMatchesTheIndexRuleOnAnyThreadCount() throws {
        for (h, w, c, oh, ow, half) in [(20, 20, 64, 40, 40, false), (13, 9, 3, 31, 20, true), (40, 40, 8, 17, 23, false)] {
            let x = (0..<(2 * h * w * c)).map { Float($0) }
            var g = GraphBuilder()
            let a = g.input([2, h, w, c])
            let size = g.intConstant([Int32(oh), Int32(ow)], shape: [2])
            g.outputs = g.op(.resizeNearestNeighbor, [a, size]) { $0.halfPixelCenters = half }
            var expected: [Float] = []
            for b in 0..<2 { for oy in 0..<oh { for ox in 0..<ow {
                func index(_ v: Int, _ input: Int, _ output: Int) -> Int {
                    let scaled = (Float(v) + (half ? 0.5 : 0)) * (Float(input) / Float(output))
                    return max(0, min(Int(scaled.rounded(.down)), input - 1))
                }
                let (iy, ix) = (index(oy, h, oh), index(ox, w, ow))
                for cc in 0..<c { expected.append(x[((b * h + iy) * w + ix) * c + cc]) }
            } } }
            XCTAssertEqual(try g.run([x]).values, expected, "\(h)x\(w) → \(oh)x\(ow)")
            XCTAssertEqual(try g.run([x], threads: 3).values, expected, "\(h)x\(w) → \(oh)x\(ow), 3 threads")
        }
    }

    func testMeanKeepDimsAndNegativeAxes() throws {
        var g = GraphBuilder()
        let a = g.input([1, 2, 2, 3])
        let axes = g.intConstant([1, -2], shape: [2])
        g.outputs = g.op(.mean, [a, axes]) { $0.keepDims = true }
        let (v, s) = try run(g, [iota12])
        XCTAssertEqual(s, [1, 1, 1, 3])
        XCTAssertEqual(v, [4.5, 5.5, 6.5])
    }

    func testDensifyCSR() throws {
        // 3x4 dense [[0,1,0,0],[0,0,0,2],[3,0,0,4]] stored as CSR.
        var g = GraphBuilder()
        let values: [Float] = [1, 2, 3, 4]
        g.tensors.append(GraphTensor(name: "sparse", type: .float32, shape: [3, 4],
                                     constant: .owned(values.withUnsafeBytes { Array($0) }),
                                     sparsity: .init(traversalOrder: [0, 1], blockMap: [],
                                                     dimensions: [.dense(size: 3), .sparseCSR(segments: [0, 1, 2, 4], indices: [1, 3, 0, 3])])))
        let sparse = g.tensors.count - 1
        let dense = g.op(.densify, [sparse])[0]
        let x = g.input([3, 4])
        g.outputs = g.op(.add, [x, dense])
        let (v, _) = try run(g, [[Float](repeating: 0, count: 12)])
        XCTAssertEqual(v, [0, 1, 0, 0, 0, 0, 0, 2, 3, 0, 0, 4])
    }
}
