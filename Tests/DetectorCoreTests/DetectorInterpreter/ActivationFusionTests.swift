import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// A RELU after a conv or an ADD is folded into it: same outputs, one op fewer at invoke,
/// and never when the intermediate tensor can be observed.
final class ActivationFusionTests: XCTestCase {
    /// conv(x) → RELU6 and (conv + x) → RELU, the BlazeFace residual pattern.
    private func residualGraph() -> GraphBuilder {
        var g = GraphBuilder()
        let x = g.input([1, 3, 3, 2])
        var rng = SplitMix64(seed: 7)
        let w = g.constant((0..<16).map { _ in Float.random(in: -2...2, using: &rng) }, shape: [2, 2, 2, 2])
        let b = g.constant([0.25, -0.5], shape: [2])
        let conv = g.op(.conv2D, [x, w, b]) { $0.padding = .same }
        let relu6 = g.op(.relu6, conv)
        let sum = g.op(.add, [relu6[0], x])
        g.outputs = g.op(.relu, sum)
        return g
    }

    private func run(_ g: GraphBuilder, preserve: Bool, input: [Float]) throws -> (Interpreter, [Float]) {
        let interpreter = try Interpreter(graph: g.build(), options: .init(threadCount: 1, preserveAllTensors: preserve))
        try interpreter.copyInput(input, at: 0)
        try interpreter.invoke()
        return (interpreter, try interpreter.outputFloats(at: 0))
    }

    func testFusedAndUnfusedGraphsGiveIdenticalOutputs() throws {
        let g = residualGraph()
        let input: [Float] = (0..<18).map { Float($0 % 7) - 3.5 }
        let (fused, a) = try run(g, preserve: false, input: input)
        let (plain, b) = try run(g, preserve: true, input: input)
        XCTAssertEqual(a, b)
        XCTAssertEqual(fused.fusion.pairs.count, 2)
        XCTAssertEqual(plain.fusion.pairs.count, 0)
        XCTAssertEqual(fused.fusion.pairs.map(\.epilogue), [.activation(.relu6), .activation(.relu)])
        // Values are really clamped: some inputs are negative, no output is.
        XCTAssertTrue(a.allSatisfy { $0 >= 0 })
        XCTAssertTrue(a.contains { $0 > 0 })
        // The skipped ops have no kernel.
        XCTAssertNil(fused.kernels[1]); XCTAssertNil(fused.kernels[3])
    }

    func testAnIntermediateWithASecondReaderIsNotFused() throws {
        var g = GraphBuilder()
        let x = g.input([4])
        let y = g.constant([1, -1, 2, -2], shape: [4])
        let sum = g.op(.add, [x, y])
        let relu = g.op(.relu, sum)
        let other = g.op(.mul, [sum[0], relu[0]])
        g.outputs = other
        let (interpreter, out) = try run(g, preserve: false, input: [-3, 0.5, 1, -1])
        XCTAssertEqual(interpreter.fusion.pairs.count, 0)
        // sum = [-2, -0.5, 3, -3]; relu = [0, 0, 3, 0]; product:
        XCTAssertEqual(out, [0, 0, 9, 0])
    }

    func testAProducerThatAlreadyHasAnActivationIsNotFused() throws {
        var g = GraphBuilder()
        let x = g.input([3])
        let y = g.constant([1, 1, 1], shape: [3])
        let sum = g.op(.add, [x, y]) { $0.activation = .reluN1To1 }
        g.outputs = g.op(.relu6, sum)
        let (interpreter, out) = try run(g, preserve: false, input: [-5, -1.5, 3])
        XCTAssertEqual(interpreter.fusion.pairs.count, 0)
        XCTAssertEqual(out, [0, 0, 1])
    }

    func testSiLUWrittenAsLogisticAndMulIsOneOp() throws {
        for logisticFirst in [true, false] {
            var g = GraphBuilder()
            let x = g.input([2, 9])
            let s = g.op(.logistic, [x])
            g.outputs = g.op(.mul, logisticFirst ? [s[0], x] : [x, s[0]])
            let input: [Float] = (0..<18).map { Float($0) * 1.37 - 11 }
            let (fused, a) = try run(g, preserve: false, input: input)
            let (_, b) = try run(g, preserve: true, input: input)
            // One-step SiLU vs LOGISTIC then MUL (no hybrid kernels here: fast forms).
            for (u, v) in zip(a, b) { XCTAssertEqual(u, v, accuracy: 1e-6 * max(1, abs(v))) }
            XCTAssertEqual(fused.fusion.pairs.map(\.epilogue), [.multiplyByInput])
            XCTAssertNil(fused.kernels[1])
            for (v, x) in zip(a, input) {
                let expected = Double(x) / (1 + Foundation.exp(-Double(x)))
                XCTAssertEqual(Double(v), expected, accuracy: 1e-6 * max(1, abs(expected)))
            }
        }
    }

    func testALogisticReadElsewhereIsNotFusedIntoTheMul() throws {
        var g = GraphBuilder()
        let x = g.input([4])
        let s = g.op(.logistic, [x])
        let m = g.op(.mul, [x, s[0]])
        g.outputs = g.op(.add, [m[0], s[0]])
        let (interpreter, out) = try run(g, preserve: false, input: [0, 0, 0, 0])
        XCTAssertEqual(interpreter.fusion.pairs.count, 0)
        XCTAssertEqual(out, [0.5, 0.5, 0.5, 0.5])
    }

    /// conv → LOGISTIC → MUL(conv, LOGISTIC): the convolution writes the SiLU itself.
    private func convSiLUGraph(constantFilter: Bool, extraReader: Bool, hybrid: Bool = false) -> GraphBuilder {
        var g = GraphBuilder()
        let x = g.input([1, 5, 4, 3])
        var rng = SplitMix64(seed: 11)
        let weights = (0..<(6 * 3 * 3 * 3)).map { _ in Float.random(in: -1...1, using: &rng) }
        let w: Int
        if hybrid {
            w = g.int8Constant(weights.map { Int8($0 * 127) }, shape: [6, 3, 3, 3],
                               quantization: .init(scales: [1.0 / 127], zeroPoints: [0]))
        } else {
            w = constantFilter ? g.constant(weights, shape: [6, 3, 3, 3]) : g.input([6, 3, 3, 3])
        }
        let b = g.constant([0.5, -0.25, 0, 1, -1, 2], shape: [6])
        let conv = g.op(.conv2D, [x, w, b]) { $0.padding = .same }
        let s = g.op(.logistic, conv)
        let m = g.op(.mul, [s[0], conv[0]])
        g.outputs = extraReader ? g.op(.add, [m[0], conv[0]]) : m
        return g
    }

    private func runConvSiLU(_ g: GraphBuilder, preserve: Bool, constantFilter: Bool) throws -> (Interpreter, [Float]) {
        let interpreter = try Interpreter(graph: g.build(), options: .init(threadCount: 1, preserveAllTensors: preserve))
        try interpreter.copyInput((0..<60).map { Float($0 % 11) * 0.7 - 3 }, at: 0)
        if !constantFilter {
            var rng = SplitMix64(seed: 11)
            try interpreter.copyInput((0..<(6 * 3 * 3 * 3)).map { _ in Float.random(in: -1...1, using: &rng) }, at: 1)
        }
        try interpreter.invoke()
        return (interpreter, try interpreter.outputFloats(at: 0))
    }

    func testSiLUAfterAConvolutionMovesIntoTheConvolution() throws {
        for (constantFilter, hybrid) in [(true, false), (false, false), (true, true)] {
            let g = convSiLUGraph(constantFilter: constantFilter, extraReader: false, hybrid: hybrid)
            let (fused, a) = try runConvSiLU(g, preserve: false, constantFilter: constantFilter)
            let (plain, b) = try runConvSiLU(g, preserve: true, constantFilter: constantFilter)
            XCTAssertEqual(plain.fusion.pairs.count, 0)
            XCTAssertEqual(fused.fusion.pairs.map(\.epilogue), [.silu, .silu])
            XCTAssertEqual(fused.fusion.pairs.map(\.activationOp).sorted(), [1, 2])
            XCTAssertNil(fused.kernels[1]); XCTAssertNil(fused.kernels[2])
            XCTAssertEqual(a.count, 5 * 4 * 6)
            XCTAssertTrue(a.contains { $0 < -0.01 } && a.contains { $0 > 1 }, "SiLU of both signs")
            if hybrid {
                // Graphs with hybrid kernels: LOGISTIC's and MUL's own roundings.
                XCTAssertEqual(a, b)
            } else {
                for (u, v) in zip(a, b) { XCTAssertEqual(u, v, accuracy: 1e-6 * max(1, abs(v))) }
            }
        }
    }

    func testAConvolutionOutputReadOutsideTheSiLUKeepsItsOwnBuffer() throws {
        let g = convSiLUGraph(constantFilter: true, extraReader: true)
        let (fused, a) = try runConvSiLU(g, preserve: false, constantFilter: true)
        let (_, b) = try runConvSiLU(g, preserve: true, constantFilter: true)
        // Only the LOGISTIC/MUL pair is fused; the convolution output is still x.
        XCTAssertEqual(fused.fusion.pairs.map(\.epilogue), [.multiplyByInput])
        XCTAssertNotNil(fused.kernels[0]); XCTAssertNotNil(fused.kernels[1]); XCTAssertNil(fused.kernels[2])
        for (u, v) in zip(a, b) { XCTAssertEqual(u, v, accuracy: 1e-6 * max(1, abs(v))) }
    }

    // MARK: - Residual ADD folded into the convolution

    /// x → conv (`kernel`×`kernel`, 32 → 32, no activation) → ADD with `other` (in either
    /// operand order) → RELU; `other` is a second graph input of shape `otherShape`.
    private func residualAddGraph(kernel: Int, convFirst: Bool, otherShape: [Int] = [1, 16, 16, 32], hybrid: Bool = false) -> GraphBuilder {
        var g = GraphBuilder()
        let x = g.input([1, 16, 16, 32])
        let other = g.input(otherShape)
        var rng = SplitMix64(seed: 23)
        let weights = (0..<(32 * kernel * kernel * 32)).map { _ in Float.random(in: -0.3...0.3, using: &rng) }
        let w = hybrid
            ? g.int8Constant(weights.map { Int8(($0 * 400).rounded()) }, shape: [32, kernel, kernel, 32],
                             quantization: .init(scales: [1.0 / 400], zeroPoints: [0]))
            : g.constant(weights, shape: [32, kernel, kernel, 32])
        let b = g.constant((0..<32).map { Float($0 % 5) * 0.1 - 0.2 }, shape: [32])
        let conv = g.op(.conv2D, [x, w, b]) { $0.padding = .same }
        let sum = g.op(.add, convFirst ? [conv[0], other] : [other, conv[0]])
        g.outputs = g.op(.relu, sum)
        return g
    }

    private func runResidual(_ g: GraphBuilder, preserve: Bool, threads: Int, otherCount: Int = 16 * 16 * 32) throws -> (Interpreter, [Float]) {
        let interpreter = try Interpreter(graph: g.build(), options: .init(threadCount: threads, preserveAllTensors: preserve))
        let x: [Float] = (0..<(16 * 16 * 32)).map { (i: Int) -> Float in Float((i * 7) % 23) * 0.13 - 1.4 }
        let other: [Float] = (0..<otherCount).map { (i: Int) -> Float in Float((i * 5) % 19) * 0.21 - 2 }
        try interpreter.copyInput(x, at: 0)
        try interpreter.copyInput(other, at: 1)
        try interpreter.invoke()
        return (interpreter, try interpreter.outputFloats(at: 0))
    }

    /// A same-shape ADD after a convolution without activation is done by the convolution (1×1:
    /// per chunk of GEMM rows; 3×3 and int8 weights: over its output), the RELU after the ADD
    /// with it: the same bits as the three ops, at 1 and 2 threads, in either operand order.
    func testResidualAddMovesIntoTheConvolution() throws {
        for (kernel, hybrid) in [(1, false), (3, false), (1, true)] {
            for convFirst in [true, false] {
                let g = residualAddGraph(kernel: kernel, convFirst: convFirst, hybrid: hybrid)
                let (_, plain) = try runResidual(g, preserve: true, threads: 1)
                XCTAssertTrue(plain.contains { $0 == 0 } && plain.contains { $0 > 0.5 }, "clamped and positive values")
                for threads in [1, 2] {
                    let (fused, a) = try runResidual(g, preserve: false, threads: threads)
                    let label = "kernel \(kernel) hybrid \(hybrid) convFirst \(convFirst) threads \(threads)"
                    XCTAssertEqual(a, plain, label)
                    XCTAssertNotNil(fused.kernels[0], label)
                    XCTAssertNil(fused.kernels[1], label); XCTAssertNil(fused.kernels[2], label)
                    XCTAssertEqual(fused.fusion.override(0), .residual(.init(tensor: 1, outputFirst: convFirst, activation: .relu)), label)
                }
            }
        }
    }

    /// An ADD that broadcasts (the other operand is one pixel) stays an op, with its RELU.
    func testABroadcastResidualAddStaysAnOp() throws {
        let g = residualAddGraph(kernel: 1, convFirst: true, otherShape: [1, 1, 1, 32])
        let (fused, a) = try runResidual(g, preserve: false, threads: 2, otherCount: 32)
        let (_, plain) = try runResidual(g, preserve: true, threads: 1, otherCount: 32)
        XCTAssertEqual(a, plain)
        XCTAssertNil(fused.fusion.override(0))
        XCTAssertEqual(fused.fusion.override(1), .activation(.relu))
        XCTAssertNotNil(fused.kernels[1]); XCTAssertNil(fused.kernels[2])
    }

    /// ADD(conv₁(x), conv₂(x)): conv₂'s output is not ready when conv₁ runs, so the ADD goes
    /// into conv₂, which reads conv₁'s output.
    func testAResidualComputedLaterGoesIntoTheLaterConvolution() throws {
        var g = GraphBuilder()
        let x = g.input([1, 8, 8, 16])
        var rng = SplitMix64(seed: 5)
        let w1 = g.constant((0..<(16 * 16)).map { _ in Float.random(in: -0.5...0.5, using: &rng) }, shape: [16, 1, 1, 16])
        let w2 = g.constant((0..<(16 * 16)).map { _ in Float.random(in: -0.5...0.5, using: &rng) }, shape: [16, 1, 1, 16])
        let c1 = g.op(.conv2D, [x, w1, -1])
        let c2 = g.op(.conv2D, [x, w2, -1])
        g.outputs = g.op(.add, [c1[0], c2[0]])
        func run(_ preserve: Bool) throws -> (Interpreter, [Float]) {
            let interpreter = try Interpreter(graph: g.build(), options: .init(threadCount: 1, preserveAllTensors: preserve))
            let x: [Float] = (0..<(8 * 8 * 16)).map { (i: Int) -> Float in Float((i * 3) % 17) * 0.1 - 0.8 }
            try interpreter.copyInput(x, at: 0)
            try interpreter.invoke()
            return (interpreter, try interpreter.outputFloats(at: 0))
        }
        let (fused, a) = try run(false)
        let (_, b) = try run(true)
        XCTAssertEqual(a, b)
        XCTAssertNil(fused.fusion.override(0))
        XCTAssertEqual(fused.fusion.override(1), .residual(.init(tensor: c1[0], outputFirst: false, activation: .none)))
        XCTAssertNil(fused.kernels[2])
    }

    // MARK: - The skip path scheduled ahead of the convolution (`ResidualScheduling`)

    /// BlazeFace's block: conv(x) → c; channel PAD(s) → r (after the conv in the model); ADD(c, r);
    /// RELU. With `skipReadsLater`, the PAD reads a RELU of x computed after the conv, so it cannot
    /// move on its own and the ADD stays an op.
    private func skipPadGraph(skipReadsLater: Bool) -> GraphBuilder {
        var g = GraphBuilder()
        let x = g.input([1, 16, 16, 32])
        let s = g.input([1, 16, 16, 24])
        var rng = SplitMix64(seed: 41)
        let w = g.constant((0..<(32 * 32)).map { _ in Float.random(in: -0.3...0.3, using: &rng) }, shape: [32, 1, 1, 32])
        let conv = g.op(.conv2D, [x, w, -1])
        let skip = skipReadsLater ? g.op(.relu, [s])[0] : s
        let paddings = g.intConstant([0, 0, 0, 0, 0, 0, 0, 8], shape: [4, 2])
        let r = g.op(.pad, [skip, paddings])
        let sum = g.op(.add, [conv[0], r[0]])
        g.outputs = g.op(.relu, sum)
        return g
    }

    private func runSkipPad(_ g: GraphBuilder, preserve: Bool, threads: Int) throws -> (Interpreter, [Float]) {
        let interpreter = try Interpreter(graph: g.build(), options: .init(threadCount: threads, preserveAllTensors: preserve))
        try interpreter.copyInput((0..<(16 * 16 * 32)).map { (i: Int) -> Float in Float((i * 7) % 23) * 0.13 - 1.4 }, at: 0)
        try interpreter.copyInput((0..<(16 * 16 * 24)).map { (i: Int) -> Float in Float((i * 5) % 19) * 0.21 - 2 }, at: 1)
        try interpreter.invoke()
        return (interpreter, try interpreter.outputFloats(at: 0))
    }

    /// The PAD moves ahead of the convolution (op 0 now), the ADD and RELU go into the
    /// convolution (op 1): the same bits as the model's order, at 1 and 2 threads.
    func testASkipPathAfterTheConvolutionRunsFirstAndTheAddIsFused() throws {
        let g = skipPadGraph(skipReadsLater: false)
        let (plain, b) = try runSkipPad(g, preserve: true, threads: 1)
        XCTAssertEqual(plain.graph.operators.map(\.code), [.conv2D, .pad, .add, .relu], "the model's order under preserveAllTensors")
        XCTAssertTrue(b.contains { $0 == 0 } && b.contains { $0 > 0.5 }, "clamped and positive values")
        for threads in [1, 2] {
            let (fused, a) = try runSkipPad(g, preserve: false, threads: threads)
            XCTAssertEqual(fused.graph.operators.map(\.code), [.pad, .conv2D, .add, .relu])
            XCTAssertEqual(a, b, "threads \(threads)")
            guard case .residual(let r)? = fused.fusion.override(1) else { return XCTFail("ADD not folded into the convolution") }
            XCTAssertEqual(r.activation, .relu)
            XCTAssertNil(fused.kernels[2]); XCTAssertNil(fused.kernels[3])
        }
    }

    /// A skip path whose op reads something computed after the convolution keeps its place;
    /// the ADD runs as an op.
    func testASkipPathDependingOnLaterOpsKeepsItsPlace() throws {
        let g = skipPadGraph(skipReadsLater: true)
        let (fused, a) = try runSkipPad(g, preserve: false, threads: 2)
        let (_, b) = try runSkipPad(g, preserve: true, threads: 1)
        XCTAssertEqual(fused.graph.operators.map(\.code), [.conv2D, .relu, .pad, .add, .relu])
        XCTAssertEqual(a, b)
        XCTAssertNil(fused.fusion.override(0))
        XCTAssertNotNil(fused.kernels[3])
    }
}
