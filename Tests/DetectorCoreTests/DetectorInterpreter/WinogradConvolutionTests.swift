import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Winograd F(2×2, 3×3) against the plain convolution loop: random shapes (odd and even
/// sizes, SAME and VALID, channel counts that are and are not multiples of 8, batches,
/// 1 and 2 threads, fused activations), and the transforms on a case computed by hand.
final class WinogradConvolutionTests: XCTestCase {
    private typealias Rng = ConvolutionKernelTests.Rng

    /// Runs CONV_2D through the interpreter; returns the output and whether Winograd ran.
    private func conv(input: [Float], shape: [Int], filter: [Float], outC: Int, bias: [Float], same: Bool,
                      activation: OperatorParameters.Activation, threads: Int) throws -> ([Float], Bool) {
        var g = GraphBuilder()
        let x = g.input(shape)
        let w = g.constant(filter, shape: [outC, 3, 3, shape[3]])
        let b = g.constant(bias, shape: [outC])
        g.outputs = g.op(.conv2D, [x, w, b]) { $0.padding = same ? .same : .valid; $0.activation = activation }
        let interpreter = try Interpreter(graph: g.build(), options: .init(threadCount: threads))
        try interpreter.copyInput(input, at: 0)
        try interpreter.invoke()
        var winograd = false
        if let kernel = interpreter.kernels[0] as? Conv2DKernel, case .winograd = kernel.mode { winograd = true }
        return (try interpreter.outputFloats(at: 0), winograd)
    }

    private func reference(input: [Float], shape: [Int], filter: [Float], outC: Int, bias: [Float], same: Bool,
                           act: (min: Float, max: Float)) -> [Float] {
        let (batch, h, w, c) = (shape[0], shape[1], shape[2], shape[3])
        let outH = same ? h : h - 2, outW = same ? w : w - 2
        let g = ConvGeometry(window: WindowGeometry(batches: batch, inputHeight: h, inputWidth: w, outputHeight: outH, outputWidth: outW,
                                                    filterHeight: 3, filterWidth: 3, strideHeight: 1, strideWidth: 1, dilationHeight: 1, dilationWidth: 1,
                                                    padTop: same ? 1 : 0, padLeft: same ? 1 : 0), inC: c, outC: outC)
        var out = [Float](repeating: 0, count: batch * outH * outW * outC)
        input.withUnsafeBufferPointer { ip in filter.withUnsafeBufferPointer { fp in bias.withUnsafeBufferPointer { bp in
            out.withUnsafeMutableBufferPointer { op in
                Conv2DKernel.referenceFloat(g: g, groups: 1, input: ip.baseAddress!, filter: fp.baseAddress!, bias: bp.baseAddress!,
                                            output: op.baseAddress!, act: act)
            }
        } } }
        return out
    }

    func testMatchesTheReferenceLoopOnRandomShapes() throws {
        var rng = Rng(state: 2026)
        var worst: Float = 0
        for trial in 0..<40 {
            let same = rng.int(3) != 0
            let h = (same ? 2 : 4) + rng.int(15), w = (same ? 2 : 4) + rng.int(15)
            let c = 48 + rng.int(40), oc = 48 + rng.int(40), batch = 1 + rng.int(2)
            let activation: OperatorParameters.Activation = [.none, .relu, .relu6][rng.int(3)]
            let shape = [batch, h, w, c]
            let input = rng.floats(batch * h * w * c), filter = rng.floats(oc * 9 * c), bias = rng.floats(oc)
            let (fast, winograd) = try conv(input: input, shape: shape, filter: filter, outC: oc, bias: bias, same: same,
                                            activation: activation, threads: 1 + trial % 2)
            XCTAssertTrue(winograd, "trial \(trial)")
            let expected = reference(input: input, shape: shape, filter: filter, outC: oc, bias: bias, same: same,
                                     act: KernelSupport.activationRange(activation))
            XCTAssertEqual(fast.count, expected.count)
            // Sums of up to 9·87 products of values in [-1, 1]: rounding differences stay far
            // below 1e-4; a wrong tap or transform coefficient would be off by ~0.1 or more.
            for (u, v) in zip(fast, expected) {
                worst = max(worst, abs(u - v) / max(1, abs(v)))
                XCTAssertEqual(u, v, accuracy: 1e-4, "trial \(trial) \(shape) → \(oc) same \(same)")
            }
            if activation == .relu6 { XCTAssertTrue(fast.allSatisfy { $0 >= 0 && $0 <= 6 }) }
        }
        // Float rounding of a ~400-term sum: a few ulp of the largest partial sums.
        XCTAssertLessThan(worst, 3e-5)
        print("[winograd] worst |Δ| / max(1, |ref|) = \(worst)")
    }

    func testOneChannelPatternComputedByHand() throws {
        // 48 channels (the fewest the Winograd path takes, at 48 outputs), the plane on channel 0;
        // a filter that is 1 at (0, 0) and 2·(o + 1) at (2, 2) on channel 0 only, so
        // out[y][x] = in[y-1][x-1] + 2·(o + 1)·in[y+1][x+1] (SAME, zeros outside).
        let h = 3, w = 4, c = 48, oc = 48
        var input = [Float](repeating: 0, count: h * w * c)
        for y in 0..<h { for x in 0..<w { input[(y * w + x) * c] = Float(y * 10 + x) } }
        var filter = [Float](repeating: 0, count: oc * 9 * c)
        for o in 0..<oc {
            filter[((o * 3 + 0) * 3 + 0) * c] = 1
            filter[((o * 3 + 2) * 3 + 2) * c] = 2 * Float(o + 1)
        }
        let (out, winograd) = try conv(input: input, shape: [1, h, w, c], filter: filter, outC: oc,
                                       bias: [Float](repeating: 0.5, count: oc), same: true, activation: .none, threads: 1)
        XCTAssertTrue(winograd)
        func pixel(_ y: Int, _ x: Int) -> Float { y < 0 || y >= h || x < 0 || x >= w ? 0 : Float(y * 10 + x) }
        for y in 0..<h {
            for x in 0..<w {
                for o in 0..<oc {
                    let expected = pixel(y - 1, x - 1) + 2 * Float(o + 1) * pixel(y + 1, x + 1) + 0.5
                    XCTAssertEqual(out[(y * w + x) * oc + o], expected, accuracy: 1e-4, "y \(y) x \(x) o \(o)")
                }
            }
        }
    }

    func testSmallChannelCountsAndStridesKeepTheGEMMPath() throws {
        var g = GraphBuilder()
        let x = g.input([1, 6, 6, 4])
        let w = g.constant([Float](repeating: 0.5, count: 16 * 9 * 4), shape: [16, 3, 3, 4])
        g.outputs = g.op(.conv2D, [x, w]) { $0.padding = .same }
        let interpreter = try Interpreter(graph: g.build())
        let kernel = try XCTUnwrap(interpreter.kernels[0] as? Conv2DKernel)
        if case .winograd = kernel.mode { XCTFail("4 input channels should not take the Winograd path") }
    }

    /// The Winograd path only where its transforms cost less than the multiplications they save:
    /// `inC·outC ≥ b·(inC + outC)`, b = 24 at AVX2 and AVX-512 (measured on the AMD EPYC Zen 4:
    /// 16 → 16 channels on 160×160 4× slower than the GEMM, 32 → 32 about 10% slower, 64 → 64 1.7×
    /// faster), 12 at the baseline, whose 8-lane GEMM is slower against the transforms.
    func testWinogradOnlyWithEnoughChannels() throws {
        func takesWinograd(_ inC: Int, _ outC: Int, _ tier: InstructionSetTier) throws -> Bool {
            var g = GraphBuilder()
            let x = g.input([1, 6, 6, inC])
            let w = g.constant([Float](repeating: 0.5, count: outC * 9 * inC), shape: [outC, 3, 3, inC])
            g.outputs = g.op(.conv2D, [x, w]) { $0.padding = .same }
            let interpreter = try Interpreter(graph: g.build(), options: .init(tier: tier))
            let kernel = try XCTUnwrap(interpreter.kernels[0] as? Conv2DKernel)
            if case .winograd = kernel.mode { return true }
            return false
        }
        for tier in TierTesting.tiers where tier != .baseline {
            XCTAssertFalse(try takesWinograd(16, 16, tier))
            XCTAssertFalse(try takesWinograd(32, 32, tier))
            XCTAssertFalse(try takesWinograd(16, 256, tier))   // 4096 < 24 · 272
            XCTAssertTrue(try takesWinograd(48, 48, tier))     // 2304 = 24 · 96
            XCTAssertTrue(try takesWinograd(64, 64, tier))
            XCTAssertTrue(try takesWinograd(32, 128, tier))    // 4096 ≥ 24 · 160
        }
        XCTAssertFalse(try takesWinograd(16, 16, .baseline))    // 256 < 12 · 32
        XCTAssertFalse(try takesWinograd(12, 16, .baseline))
        XCTAssertTrue(try takesWinograd(24, 24, .baseline))     // 576 = 12 · 48
        XCTAssertTrue(try takesWinograd(32, 32, .baseline))
    }

    /// In a graph with hybrid kernels a float 3×3 convolution keeps the GEMM (reference
    /// summation order): its output may be quantized on the fly downstream.
    func testGraphsWithHybridKernelsKeepReferenceRounding() throws {
        var g = GraphBuilder()
        let x = g.input([1, 6, 6, 8])
        let w = g.constant((0..<(8 * 9 * 8)).map { Float($0 % 7) * 0.1 - 0.3 }, shape: [8, 3, 3, 8])
        let conv = g.op(.conv2D, [x, w]) { $0.padding = .same }
        let q = g.int8Constant((0..<(4 * 8)).map { Int8($0 % 9 - 4) }, shape: [4, 1, 1, 8],
                               quantization: .init(scales: [0.05], zeroPoints: [0]))
        let hybrid = g.op(.conv2D, [conv[0], q])
        g.outputs = g.op(.logistic, hybrid)
        let interpreter = try Interpreter(graph: g.build())
        XCTAssertTrue(interpreter.roundsLikeReference)
        let kernel = try XCTUnwrap(interpreter.kernels[0] as? Conv2DKernel)
        guard case .gemm = kernel.mode else { return XCTFail("expected the GEMM path, got \(kernel.mode)") }
        // LOGISTIC keeps the reference formula's rounding too; without hybrid kernels it is the fast form.
        let logistic = try XCTUnwrap(interpreter.kernels[2] as? UnaryFloatKernel)
        guard case .logistic = logistic.function else { return XCTFail("\(logistic.function)") }
        var plain = GraphBuilder()
        let y = plain.input([4])
        plain.outputs = plain.op(.logistic, [y])
        let fast = try XCTUnwrap(try Interpreter(graph: plain.build()).kernels[0] as? UnaryFloatKernel)
        guard case .fastLogistic = fast.function else { return XCTFail("\(fast.function)") }
    }
}
