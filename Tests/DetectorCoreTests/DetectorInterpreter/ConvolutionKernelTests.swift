import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Convolutions, pools and resizes: hand-checked edge cases, and the fast paths against the
/// plain reference loops on random shapes.
final class ConvolutionKernelTests: XCTestCase {
    struct Rng {
        var state: UInt64
        mutating func next() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(state >> 40) / Float(1 << 24) * 2 - 1
        }
        mutating func int(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % n
        }
        mutating func floats(_ n: Int) -> [Float] { (0..<n).map { _ in next() } }
    }

    func conv(input: [Float], inShape: [Int], filter: [Float], filterShape: [Int], bias: [Float]?,
              op: String = "CONV_2D", threads: Int = 1, tier: InstructionSetTier? = nil,
              _ configure: @escaping (inout OperatorParameters) -> Void) throws -> ([Float], [Int]) {
        var g = GraphBuilder()
        let x = g.input(inShape)
        let w = g.constant(filter, shape: filterShape)
        var ins = [x, w]
        if let bias { ins.append(g.constant(bias, shape: [bias.count])) }
        g.outputs = g.op(try XCTUnwrap(BuiltinOperator(name: op)), ins, configure)
        let r = try g.run([input], threads: threads, tier: tier)
        return (r.values, r.shape)
    }

    func testConvSameStride2OnOddSize() throws {
        // 1×5×5×1 input 1…25, 3×3 ones filter, SAME stride 2 → 3×3; padding total = (3-1)*2+3-5 = 2 → 1 before.
        let input = (1...25).map(Float.init)
        let (v, s) = try conv(input: input, inShape: [1, 5, 5, 1], filter: [Float](repeating: 1, count: 9),
                              filterShape: [1, 3, 3, 1], bias: [0.5]) {
            $0.padding = .same; $0.strideWidth = 2; $0.strideHeight = 2
        }
        XCTAssertEqual(s, [1, 3, 3, 1])
        // top-left window rows 0-1, cols 0-1: 1+2+6+7 = 16; centre: rows 1-3, cols 1-3: 7+8+9+12+13+14+17+18+19 = 117
        XCTAssertEqual(v[0], 16.5)
        XCTAssertEqual(v[4], 117.5)
        XCTAssertEqual(v[8], 19 + 20 + 24 + 25 + 0.5)
    }

    func testConvValidWithDilationAndRelu() throws {
        // 1×5×5×1, 2×2 filter dilated by 2 → taps (0,0),(0,2),(2,0),(2,2); VALID → 3×3.
        let input = (1...25).map(Float.init)
        let (v, s) = try conv(input: input, inShape: [1, 5, 5, 1], filter: [1, -1, -1, 1],
                              filterShape: [1, 2, 2, 1], bias: nil) {
            $0.padding = .valid; $0.strideWidth = 1; $0.strideHeight = 1
            $0.dilationWidthFactor = 2; $0.dilationHeightFactor = 2; $0.activation = .relu
        }
        XCTAssertEqual(s, [1, 3, 3, 1])
        // x(0,0) - x(0,2) - x(2,0) + x(2,2) = 1 - 3 - 11 + 13 = 0 everywhere (linear input)
        XCTAssertEqual(v, [Float](repeating: 0, count: 9))
    }

    func testGroupedConv() throws {
        // 2 input channels, 2 groups, 1 channel per group: each output channel sees only its channel.
        let (v, s) = try conv(input: [1, 10, 2, 20], inShape: [1, 1, 2, 2], filter: [3, 5], filterShape: [2, 1, 1, 1],
                              bias: [0, 1]) { $0.padding = .valid; $0.strideWidth = 1; $0.strideHeight = 1 }
        XCTAssertEqual(s, [1, 1, 2, 2])
        XCTAssertEqual(v, [3, 51, 6, 101])
    }

    func testDepthwiseWithMultiplier() throws {
        // 1×1×2×2 input, 1×1×2 filter window, multiplier 2 → 4 output channels.
        let (v, s) = try conv(input: [1, 2, 3, 4], inShape: [1, 1, 2, 2], filter: [1, 2, 3, 4, 10, 20, 30, 40],
                              filterShape: [1, 1, 2, 4], bias: [0, 0, 0, 100], op: "DEPTHWISE_CONV_2D") {
            $0.padding = .valid; $0.strideWidth = 1; $0.strideHeight = 1; $0.depthMultiplier = 2
        }
        XCTAssertEqual(s, [1, 1, 1, 4])
        // channel 0 (in 0): 1·1 + 3·10; ch1 (in 0): 1·2 + 3·20; ch2 (in 1): 2·3 + 4·30; ch3: 2·4 + 4·40 + 100
        XCTAssertEqual(v, [31, 62, 126, 268])
    }

    func testFullyConnectedKeepNumDims() throws {
        var g = GraphBuilder()
        let x = g.input([1, 2, 3])
        let w = g.constant([1, 0, 0, 0, 1, 1], shape: [2, 3])
        let b = g.constant([0.5, -0.5], shape: [2])
        g.outputs = g.op(.fullyConnected, [x, w, b]) { $0.keepNumDims = true }
        let r = try g.run([[1, 2, 3, 4, 5, 6]])
        XCTAssertEqual(r.shape, [1, 2, 2])
        XCTAssertEqual(r.values, [1.5, 4.5, 4.5, 10.5])
    }

    func testPoolsSameStride2ClipWindows() throws {
        var g = GraphBuilder()
        let x = g.input([1, 3, 3, 1])
        let avg = g.op(.averagePool2D, [x]) { $0.padding = .same; $0.strideWidth = 2; $0.strideHeight = 2; $0.filterWidth = 2; $0.filterHeight = 2 }[0]
        let mx = g.op(.maxPool2D, [x]) { $0.padding = .same; $0.strideWidth = 2; $0.strideHeight = 2; $0.filterWidth = 2; $0.filterHeight = 2 }[0]
        g.outputs = [avg, mx]
        let interpreter = try Interpreter(graph: g.build())
        try interpreter.copyInput((1...9).map(Float.init), at: 0)
        try interpreter.invoke()
        // SAME 3→2, total padding (2-1)*2+2-3 = 1 → 0 before: windows rows {0,1},{2}, cols {0,1},{2}.
        XCTAssertEqual(try interpreter.outputFloats(at: 0), [3, 4.5, 7.5, 9]) // (1+2+4+5)/4, (3+6)/2, (7+8)/2, 9
        XCTAssertEqual(try interpreter.outputFloats(at: 1), [5, 6, 8, 9])
    }

    /// Pools on channel counts below, at and between multiples of 8 (the vector steps and the
    /// overlapping last vector), SAME and VALID windows, 1 and 2 threads, against a plain loop
    /// over each window's in-bounds taps (TFLite's average divides by their count).
    func testPoolsOnAnyChannelCountMatchAPlainLoop() throws {
        for channels in [3, 8, 12, 28, 33] {
            for (same, filter, stride) in [(true, 3, 2), (false, 2, 2), (true, 2, 1)] {
                let (h, w) = (37, 41)
                let input = (0..<h * w * channels).map { Float(($0 * 7919) % 263) / 16 - 8 }
                let outH = same ? (h + stride - 1) / stride : (h - filter) / stride + 1
                let outW = same ? (w + stride - 1) / stride : (w - filter) / stride + 1
                let padTop = same ? max(0, (outH - 1) * stride + filter - h) / 2 : 0
                let padLeft = same ? max(0, (outW - 1) * stride + filter - w) / 2 : 0
                var expectedMax = [Float](), expectedAverage = [Float]()
                for oy in 0..<outH { for ox in 0..<outW { for c in 0..<channels {
                    var taps: [Float] = []
                    for fy in 0..<filter { for fx in 0..<filter {
                        let y = oy * stride - padTop + fy, x = ox * stride - padLeft + fx
                        if y >= 0, y < h, x >= 0, x < w { taps.append(input[(y * w + x) * channels + c]) }
                    } }
                    expectedMax.append(taps.max() ?? 0)
                    expectedAverage.append(taps.reduce(0, +) / Float(taps.count))
                } } }
                for threads in [1, 2] {
                    var g = GraphBuilder()
                    let x = g.input([1, h, w, channels])
                    func configure(_ p: inout OperatorParameters) {
                        p.padding = same ? .same : .valid; p.strideWidth = stride; p.strideHeight = stride
                        p.filterWidth = filter; p.filterHeight = filter
                    }
                    g.outputs = [g.op(.maxPool2D, [x], configure)[0], g.op(.averagePool2D, [x], configure)[0]]
                    let interpreter = try Interpreter(graph: g.build(), options: .init(threadCount: threads))
                    try interpreter.copyInput(input, at: 0)
                    try interpreter.invoke()
                    let label = "\(channels) channels, filter \(filter) stride \(stride) same \(same), \(threads) threads"
                    XCTAssertEqual(try interpreter.outputFloats(at: 0), expectedMax, "max, " + label)
                    let average = try interpreter.outputFloats(at: 1)
                    XCTAssertEqual(average.count, expectedAverage.count)
                    for (u, v) in zip(average, expectedAverage) where abs(u - v) > 1e-5 * max(1, abs(v)) {
                        return XCTFail("average \(u) vs \(v), " + label)
                    }
                }
            }
        }
    }

    /// The tier row kernels (`TierPool.row`) give the bits of the portable loop
    /// (`Pool2DKernel.reference`) at every tier: channel counts below, at and between multiples of
    /// 16 (the partial and the overlapping last vector), BlazeFace's 2×2 stride 2, SPPF's 5×5
    /// stride 1 SAME, a VALID 3×3 stride 2, a fused RELU6, and inputs with NaNs and both zeros
    /// (which of two tied zeros a max keeps depends on the order the taps are visited).
    func testPoolRowsAtEveryTierMatchThePortableLoopBitForBit() throws {
        for tier in TierTesting.tiers {
            for channels in [3, 16, 24, 32, 40] {
                for (same, filter, stride, relu6) in [(true, 2, 2, false), (true, 5, 1, false), (false, 3, 2, true)] {
                    let (h, w) = (13, 11)
                    let input: [Float] = (0..<h * w * channels).map { i in
                        switch (i * 7919) % 97 {
                        case 0: return .nan
                        case 1...12: return -0.0
                        case 13...24: return 0
                        default: return Float((i * 104_729) % 263) / 16 - 8
                        }
                    }
                    for isMax in [true, false] {
                        var g = GraphBuilder()
                        let x = g.input([1, h, w, channels])
                        g.outputs = g.op(isMax ? .maxPool2D : .averagePool2D, [x]) { p in
                            p.padding = same ? .same : .valid; p.strideWidth = stride; p.strideHeight = stride
                            p.filterWidth = filter; p.filterHeight = filter; if relu6 { p.activation = .relu6 }
                        }
                        let interpreter = try Interpreter(graph: g.build(), options: .init(threadCount: 2, tier: tier))
                        try interpreter.copyInput(input, at: 0)
                        try interpreter.invoke()
                        let fast = try interpreter.outputFloats(at: 0)
                        let kernel = try XCTUnwrap(interpreter.kernels[0] as? Pool2DKernel)
                        var src = input, expected = [Float](repeating: 1, count: fast.count)
                        src.withUnsafeMutableBufferPointer { s in
                            expected.withUnsafeMutableBufferPointer { d in
                                Pool2DKernel.reference(s.baseAddress!, d.baseAddress!, g: kernel.g, channels: channels, isMax: isMax,
                                                       act: kernel.act, threads: 1)
                            }
                        }
                        let label = "\(tier) \(isMax ? "max" : "average") \(channels) channels filter \(filter) stride \(stride) same \(same)"
                        XCTAssertEqual(fast.map(\.bitPattern), expected.map(\.bitPattern), label)
                    }
                }
            }
        }
    }

    func resize(_ op: String, _ input: [Float], _ inShape: [Int], to size: [Int32],
                _ configure: @escaping (inout OperatorParameters) -> Void) throws -> [Float] {
        var g = GraphBuilder()
        let x = g.input(inShape)
        let s = g.intConstant(size, shape: [2])
        g.outputs = g.op(try XCTUnwrap(BuiltinOperator(name: op)), [x, s], configure)
        return try g.run([input]).values
    }

    func testResizeBilinearModes() throws {
        let x: [Float] = [0, 10]
        // 1×1×2 → 1×1×4, default: scale 0.5, src = 0, 0.5, 1, 1.5 → 0, 5, 10, 10
        XCTAssertEqual(try resize("RESIZE_BILINEAR", x, [1, 1, 2, 1], to: [1, 4]) { _ in }, [0, 5, 10, 10])
        // align corners: scale 1/3 → 0, 10/3, 20/3, 10
        let ac = try resize("RESIZE_BILINEAR", x, [1, 1, 2, 1], to: [1, 4]) { $0.alignCorners = true }
        XCTAssertEqual(ac[1], 10.0 / 3, accuracy: 1e-5); XCTAssertEqual(ac[3], 10)
        // half pixel: src = (i+0.5)/2 - 0.5 = -0.25, 0.25, 0.75, 1.25 → 0, 2.5, 7.5, 10
        XCTAssertEqual(try resize("RESIZE_BILINEAR", x, [1, 1, 2, 1], to: [1, 4]) { $0.halfPixelCenters = true }, [0, 2.5, 7.5, 10])
    }

    /// Two batches, 17 × 23 → 40 × 61 (enough for the row split), 3, 16, 21 and 37 channels
    /// (a partial vector, whole ones, a last vector overlapping the one before): every tier at one
    /// and three threads gives the bits of the reference formula written out here per value.
    func testResizeBilinearRowsSplitOverThreadsKeepTheReferenceBits() throws {
        for d in [3, 16, 21, 37] {
            let (batch, h, w, oh, ow) = (2, 17, 23, 40, 61)
            let input = (0..<(batch * h * w * d)).map { Float(($0 * 7919) % 1000) / 37 - 11 }
            var g = GraphBuilder()
            let x = g.input([batch, h, w, d])
            let s = g.intConstant([Int32(oh), Int32(ow)], shape: [2])
            g.outputs = g.op(.resizeBilinear, [x, s]) { $0.halfPixelCenters = true }
            var expected: [Float] = []
            for b in 0..<batch {
                for oy in 0..<oh {
                    let sy = (Float(oy) + 0.5) * (Float(h) / Float(oh)) - 0.5
                    let y0 = max(Int(sy.rounded(.down)), 0), y1 = min(Int(sy.rounded(.up)), h - 1), dy = sy - Float(y0)
                    for ox in 0..<ow {
                        let sx = (Float(ox) + 0.5) * (Float(w) / Float(ow)) - 0.5
                        let x0 = max(Int(sx.rounded(.down)), 0), x1 = min(Int(sx.rounded(.up)), w - 1), dx = sx - Float(x0)
                        for c in 0..<d {
                            func at(_ y: Int, _ x: Int) -> Float { input[((b * h + y) * w + x) * d + c] }
                            let a = at(y0, x0) * (1 - dy) * (1 - dx), p = at(y1, x0) * dy * (1 - dx)
                            let q = at(y0, x1) * (1 - dy) * dx, r = at(y1, x1) * dy * dx
                            expected.append(a + p + q + r)
                        }
                    }
                }
            }
            for tier in TierTesting.tiers {
                XCTAssertEqual(try g.run([input], tier: tier).values.map(\.bitPattern), expected.map(\.bitPattern), "\(d) channels \(tier)")
                XCTAssertEqual(try g.run([input], threads: 3, tier: tier).values.map(\.bitPattern), expected.map(\.bitPattern),
                               "\(d) channels \(tier), 3 threads")
            }
        }
    }

    func testResizeNearestModes() throws {
        let x: [Float] = [1, 2, 3]
        // 3 → 5, scale 0.6: floor(0, .6, 1.2, 1.8, 2.4) = 0 0 1 1 2
        XCTAssertEqual(try resize("RESIZE_NEAREST_NEIGHBOR", x, [1, 1, 3, 1], to: [1, 5]) { _ in }, [1, 1, 2, 2, 3])
        // align corners, scale 0.5: round(0, .5, 1, 1.5, 2) = 0 1 1 2 2 (half away from zero)
        XCTAssertEqual(try resize("RESIZE_NEAREST_NEIGHBOR", x, [1, 1, 3, 1], to: [1, 5]) { $0.alignCorners = true }, [1, 2, 2, 3, 3])
        // half pixel: floor((i+0.5)·0.6) = 0 0 1 2 2
        XCTAssertEqual(try resize("RESIZE_NEAREST_NEIGHBOR", x, [1, 1, 3, 1], to: [1, 5]) { $0.halfPixelCenters = true }, [1, 1, 2, 3, 3])
    }

    // MARK: - Fast paths against the reference loops

    /// Packing from memory (rows of B contiguous, or columns contiguous as a filter's OHWI
    /// layout gives them) lays out exactly what the accessor form does, zero padding included,
    /// at every tier's panel width.
    func testPackingFromMemoryEqualsTheAccessorForm() {
        for tier in TierTesting.tiers {
            let table = KernelTable.for(tier)
            for (k, n) in [(1, 1), (5, 7), (27, 16), (9, 33), (64, 40)] {
                let values = (0..<(k * n)).map { Float($0) * 0.25 - 3 }
                values.withUnsafeBufferPointer { v in
                    let accessorRows = FloatGEMM.PackedMatrix(k: k, n: n, table: table) { kk, j in v[kk * n + j] }
                    let rows = FloatGEMM.PackedMatrix(k: k, n: n, table: table, source: v.baseAddress!, kStride: n, nStride: 1)
                    let accessorColumns = FloatGEMM.PackedMatrix(k: k, n: n, table: table) { kk, j in v[j * k + kk] }
                    let columns = FloatGEMM.PackedMatrix(k: k, n: n, table: table, source: v.baseAddress!, kStride: 1, nStride: k)
                    let count = rows.panels * k * rows.width
                    XCTAssertEqual(Array(UnsafeBufferPointer(start: rows.storage, count: count)),
                                   Array(UnsafeBufferPointer(start: accessorRows.storage, count: count)), "\(tier) \(k)x\(n) rows")
                    XCTAssertEqual(Array(UnsafeBufferPointer(start: columns.storage, count: count)),
                                   Array(UnsafeBufferPointer(start: accessorColumns.storage, count: count)), "\(tier) \(k)x\(n) columns")
                }
            }
        }
    }

    func testGEMMMatchesReferenceOnRandomShapes() {
        var rng = Rng(state: 1)
        // Random shapes, then column counts whose last panel has exactly 4 columns (vector tail).
        // Wide B (≥ 4 panels) takes the pre-broadcast A path, with K blocks above 256 too.
        let shapes = (0..<25).map { _ in (1 + rng.int(13), 1 + rng.int(21), 1 + rng.int(600)) } + [(7, 4, 9), (13, 12, 300), (6, 28, 24)]
            + [(13, 64, 300), (7, 100, 513), (6, 68, 24), (1, 255, 64), (11, 129, 5), (12, 64, 0), (9, 32, 40), (5, 27, 260)]
        for (m, n, k) in shapes {
            let a = rng.floats(m * k), b = rng.floats(k * n), bias = rng.floats(n)
            for tier in TierTesting.tiers { for fused in tier == .baseline ? [false] : [false, true] {
                let packed = FloatGEMM.PackedMatrix(k: k, n: n, tier: tier, fused: fused) { kk, j in b[kk * n + j] }
                let context = "\(tier) fused \(fused) m \(m) n \(n) k \(k)"
                var c = [Float](repeating: .nan, count: m * n)
                a.withUnsafeBufferPointer { ap in
                    bias.withUnsafeBufferPointer { bp in
                        c.withUnsafeMutableBufferPointer { cp in
                            FloatGEMM.multiply(rows: 0..<m, a: ap.baseAddress ?? bp.baseAddress!, lda: k, b: packed, bias: bp.baseAddress!,
                                               c: cp.baseAddress!, ldc: n, clampMin: -0.5, clampMax: 3)
                        }
                    }
                }
                // Same summation order as the reference: bit-identical unless products are fused.
                TierTesting.assertMatches(c, FloatGEMM.reference(m: m, n: n, k: k, a: a, b: b, bias: bias, clampMin: -0.5, clampMax: 3),
                                          exact: !fused, context)
                // The SiLU epilogue: the unclamped product, then `FloatVectorMath.silu`.
                var s = [Float](repeating: .nan, count: m * n)
                a.withUnsafeBufferPointer { ap in
                    bias.withUnsafeBufferPointer { bp in
                        s.withUnsafeMutableBufferPointer { sp in
                            FloatGEMM.multiply(rows: 0..<m, a: ap.baseAddress ?? bp.baseAddress!, lda: k, b: packed, bias: bp.baseAddress!,
                                               c: sp.baseAddress!, ldc: n, clampMin: -0.5, clampMax: 3, silu: true)
                        }
                    }
                }
                let plain = FloatGEMM.reference(m: m, n: n, k: k, a: a, b: b, bias: bias, clampMin: -.infinity, clampMax: .infinity)
                TierTesting.assertMatches(s, plain.map { FloatVectorMath.silu(SIMD8(repeating: $0))[0] }, exact: !fused, "silu " + context)
            } }
        }
    }

    /// The wide tiers' tile choices: pairs of 16-column panels (AVX-512, the second one partial
    /// or whole), a last panel of at most 8 columns on the 12-row narrow tile, short row tiles,
    /// rows laid out as runs (`RowLayout`, the in-place convolution's A): bit-identical to the
    /// reference without fused multiply-adds, within rounding with them.
    func testGEMMTileShapesMatchReference() {
        var rng = Rng(state: 5)
        // (m, n, k, runs): n = 8 and 5 (narrow only), 24 and 40 (whole panels + narrow), 21 (+ 5),
        // 30 and 47 (pair with a partial second panel), 64 (two pairs), 80 (pair + single), 255.
        let shapes = [(25, 8, 27, 3), (13, 5, 9, 1), (12, 24, 16, 2), (30, 40, 33, 3), (1, 21, 7, 1), (17, 30, 12, 4),
                      (9, 47, 50, 1), (8, 64, 8, 2), (23, 80, 20, 4), (7, 255, 3, 1), (36, 16, 6, 2), (11, 96, 1, 1)]
        for (m, n, k, runs) in shapes {
            // A row: `runs` runs of k / runs values, 3 values apart more than their length (a gap between them).
            let length = k / runs, gap = 3, stride = length + gap, lda = runs * stride + 1
            let a = rng.floats(m * lda), b = rng.floats(k * n), bias = rng.floats(n)
            // The dense A the runs stand for.
            var dense = [Float](repeating: 0, count: m * k)
            for r in 0..<m { for s in 0..<runs { for j in 0..<length { dense[r * k + s * length + j] = a[r * lda + s * stride + j] } } }
            for tier in TierTesting.tiers { for fused in tier == .baseline ? [false] : [false, true] {
                let packed = FloatGEMM.PackedMatrix(k: k, n: n, tier: tier, fused: fused) { kk, j in b[kk * n + j] }
                var c = [Float](repeating: .nan, count: m * n)
                a.withUnsafeBufferPointer { ap in bias.withUnsafeBufferPointer { bp in c.withUnsafeMutableBufferPointer { cp in
                    FloatGEMM.multiply(rows: 0..<m, a: ap.baseAddress!, lda: lda, b: packed, bias: bp.baseAddress!, c: cp.baseAddress!,
                                       ldc: n, clampMin: -0.5, clampMax: 3,
                                       layout: FloatGEMM.RowLayout(count: runs, length: length, stride: stride))
                } } }
                TierTesting.assertMatches(c, FloatGEMM.reference(m: m, n: n, k: k, a: dense, b: b, bias: bias, clampMin: -0.5, clampMax: 3),
                                          exact: !fused, "\(tier) fused \(fused) m \(m) n \(n) k \(k) runs \(runs)")
            } }
        }
    }

    /// Few rows (a batch-1 FULLY_CONNECTED) split over the threads by whole panels of columns,
    /// many rows by rows: the same bits as one call at every tier, fused or not, for any part count.
    func testParallelGEMMSplitsGiveTheSameBits() {
        var rng = Rng(state: 41)
        for (m, n, k) in [(1, 1001, 256), (3, 100, 37), (1, 24, 64), (30, 72, 20)] {
            let a = rng.floats(m * k), b = rng.floats(k * n), bias = rng.floats(n)
            for tier in TierTesting.tiers { for fused in tier == .baseline ? [false] : [false, true] {
                let packed = FloatGEMM.PackedMatrix(k: k, n: n, tier: tier, fused: fused) { kk, j in b[kk * n + j] }
                func product(parts: Int) -> [Float] {
                    var c = [Float](repeating: .nan, count: m * n)
                    a.withUnsafeBufferPointer { ap in bias.withUnsafeBufferPointer { bp in c.withUnsafeMutableBufferPointer { cp in
                        if parts == 0 {
                            FloatGEMM.multiply(rows: 0..<m, a: ap.baseAddress!, lda: k, b: packed, bias: bp.baseAddress!,
                                               c: cp.baseAddress!, ldc: n, clampMin: -1, clampMax: 2)
                        } else {
                            FloatGEMM.parallelMultiply(m: m, parts: parts, a: ap.baseAddress!, lda: k, b: packed, bias: bp.baseAddress!,
                                                       c: cp.baseAddress!, ldc: n, clampMin: -1, clampMax: 2)
                        }
                    } } }
                    return c
                }
                let whole = product(parts: 0)
                XCTAssertFalse(whole.contains { $0.isNaN })
                for parts in [1, 2, 3] {
                    XCTAssertEqual(product(parts: parts).map(\.bitPattern), whole.map(\.bitPattern),
                                   "\(tier) fused \(fused) m \(m) n \(n) k \(k) in \(parts) parts")
                }
            } }
        }
    }

    /// The AVX-512 float GEMM's two register tiles (8 × 16 and 12 × 32; the table holds the one
    /// chosen for this CPU) on the same packed panels: without fused multiply-adds each equals the
    /// reference loop bit for bit, with them the two give the same bits (each sum over k in order).
    /// Shapes: a pair and an odd panel left over, a narrow last panel, 5–11 rows in the last tile,
    /// four rows or fewer (the one-row kernel), runs as rows, every finish (none, clamp, SiLU).
    func testAVX512FloatTilesGiveTheSameBits() throws {
        #if arch(x86_64)
        guard InstructionSetTier.supported >= .avx512 else { throw XCTSkip("this CPU has no AVX-512") }
        var rng = Rng(state: 29)
        let kernels = KernelTable.avx512FloatGEMMs
        for (m, n, k, runs) in [(29, 80, 40, 1), (12, 64, 17, 1), (17, 48, 33, 3), (9, 100, 64, 2), (4, 96, 20, 1),
                                (30, 37, 300, 1), (25, 24, 9, 1), (1, 1001, 256, 1)] {
            let length = k / runs, stride = length + 2, lda = runs * stride
            let a = rng.floats(m * lda), b = rng.floats(k * n), bias = rng.floats(n)
            let layout = FloatGEMM.RowLayout(count: runs, length: length, stride: stride)
            var dense = [Float](repeating: 0, count: m * k)
            for r in 0..<m { for s in 0..<runs { for j in 0..<length { dense[r * k + s * length + j] = a[r * lda + s * stride + j] } } }
            for fused in [false, true] { for (lo, hi, silu) in [(-Float.greatestFiniteMagnitude, Float.greatestFiniteMagnitude, false),
                                                                (-0.5, 3, false), (-Float.greatestFiniteMagnitude, Float.greatestFiniteMagnitude, true)] {
                func product(_ kernel: FloatGEMMKernel) -> [Float] {
                    let packed = FloatGEMM.PackedMatrix(k: k, n: n, kernel: kernel, fused: fused) { kk, j in b[kk * n + j] }
                    var c = [Float](repeating: .nan, count: m * n)
                    a.withUnsafeBufferPointer { ap in bias.withUnsafeBufferPointer { bp in c.withUnsafeMutableBufferPointer { cp in
                        FloatGEMM.multiply(rows: 0..<m, a: ap.baseAddress!, lda: lda, b: packed, bias: bp.baseAddress!,
                                           c: cp.baseAddress!, ldc: n, clampMin: lo, clampMax: hi, silu: silu, layout: layout)
                    } } }
                    return c
                }
                let single = product(kernels.single), paired = product(kernels.paired)
                let what = "fused \(fused) silu \(silu) clamp \(lo)...\(hi) m \(m) n \(n) k \(k) runs \(runs)"
                XCTAssertEqual(paired.map(\.bitPattern), single.map(\.bitPattern), what)
                XCTAssertFalse(paired.contains { $0.isNaN }, "every value written: " + what)
                if !fused && !silu {
                    let expected = FloatGEMM.reference(m: m, n: n, k: k, a: dense, b: b, bias: bias, clampMin: lo, clampMax: hi)
                    XCTAssertEqual(paired.map(\.bitPattern), expected.map(\.bitPattern), "reference: " + what)
                }
            } }
        }
        #else
        throw XCTSkip("x86-64 only")
        #endif
    }

    /// Rows computed in any grouping (one call, one row at a time, threes: what thread splits
    /// do) give the same bits at every tier, with fused multiply-adds too: short row groups take
    /// the one-row kernel over four panels, whose sums run over k in the tiles' order. Widths
    /// with whole panels, a partial panel and a narrow last panel; runs as rows.
    func testGEMMAnyRowGroupingGivesTheSameBits() {
        var rng = Rng(state: 17)
        for (m, n, k, runs) in [(13, 64, 40, 1), (11, 100, 33, 3), (9, 37, 300, 1), (5, 129, 12, 2), (1, 80, 257, 1)] {
            let length = k / runs, stride = length + 2, lda = runs * stride
            let a = rng.floats(m * lda), b = rng.floats(k * n), bias = rng.floats(n)
            let layout = FloatGEMM.RowLayout(count: runs, length: length, stride: stride)
            for tier in TierTesting.tiers { for fused in tier == .baseline ? [false] : [false, true] { for silu in [false, true] {
                let packed = FloatGEMM.PackedMatrix(k: runs * length, n: n, tier: tier, fused: fused) { kk, j in b[kk * n + j] }
                func product(groups: Int) -> [Float] {
                    var c = [Float](repeating: .nan, count: m * n)
                    a.withUnsafeBufferPointer { ap in bias.withUnsafeBufferPointer { bp in c.withUnsafeMutableBufferPointer { cp in
                        var r = 0
                        while r < m {
                            let end = min(m, r + groups)
                            FloatGEMM.multiply(rows: r..<end, a: ap.baseAddress!, lda: lda, b: packed, bias: bp.baseAddress!,
                                               c: cp.baseAddress!, ldc: n, clampMin: -0.5, clampMax: 3, silu: silu, layout: layout)
                            r = end
                        }
                    } } }
                    return c
                }
                let whole = product(groups: m)
                for groups in [1, 3] {
                    XCTAssertEqual(product(groups: groups).map(\.bitPattern), whole.map(\.bitPattern),
                                   "\(tier) fused \(fused) silu \(silu) m \(m) n \(n) k \(k) in groups of \(groups)")
                }
                XCTAssertFalse(whole.contains { $0.isNaN }, "every value written")
            } } }
        }
    }

    func testConvFastPathMatchesReferenceOnRandomShapes() throws {
        var rng = Rng(state: 7)
        for trial in 0..<20 {
            let h = 1 + rng.int(12), w = 1 + rng.int(12), c = 1 + rng.int(9), oc = 1 + rng.int(19)
            let kh = 1 + rng.int(3), kw = 1 + rng.int(3), stride = 1 + rng.int(2), dil = 1 + rng.int(2)
            let same = rng.int(2) == 0
            if !same && (h < (kh - 1) * dil + 1 || w < (kw - 1) * dil + 1) { continue }
            let batch = 1 + rng.int(2)
            let input = rng.floats(batch * h * w * c), filter = rng.floats(oc * kh * kw * c), bias = rng.floats(oc)
            let configure: (inout OperatorParameters) -> Void = {
                $0.padding = same ? .same : .valid; $0.strideWidth = stride; $0.strideHeight = stride
                $0.dilationWidthFactor = dil; $0.dilationHeightFactor = dil; $0.activation = .relu6
            }
            let threads = 1 + trial % 2
            for tier in TierTesting.tiers {
                let (fast, shape) = try conv(input: input, inShape: [batch, h, w, c], filter: filter, filterShape: [oc, kh, kw, c],
                                             bias: bias, threads: threads, tier: tier, configure)
                var p = OperatorParameters(); configure(&p)
                let outH = KernelSupport.outputSize(padding: p.padding, input: h, filter: kh, stride: stride, dilation: dil)!
                let outW = KernelSupport.outputSize(padding: p.padding, input: w, filter: kw, stride: stride, dilation: dil)!
                XCTAssertEqual(shape, [batch, outH, outW, oc])
                let g = ConvGeometry(window: WindowGeometry(batches: batch, inputHeight: h, inputWidth: w, outputHeight: outH, outputWidth: outW, filterHeight: kh, filterWidth: kw,
                                                            strideHeight: stride, strideWidth: stride, dilationHeight: dil, dilationWidth: dil,
                                                            padTop: KernelSupport.paddingBefore(input: h, filter: kh, stride: stride, dilation: dil, output: outH),
                                                            padLeft: KernelSupport.paddingBefore(input: w, filter: kw, stride: stride, dilation: dil, output: outW)), inC: c, outC: oc)
                var expected = [Float](repeating: 0, count: fast.count)
                input.withUnsafeBufferPointer { ip in filter.withUnsafeBufferPointer { fp in bias.withUnsafeBufferPointer { bp in
                    expected.withUnsafeMutableBufferPointer { op in
                        Conv2DKernel.referenceFloat(g: g, groups: 1, input: ip.baseAddress!, filter: fp.baseAddress!, bias: bp.baseAddress!,
                                                    output: op.baseAddress!, act: (0, 6))
                    }
                } } }
                // Winograd regroups the sums (WinogradConvolutionTests) and the wide tiers fuse
                // multiply-adds; the baseline GEMM is bit-identical.
                TierTesting.assertMatches(fast, expected, exact: tier == .baseline && !WinogradConvolution.applies(to: g, groups: 1, table: KernelTable.for(tier)),
                                          "trial \(trial) \(tier)")
            }
        }
    }

    /// VALID convolutions read the input in place (runs of kW·C values per filter row), narrow
    /// and wide (pre-broadcast) B, depth above one K block: bit-identical to the reference.
    func testConvReadingTheInputInPlaceMatchesReference() throws {
        var rng = Rng(state: 99)
        let cases = [(6, 2, 3, 16), (3, 2, 5, 70), (3, 1, 40, 64), (2, 2, 7, 9), (1, 2, 33, 100), (3, 2, 40, 12), (3, 2, 40, 64)]
        for (trial, (k, stride, c, oc)) in cases.enumerated() {
            let h = 7 + rng.int(6), w = 7 + rng.int(6)
            let input = rng.floats(h * w * c), filter = rng.floats(oc * k * k * c), bias = rng.floats(oc)
            // Odd trials on 2 threads (output rows split between them).
            for tier in TierTesting.tiers {
                let (fast, shape) = try conv(input: input, inShape: [1, h, w, c], filter: filter, filterShape: [oc, k, k, c],
                                             bias: bias, threads: 1 + trial % 2, tier: tier) {
                    $0.padding = .valid; $0.strideWidth = stride; $0.strideHeight = stride; $0.activation = .relu
            }
            let outH = (h - k) / stride + 1, outW = (w - k) / stride + 1
            XCTAssertEqual(shape, [1, outH, outW, oc])
            let g = ConvGeometry(window: WindowGeometry(batches: 1, inputHeight: h, inputWidth: w, outputHeight: outH, outputWidth: outW, filterHeight: k, filterWidth: k,
                                                        strideHeight: stride, strideWidth: stride, dilationHeight: 1, dilationWidth: 1,
                                                        padTop: 0, padLeft: 0), inC: c, outC: oc)
            XCTAssertTrue(g.readsInPlace)
            var expected = [Float](repeating: 0, count: fast.count)
            input.withUnsafeBufferPointer { ip in filter.withUnsafeBufferPointer { fp in bias.withUnsafeBufferPointer { bp in
                expected.withUnsafeMutableBufferPointer { op in
                    Conv2DKernel.referenceFloat(g: g, groups: 1, input: ip.baseAddress!, filter: fp.baseAddress!, bias: bp.baseAddress!,
                                                output: op.baseAddress!, act: (0, .greatestFiniteMagnitude))
                }
            } } }
            TierTesting.assertMatches(fast, expected, exact: tier == .baseline && !WinogradConvolution.applies(to: g, groups: 1, table: KernelTable.for(tier)),
                                      "k \(k) stride \(stride) c \(c) oc \(oc) \(tier)")
            }
        }
    }

    /// SAME padding: the input is copied once with its padding written out and read in
    /// place (BlazeFace's first layer: 5×5, stride 2, 3 channels), batches, 2 threads.
    func testPaddedConvolutionCopiesThePaddingOnceAndMatchesReference() throws {
        var rng = Rng(state: 5)
        for (k, stride, h, w, c, oc, batch) in [(5, 2, 17, 14, 3, 24, 2), (3, 2, 9, 9, 8, 40, 1), (3, 1, 6, 7, 5, 12, 1), (2, 1, 5, 4, 3, 9, 2)] {
            let input = rng.floats(batch * h * w * c), filter = rng.floats(oc * k * k * c), bias = rng.floats(oc)
            var g = GraphBuilder()
            let x = g.input([batch, h, w, c])
            let wt = g.constant(filter, shape: [oc, k, k, c])
            let bt = g.constant(bias, shape: [oc])
            g.outputs = g.op(.conv2D, [x, wt, bt]) { $0.padding = .same; $0.strideWidth = stride; $0.strideHeight = stride }
            for tier in TierTesting.tiers {
                let interpreter = try Interpreter(graph: g.build(), options: .init(threadCount: 2, tier: tier))
                let kernel = try XCTUnwrap(interpreter.kernels[0] as? Conv2DKernel)
                XCTAssertNotNil(kernel.paddedInput, "k \(k) stride \(stride)")
                for _ in 0..<2 {   // the interior is rewritten, the borders stay zero
                    try interpreter.copyInput(input, at: 0)
                    try interpreter.invoke()
            }
            let fast = try interpreter.outputFloats(at: 0)
            var expected = [Float](repeating: 0, count: fast.count)
            input.withUnsafeBufferPointer { ip in filter.withUnsafeBufferPointer { fp in bias.withUnsafeBufferPointer { bp in
                expected.withUnsafeMutableBufferPointer { op in
                    Conv2DKernel.referenceFloat(g: kernel.g, groups: 1, input: ip.baseAddress!, filter: fp.baseAddress!,
                                                bias: bp.baseAddress!, output: op.baseAddress!, act: kernel.act)
                }
            } } }
            TierTesting.assertMatches(fast, expected, exact: tier == .baseline, "k \(k) stride \(stride) \(h)×\(w)×\(c) → \(oc) \(tier)")
            }
        }
    }

    func testDepthwiseFastPathMatchesReferenceOnRandomShapes() throws {
        var rng = Rng(state: 11)
        for trial in 0..<20 {
            let h = 1 + rng.int(10), w = 1 + rng.int(10), c = 1 + rng.int(20)
            let k = 1 + rng.int(4), stride = 1 + rng.int(2), dil = 1 + rng.int(2)
            let input = rng.floats(h * w * c), filter = rng.floats(k * k * c), bias = rng.floats(c)
            let configure: (inout OperatorParameters) -> Void = {
                $0.padding = .same; $0.strideWidth = stride; $0.strideHeight = stride
                $0.dilationWidthFactor = dil; $0.dilationHeightFactor = dil; $0.depthMultiplier = 1
            }
            for tier in TierTesting.tiers {
                let (fast, shape) = try conv(input: input, inShape: [1, h, w, c], filter: filter, filterShape: [1, k, k, c],
                                             bias: bias, op: "DEPTHWISE_CONV_2D", threads: 1 + trial % 2, tier: tier, configure)
                let outH = shape[1], outW = shape[2]
                let g = ConvGeometry(window: WindowGeometry(batches: 1, inputHeight: h, inputWidth: w, outputHeight: outH, outputWidth: outW, filterHeight: k, filterWidth: k,
                                                            strideHeight: stride, strideWidth: stride, dilationHeight: dil, dilationWidth: dil,
                                                            padTop: KernelSupport.paddingBefore(input: h, filter: k, stride: stride, dilation: dil, output: outH),
                                                            padLeft: KernelSupport.paddingBefore(input: w, filter: k, stride: stride, dilation: dil, output: outW)), inC: c, outC: c)
                var expected = [Float](repeating: 0, count: fast.count)
                input.withUnsafeBufferPointer { ip in filter.withUnsafeBufferPointer { fp in bias.withUnsafeBufferPointer { bp in
                    expected.withUnsafeMutableBufferPointer { op in
                        DepthwiseConv2DKernel.referenceFloat(g: g, multiplier: 1, input: ip.baseAddress!, filter: fp.baseAddress!,
                                                             bias: bp.baseAddress!, output: op.baseAddress!,
                                                             act: (-.greatestFiniteMagnitude, .greatestFiniteMagnitude))
                    }
                } } }
                TierTesting.assertMatches(fast, expected, exact: tier == .baseline, "trial \(trial) \(tier)")
            }
        }
    }

    /// Wide rows reach the interior path (AVX-512: 8-pixel blocks, then 4); channel counts cover
    /// the 8-lane blocks, the 4-lane tail and the scalar tail, and at AVX-512 the 16-lane blocks
    /// with a last block of at most 8 channels (20, 24, 40) on 8-lane vectors; RELU6 covers the
    /// fused clamp there.
    func testDepthwiseInteriorBlocksMatchReferenceOnWideRows() throws {
        var rng = Rng(state: 23)
        let channels = [3, 4, 8, 12, 13, 32, 16, 20, 40, 24]
        var clampedLow = 0, clampedHigh = 0
        for trial in 0..<20 {
            let h = 6 + rng.int(6), w = 9 + rng.int(20), c = channels[trial % channels.count]
            let k = [3, 5][trial % 2], stride = 1 + rng.int(2), dil = trial % 5 == 4 ? 2 : 1
            let padding: OperatorParameters.Padding = trial % 3 == 2 ? .valid : .same
            let input = rng.floats(h * w * c).map { $0 * 8 }, filter = rng.floats(k * k * c), bias = rng.floats(c)
            let configure: (inout OperatorParameters) -> Void = {
                $0.padding = padding; $0.strideWidth = stride; $0.strideHeight = stride
                $0.dilationWidthFactor = dil; $0.dilationHeightFactor = dil; $0.depthMultiplier = 1
                $0.activation = .relu6
            }
            for tier in TierTesting.tiers {
                let (fast, shape) = try conv(input: input, inShape: [1, h, w, c], filter: filter, filterShape: [1, k, k, c],
                                             bias: bias, op: "DEPTHWISE_CONV_2D", threads: 1 + trial % 2, tier: tier, configure)
                let outH = shape[1], outW = shape[2]
                let padTop = padding == .same ? KernelSupport.paddingBefore(input: h, filter: k, stride: stride, dilation: dil, output: outH) : 0
                let padLeft = padding == .same ? KernelSupport.paddingBefore(input: w, filter: k, stride: stride, dilation: dil, output: outW) : 0
                let g = ConvGeometry(window: WindowGeometry(batches: 1, inputHeight: h, inputWidth: w, outputHeight: outH, outputWidth: outW, filterHeight: k, filterWidth: k,
                                                            strideHeight: stride, strideWidth: stride, dilationHeight: dil, dilationWidth: dil,
                                                            padTop: padTop, padLeft: padLeft), inC: c, outC: c)
                var expected = [Float](repeating: 0, count: fast.count)
                input.withUnsafeBufferPointer { ip in filter.withUnsafeBufferPointer { fp in bias.withUnsafeBufferPointer { bp in
                    expected.withUnsafeMutableBufferPointer { op in
                        DepthwiseConv2DKernel.referenceFloat(g: g, multiplier: 1, input: ip.baseAddress!, filter: fp.baseAddress!,
                                                             bias: bp.baseAddress!, output: op.baseAddress!, act: (0, 6))
                    }
                } } }
                TierTesting.assertMatches(fast, expected, exact: tier == .baseline, "trial \(trial) \(tier)")
                clampedLow += expected.filter { $0 == 0 }.count
                clampedHigh += expected.filter { $0 == 6 }.count
            }
        }
        XCTAssertGreaterThan(clampedLow, 0)
        XCTAssertGreaterThan(clampedHigh, 0)
    }

    /// The channel blocks of the float depthwise, bit for bit with the reference loop: an edge
    /// pixel (4 vectors of channels a step, then one at a time), rows of 4–7 interior pixels (at
    /// AVX-512 4 pixels × 2 vectors), the 8-pixel blocks, and 8 channels at stride 1 (two
    /// pixels per vector). A hybrid 1×1 convolution beside the
    /// depthwise makes the interpreter keep the reference rounding (no fused multiply-adds), so
    /// any change of a value's summation order shows at every tier.
    func testDepthwiseChannelBlocksMatchReferenceBitForBitAtEveryTier() throws {
        var rng = Rng(state: 41)
        // (height, width, channels, kernel, stride)
        let shapes = [(5, 6, 32, 3, 1), (5, 7, 48, 3, 1), (4, 9, 40, 3, 1), (6, 13, 64, 3, 2), (5, 8, 136, 3, 1),
                      (5, 11, 72, 5, 1), (3, 3, 64, 3, 1), (4, 5, 96, 3, 1), (4, 20, 80, 3, 1), (2, 4, 33, 3, 1),
                      // 8 channels at stride 1 (two pixels per 16-lane vector, 16 a step): 16
                      // interior pixels, 19 (the last step overlapping), 30 with 5 × 5 taps;
                      // and stride 2, which keeps the 8-lane blocks.
                      (3, 18, 8, 3, 1), (5, 21, 8, 3, 1), (4, 34, 8, 5, 1), (5, 40, 8, 3, 2)]
        for (trial, (h, w, c, k, stride)) in shapes.enumerated() {
            let input = rng.floats(h * w * c).map { $0 * 4 }, filter = rng.floats(k * k * c), bias = rng.floats(c)
            var g = GraphBuilder()
            let x = g.input([1, h, w, c])
            let depthwise = g.op(.depthwiseConv2D, [x, g.constant(filter, shape: [1, k, k, c]), g.constant(bias, shape: [c])]) {
                $0.padding = .same; $0.strideWidth = stride; $0.strideHeight = stride; $0.depthMultiplier = 1
                if trial % 2 == 1 { $0.activation = .relu6 }
            }
            let hybridWeights = g.int8Constant((0..<c).map { Int8(truncatingIfNeeded: $0 % 7 - 3) }, shape: [1, 1, 1, c],
                                               quantization: .init(scales: [0.01], zeroPoints: [0], quantizedDimension: 0))
            let hybrid = g.op(.conv2D, [x, hybridWeights]) { $0.padding = .valid; $0.strideWidth = 1; $0.strideHeight = 1 }
            g.outputs = depthwise + hybrid
            for tier in TierTesting.tiers {
                for threads in [1, 2] {
                    let interpreter = try Interpreter(graph: g.build(), options: .init(threadCount: threads, tier: tier))
                    XCTAssertTrue(interpreter.roundsLikeReference, "trial \(trial)")
                    let kernel = try XCTUnwrap(interpreter.kernels[0] as? DepthwiseConv2DKernel)
                    XCTAssertFalse(kernel.fused)
                    try interpreter.copyInput(input, at: 0)
                    try interpreter.invoke()
                    let fast = try interpreter.outputFloats(at: 0)
                    var expected = [Float](repeating: .nan, count: fast.count)
                    input.withUnsafeBufferPointer { ip in filter.withUnsafeBufferPointer { fp in bias.withUnsafeBufferPointer { bp in
                        expected.withUnsafeMutableBufferPointer { op in
                            guard let i = ip.baseAddress, let f = fp.baseAddress, let o = op.baseAddress else { return }
                            DepthwiseConv2DKernel.referenceFloat(g: kernel.g, multiplier: 1, input: i, filter: f, bias: bp.baseAddress,
                                                                 output: o, act: kernel.act)
                        }
                    } } }
                    XCTAssertEqual(fast.map(\.bitPattern), expected.map(\.bitPattern),
                                   "trial \(trial): \(h)×\(w)×\(c), \(k)×\(k) stride \(stride), \(tier), \(threads) threads")
                }
            }
        }
    }

    /// The first-layer convolution with pixels in the lanes (`PlanarConvolution`, AVX-512):
    /// bit for bit the fused sum written out here — taps in (ky, kx, c) order from 0, each
    /// `fma(x, w, sum)`, padding taps skipped (they add exactly 0), bias last, then the clamp —
    /// over 1–4 input channels, 1–8 output channels, strides 1 and 2, left padding 0–2,
    /// dilation, rows of 16 pixels and more (the last block overlapping, 32-pixel steps), one
    /// and several bands of output rows, 1 and 2 threads.
    func testPlanarFirstLayerConvolutionIsTheFusedSumBitForBit() throws {
        guard TierTesting.tiers.contains(.avx512) else {
            print("skipped: the planar convolution needs AVX-512 (this CPU: \(InstructionSetTier.supported))")
            return
        }
        var rng = Rng(state: 77)
        // (height, width, inC, outC, kernel, stride, dilation)
        let shapes = [(9, 32, 3, 8, 3, 2, 1), (7, 16, 3, 8, 3, 1, 1), (6, 37, 1, 5, 3, 1, 1), (8, 45, 4, 8, 5, 2, 1),
                      (5, 40, 2, 3, 3, 2, 1), (6, 21, 3, 7, 3, 1, 2), (11, 70, 3, 8, 7, 2, 1), (4, 18, 3, 8, 1, 1, 1),
                      // Several bands of 8 output rows (rows shared by two bands, padding at both ends).
                      (40, 34, 3, 8, 3, 2, 1), (19, 16, 2, 4, 5, 1, 1), (23, 33, 3, 6, 3, 1, 3)]
        for (trial, (h, w, inC, outC, k, stride, dilation)) in shapes.enumerated() {
            let input = rng.floats(h * w * inC).map { $0 * 3 }, filter = rng.floats(outC * k * k * inC), bias = rng.floats(outC)
            var g = GraphBuilder()
            let x = g.input([1, h, w, inC])
            g.outputs = g.op(.conv2D, [x, g.constant(filter, shape: [outC, k, k, inC]), g.constant(bias, shape: [outC])]) {
                $0.padding = .same; $0.strideWidth = stride; $0.strideHeight = stride
                $0.dilationWidthFactor = dilation; $0.dilationHeightFactor = dilation
                if trial % 2 == 0 { $0.activation = .relu6 }
            }
            for threads in [1, 2] {
                let interpreter = try Interpreter(graph: g.build(), options: .init(threadCount: threads, tier: .avx512))
                let kernel = try XCTUnwrap(interpreter.kernels[0] as? Conv2DKernel)
                let planar = k > 1 || stride > 1
                XCTAssertEqual(kernel.kernelName?.hasPrefix("planar"), planar, "trial \(trial): \(kernel.kernelName ?? "")")
                try interpreter.copyInput(input, at: 0)
                try interpreter.invoke()
                let fast = try interpreter.outputFloats(at: 0)
                let cg = kernel.g
                var expected = [Float](repeating: .nan, count: cg.outH * cg.outW * outC)
                for oy in 0..<cg.outH {
                    for ox in 0..<cg.outW {
                        for o in 0..<outC {
                            var sum: Float = 0
                            for ky in 0..<k {
                                let y = oy * stride - cg.padTop + ky * dilation
                                guard y >= 0, y < h else { continue }
                                for kx in 0..<k {
                                    let xx = ox * stride - cg.padLeft + kx * dilation
                                    guard xx >= 0, xx < w else { continue }
                                    for c in 0..<inC {
                                        sum = sum.addingProduct(input[(y * w + xx) * inC + c], filter[((o * k + ky) * k + kx) * inC + c])
                                    }
                                }
                            }
                            let v = sum + bias[o]
                            expected[(oy * cg.outW + ox) * outC + o] = trial % 2 == 0 ? min(max(v, 0), 6) : v
                        }
                    }
                }
                XCTAssertEqual(fast.map(\.bitPattern), expected.map(\.bitPattern),
                               "trial \(trial): \(h)×\(w)×\(inC) → \(outC), \(k)×\(k) stride \(stride) dilation \(dilation), \(threads) threads")
            }
        }
    }

    func testFullyConnectedFastPathMatchesReference() throws {
        var rng = Rng(state: 5)
        for _ in 0..<10 {
            let rows = 1 + rng.int(6), depth = 1 + rng.int(300), units = 1 + rng.int(30)
            let x = rng.floats(rows * depth), w = rng.floats(units * depth), b = rng.floats(units)
            var g = GraphBuilder()
            let xi = g.input([rows, depth])
            g.outputs = g.op(.fullyConnected, [xi, g.constant(w, shape: [units, depth]), g.constant(b, shape: [units])])
            for tier in TierTesting.tiers {
                let fast = try g.run([x], tier: tier).values
                var expected = [Float](repeating: 0, count: rows * units)
                x.withUnsafeBufferPointer { xp in w.withUnsafeBufferPointer { wp in b.withUnsafeBufferPointer { bp in
                    expected.withUnsafeMutableBufferPointer { op in
                        FullyConnectedKernel.referenceFloat(rows: rows, depth: depth, units: units, input: xp.baseAddress!, weights: wp.baseAddress!,
                                                            bias: bp.baseAddress!, output: op.baseAddress!,
                                                            act: (-.greatestFiniteMagnitude, .greatestFiniteMagnitude))
                    }
                } } }
                TierTesting.assertMatches(fast, expected, exact: tier == .baseline, "\(rows)×\(depth) → \(units) \(tier)")
            }
        }
    }

    // MARK: - Hybrid

    func testSymmetricAndAsymmetricInputQuantization() {
        var q = [Int8](repeating: 0, count: 4)
        let x: [Float] = [-2, 1, 0.5, 2]
        let scale = x.withUnsafeBufferPointer { xp in q.withUnsafeMutableBufferPointer { HybridQuantization.symmetric(xp.baseAddress!, count: 4, into: $0.baseAddress!) } }
        XCTAssertEqual(scale, 2 / 127)
        XCTAssertEqual(q, [-127, 64, 32, 127]) // 63.5 rounds away from zero → 64; 31.75 → 32
        // asymmetric over [0, 2.55]: scale 0.01, zero point -128 (min error side)
        let y: [Float] = [0, 1, 2.55, 0.005]
        let r = y.withUnsafeBufferPointer { yp in q.withUnsafeMutableBufferPointer { HybridQuantization.asymmetric(yp.baseAddress!, count: 4, into: $0.baseAddress!) } }
        XCTAssertEqual(r.offset, -128)
        XCTAssertEqual(r.scale, 0.01, accuracy: 1e-8)
        XCTAssertEqual(q[0], -128); XCTAssertEqual(q[2], 127); XCTAssertEqual(q[1], -28)
    }

    /// `Conv2DKernel.referenceHybrid` on arrays, no activation (per-tensor `scales` has one value).
    private func referenceHybrid(_ geo: ConvGeometry, input: [Float], filter: [Int8], scales: [Float], perChannel: Bool,
                                 bias: [Float]) -> [Float] {
        var expected = [Float](repeating: 0, count: geo.outputPixels * geo.outC)
        input.withUnsafeBufferPointer { ip in bias.withUnsafeBufferPointer { bp in
            expected.withUnsafeMutableBufferPointer { op in
                Conv2DKernel.referenceHybrid(g: geo, input: ip.baseAddress!, filter: filter,
                                             scales: perChannel ? scales : [Float](repeating: scales[0], count: geo.outC),
                                             perChannel: perChannel, bias: bp.baseAddress!, output: op.baseAddress!,
                                             act: (-.greatestFiniteMagnitude, .greatestFiniteMagnitude))
            }
        } }
        return expected
    }

    /// The integer GEMM path of hybrid convolutions: pointwise rows padded to the GEMM depth,
    /// im2col rows whose depth is already a multiple of 8, batches, both quantization modes.
    func testHybridConvIntegerPathsMatchReferenceLoops() throws {
        var rng = Rng(state: 31)
        for (k, c, oc, batch, perChannel) in [(1, 13, 20, 2, true), (1, 16, 9, 1, false), (3, 8, 33, 2, true), (3, 8, 12, 1, false)] {
            let h = 6, w = 5
            let input = rng.floats(batch * h * w * c).map { $0 * 3 + 0.5 }   // asymmetric range
            let filter: [Int8] = (0..<(oc * k * k * c)).map { _ in Int8(rng.int(255) - 127) }
            let bias = rng.floats(oc)
            let scales: [Float] = perChannel ? (0..<oc).map { Float($0 + 1) * 0.01 } : [0.02]
            var g = GraphBuilder()
            let x = g.input([batch, h, w, c])
            let wt = g.int8Constant(filter, shape: [oc, k, k, c], quantization: .init(scales: scales, zeroPoints: scales.map { _ in 0 }))
            g.outputs = g.op(.conv2D, [x, wt, g.constant(bias, shape: [oc])]) { $0.padding = .same }
            let r = try g.run([input], threads: 2)
            XCTAssertEqual(r.shape, [batch, h, w, oc])
            let pad = (k - 1) / 2
            let geo = ConvGeometry(window: WindowGeometry(batches: batch, inputHeight: h, inputWidth: w, outputHeight: h, outputWidth: w, filterHeight: k, filterWidth: k,
                                                          strideHeight: 1, strideWidth: 1, dilationHeight: 1, dilationWidth: 1, padTop: pad, padLeft: pad), inC: c, outC: oc)
            XCTAssertEqual(geo.isPointwise, k == 1)
            let expected = referenceHybrid(geo, input: input, filter: filter, scales: scales, perChannel: perChannel, bias: bias)
            XCTAssertEqual(r.values, expected, "k \(k) c \(c) oc \(oc) batch \(batch) perChannel \(perChannel)")
        }
    }

    /// Infinite or NaN activations reaching a hybrid kernel (its input range, scale and zero
    /// point become infinite or NaN) give some output, never a trap.
    func testHybridConvWithNonFiniteInputDoesNotTrap() throws {
        for perChannel in [false, true] {
            let scales: [Float] = perChannel ? [0.01, 0.02] : [0.02]
            var g = GraphBuilder()
            let x = g.input([1, 2, 2, 3])
            let wt = g.int8Constant([Int8](repeating: 3, count: 2 * 3), shape: [2, 1, 1, 3],
                                    quantization: .init(scales: scales, zeroPoints: scales.map { _ in 0 }))
            g.outputs = g.op(.conv2D, [x, wt])
            for bad: Float in [.infinity, -.infinity, .nan] {
                let r = try g.run([[1, bad, 2, 0, -1, 3, 0.5, 0.25, 4, 2, 2, 1]])
                XCTAssertEqual(r.values.count, 8)
            }
        }
    }

    func testHybridConvMatchesReferenceLoops() throws {
        var rng = Rng(state: 3)
        for perChannel in [false, true] {
            let h = 7, w = 6, c = 5, oc = 9, k = 3
            let input = rng.floats(h * w * c)
            let filter: [Int8] = (0..<(oc * k * k * c)).map { _ in Int8(rng.int(255) - 127) }
            let bias = rng.floats(oc)
            let scales: [Float] = perChannel ? (0..<oc).map { Float($0 + 1) * 0.01 } : [0.02]
            var g = GraphBuilder()
            let x = g.input([1, h, w, c])
            let wt = g.int8Constant(filter, shape: [oc, k, k, c], quantization: .init(scales: scales, zeroPoints: scales.map { _ in 0 }))
            g.outputs = g.op(.conv2D, [x, wt, g.constant(bias, shape: [oc])]) {
                $0.padding = .same; $0.strideWidth = 2; $0.strideHeight = 1
            }
            let (fast, shape) = try { let r = try g.run([input], threads: 2); return (r.values, r.shape) }()
            XCTAssertEqual(shape, [1, h, 3, oc])
            let geo = ConvGeometry(window: WindowGeometry(batches: 1, inputHeight: h, inputWidth: w, outputHeight: h, outputWidth: 3, filterHeight: k, filterWidth: k,
                                                          strideHeight: 1, strideWidth: 2, dilationHeight: 1, dilationWidth: 1, padTop: 1, padLeft: 0), inC: c, outC: oc)
            let expected = referenceHybrid(geo, input: input, filter: filter, scales: scales, perChannel: perChannel, bias: bias)
            XCTAssertEqual(fast, expected, "perChannel \(perChannel)")
            // And the result is close to the float convolution with dequantized weights.
            let wf: [Float] = filter.enumerated().map { Float($0.element) * scales[perChannel ? $0.offset / (k * k * c) : 0] }
            let (float, _) = try conv(input: input, inShape: [1, h, w, c], filter: wf, filterShape: [oc, k, k, c], bias: bias) {
                $0.padding = .same; $0.strideWidth = 2; $0.strideHeight = 1
            }
            // (quantization error: a few per cent of the magnitude)
            for i in 0..<float.count { XCTAssertEqual(fast[i], float[i], accuracy: 0.1 + 0.03 * abs(float[i])) }
        }
    }

    /// Every tier's hybrid conv (the byte GEMM at AVX-512, the `Int16` GEMM below) against the
    /// reference loops, bit for bit: SAME padding (taps holding 128 + offset), stride 2, depths
    /// not a multiple of 4 (pointwise and im2col), several batches with their own scales and
    /// offsets, and inputs whose asymmetric offset is −128 (all ≥ 0) or 127 (all ≤ 0).
    func testHybridConvEveryTierMatchesReferenceLoops() throws {
        var rng = Rng(state: 77)
        // (kernel, stride, channels, output channels, batches, per-channel, input sign: 1 ≥ 0, -1 ≤ 0, 0 mixed)
        let cases: [(Int, Int, Int, Int, Int, Bool, Float)] = [
            (3, 1, 5, 17, 2, true, 0), (3, 2, 7, 16, 3, true, 1), (3, 2, 6, 33, 2, true, -1), (1, 1, 13, 20, 2, true, 1),
            (1, 1, 3, 8, 1, true, -1), (1, 1, 16, 24, 2, false, 0), (3, 1, 16, 9, 2, false, 1), (1, 2, 12, 40, 1, true, 0),
            (5, 2, 4, 31, 1, false, -1), (3, 2, 32, 48, 1, true, 0),
        ]
        for (k, stride, c, oc, batch, perChannel, sign) in cases {
            let h = 9, w = 7
            var input = rng.floats(batch * h * w * c).map { $0 * 2.5 }
            if sign != 0 { input = input.map { abs($0) * sign } }
            // One batch at a different scale, so the batches' scales and offsets differ.
            for i in 0..<(h * w * c) { input[i] *= 0.3 }
            let filter: [Int8] = (0..<(oc * k * k * c)).map { _ in Int8(rng.int(256) - 128) }
            let bias = rng.floats(oc)
            let scales: [Float] = perChannel ? (0..<oc).map { Float($0 % 5 + 1) * 0.01 } : [0.02]
            var g = GraphBuilder()
            let x = g.input([batch, h, w, c])
            let wt = g.int8Constant(filter, shape: [oc, k, k, c], quantization: .init(scales: scales, zeroPoints: scales.map { _ in 0 }))
            g.outputs = g.op(.conv2D, [x, wt, g.constant(bias, shape: [oc])]) {
                $0.padding = .same; $0.strideWidth = stride; $0.strideHeight = stride
            }
            let outH = (h + stride - 1) / stride, outW = (w + stride - 1) / stride
            let padH = max(0, (outH - 1) * stride + k - h), padW = max(0, (outW - 1) * stride + k - w)
            let geo = ConvGeometry(window: WindowGeometry(batches: batch, inputHeight: h, inputWidth: w, outputHeight: outH, outputWidth: outW, filterHeight: k,
                                                          filterWidth: k, strideHeight: stride, strideWidth: stride, dilationHeight: 1, dilationWidth: 1,
                                                          padTop: padH / 2, padLeft: padW / 2), inC: c, outC: oc)
            let expected = referenceHybrid(geo, input: input, filter: filter, scales: scales, perChannel: perChannel, bias: bias)
            for tier in TierTesting.tiers {
                for threads in [1, 2] {
                    let r = try g.run([input], threads: threads, tier: tier)
                    XCTAssertEqual(r.shape, [batch, outH, outW, oc])
                    XCTAssertEqual(r.values, expected, "k \(k) stride \(stride) c \(c) oc \(oc) batch \(batch) " +
                                   "perChannel \(perChannel) sign \(sign) \(tier) threads \(threads)")
                }
            }
        }
    }

    /// The byte GEMM's correction on a hand-computed case: q = [5, −3] against w = [2, 4] with
    /// offset −1 feeds x' = [133, 125], Σx'w = 766, and (128 − 1)·Σw = 762 comes off: 4.
    func testHybridByteWeightsSumsAndCorrection() {
        let weights = Conv2DKernel.HybridByteWeights(raw: [2, 4, -128, 127, 1], outC: 1, k: 5)
        XCTAssertEqual(weights.weightSums, [6])
        let bytes = Conv2DKernel.HybridByteWeights(raw: [2, 4], outC: 1, k: 2)
        var c: [Int32] = [0]
        let x: [UInt8] = [133, 125, 7, 9]   // the depth padding (7, 9) meets weight 0
        bytes.panels.withUnsafeBufferPointer { w in
            IntegerGemm.multiplyBytes(a: x, lda: 4, packedB: w.baseAddress!, m: 1, n: 1, kPadded: 4, c: &c, ldc: 1,
                                      tier: InstructionSetTier.supported)
        }
        XCTAssertEqual(c[0], 766)
        XCTAssertEqual(c[0] - (128 - 1) * bytes.weightSums[0], 4)
    }

    func testHybridFullyConnectedSymmetricAndAsymmetric() throws {
        for asymmetric in [false, true] {
            var g = GraphBuilder()
            let x = g.input([1, 2])
            let w = g.int8Constant([1, 2, 3, 4], shape: [2, 2], quantization: .init(scales: [0.5], zeroPoints: [0]))
            g.outputs = g.op(.fullyConnected, [x, w, g.constant([1, 0], shape: [2])]) { $0.asymmetricQuantizeInputs = asymmetric }
            let v = try g.run([[1, -1]]).values
            // float: [1·0.5 − 1·1 + 1, 1.5 − 2] = [0.5, −0.5]; ±1 quantizes exactly in both schemes
            XCTAssertEqual(v[0], 0.5, accuracy: 1e-2, "asymmetric \(asymmetric)")
            XCTAssertEqual(v[1], -0.5, accuracy: 1e-2, "asymmetric \(asymmetric)")
        }
    }

    func testHybridDepthwisePerChannel() throws {
        var g = GraphBuilder()
        let x = g.input([1, 1, 2, 2])
        let w = g.int8Constant([10, -20, 30, 40], shape: [1, 1, 2, 2], quantization: .init(scales: [0.1, 0.05], zeroPoints: [0, 0], quantizedDimension: 3))
        g.outputs = g.op(.depthwiseConv2D, [x, w]) { $0.padding = .valid; $0.strideWidth = 1; $0.strideHeight = 1; $0.depthMultiplier = 1 }
        let v = try g.run([[2, 0, 0, 1]]).values
        // float weights [1, −1, 3, 2]: ch0 = 2·1 + 0·3 = 2, ch1 = 0·(−1) + 1·2 = 2
        XCTAssertEqual(v[0], 2, accuracy: 0.02)
        XCTAssertEqual(v[1], 2, accuracy: 0.02)
    }
}
