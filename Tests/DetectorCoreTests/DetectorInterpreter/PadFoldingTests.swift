import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorModelFile
@testable import DetectorInterpreter

/// A PAD read only by a VALID convolution with 8-bit weights is folded into it (`PadFolding`):
/// the bytes are those of the PAD then the VALID convolution (the graph run with
/// `preserveAllTensors`, which folds nothing), at every tier and thread count; the cases it
/// must leave alone keep their PAD.
final class PadFoldingTests: XCTestCase {
    /// Runs `graph` with the given feeds; output 0's bytes and whether op `pad` was folded.
    private func run(_ graph: InterpreterGraph, feeds: [[UInt8]], pad: Int, preserve: Bool, threads: Int,
                     tier: InstructionSetTier) throws -> (bytes: [UInt8], folded: Bool) {
        let interpreter = try Interpreter(graph: graph, options: .init(threadCount: threads, preserveAllTensors: preserve, tier: tier))
        for (i, f) in feeds.enumerated() { try interpreter.copyInput(f, at: i) }
        try interpreter.invoke()
        return (try interpreter.outputBytes(at: 0), interpreter.isFoldedAtPrepare(operator: pad))
    }

    /// Folded (or not, as `expectFolded`) and identical to the unfolded graph everywhere.
    private func check(_ graph: InterpreterGraph, feeds: [[UInt8]], pad: Int, expectFolded: Bool, _ label: String) throws {
        for tier in TierTesting.tiers {
            let reference = try run(graph, feeds: feeds, pad: pad, preserve: true, threads: 1, tier: tier)
            XCTAssertFalse(reference.folded, "\(label): folded under preserveAllTensors")
            XCTAssertGreaterThan(Set(reference.bytes).count, 4, "\(label): degenerate output")
            for threads in [1, 2] {
                let r = try run(graph, feeds: feeds, pad: pad, preserve: false, threads: threads, tier: tier)
                XCTAssertEqual(r.folded, expectFolded, "\(label) \(tier) \(threads) threads")
                let differing = zip(r.bytes, reference.bytes).filter { $0 != $1 }.count
                XCTAssertTrue(r.bytes.count == reference.bytes.count && differing == 0,
                              "\(label) \(tier) \(threads) threads: \(differing) of \(reference.bytes.count) bytes differ")
            }
        }
    }

    private static func paddings(_ top: Int32, _ bottom: Int32, _ left: Int32, _ right: Int32, channels: Int32 = 0) -> [Int32] {
        [0, 0, top, bottom, left, right, 0, channels]
    }

    /// Float input → PAD → CONV_2D with int8 weights (hybrid), or float weights when `floatFilter`.
    private func hybridGraph(input: [Int], outC: Int, kernel: Int, stride: Int, paddings: [Int32], floatFilter: Bool = false,
                             padding: OperatorParameters.Padding = .valid, padIsOutput: Bool = false, seed: UInt64) -> InterpreterGraph {
        var rng = SplitMix64(seed: seed)
        var g = GraphBuilder()
        let x = g.input(input)
        let p = g.intConstant(paddings, shape: [4, 2])
        let padded = g.op(.pad, [x, p])[0]
        let inC = input[3], count = outC * kernel * kernel * inC
        let w: Int
        if floatFilter {
            w = g.constant((0..<count).map { _ in Float.random(in: -1...1, using: &rng) }, shape: [outC, kernel, kernel, inC])
        } else {
            let scales = (0..<outC).map { _ in Float.random(in: 0.002...0.02, using: &rng) }
            w = g.int8Constant((0..<count).map { _ in Int8.random(in: -127...127, using: &rng) }, shape: [outC, kernel, kernel, inC],
                               quantization: TensorQuantization(scales: scales, zeroPoints: [Int64](repeating: 0, count: outC)))
        }
        let b = g.constant((0..<outC).map { _ in Float.random(in: -0.5...0.5, using: &rng) }, shape: [outC])
        let y = g.op(.conv2D, [padded, w, b]) { $0.strideHeight = stride; $0.strideWidth = stride; $0.padding = padding }
        g.outputs = padIsOutput ? [y[0], padded] : y
        return g.build()
    }

    private func floatFeed(_ shape: [Int], seed: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        // Positive and negative values: the hybrid input range then spans 0 on both sides.
        let values = (0..<Shape.count(shape)).map { _ in Float.random(in: -2...3, using: &rng) }
        return values.withUnsafeBytes { Array($0) }
    }

    func testHybridConvolutionsTakeThePad() throws {
        // Depth 8: the byte GEMM reads filter rows from the padded byte copy; depth 3: im2col rows.
        for (k, (input, stride, pads)) in [([1, 9, 11, 8], 2, Self.paddings(1, 1, 1, 1)),
                                           ([1, 10, 7, 8], 1, Self.paddings(0, 2, 2, 1)),
                                           ([1, 12, 12, 3], 2, Self.paddings(1, 1, 1, 1)),
                                           ([2, 6, 5, 4], 2, Self.paddings(2, 0, 0, 1))].enumerated() {
            let graph = hybridGraph(input: input, outC: 24, kernel: 3, stride: stride, paddings: pads, seed: UInt64(10 + k))
            try check(graph, feeds: [floatFeed(input, seed: UInt64(20 + k))], pad: 0, expectFolded: true, "hybrid \(input) stride \(stride)")
        }
        // An all-positive input: the PAD's zeros would be the minimum, which the range includes anyway.
        var rng = SplitMix64(seed: 5)
        let positive = (0..<9 * 11 * 8).map { _ in Float.random(in: 0.5...3, using: &rng) }.withUnsafeBytes { Array($0) }
        try check(hybridGraph(input: [1, 9, 11, 8], outC: 16, kernel: 3, stride: 2, paddings: Self.paddings(1, 1, 1, 1), seed: 6),
                  feeds: [positive], pad: 0, expectFolded: true, "hybrid positive input")
    }

    func testQuantizedConvolutionsTakeThePad() throws {
        var rng = SplitMix64(seed: 77)
        // int8 CONV_2D, per-channel filter, stride 2.
        do {
            var g = QuantizedGraph()
            let qx = QuantizedGraph.q(0.05, -3)
            let x = g.input([1, 9, 9, 8], .int8, qx)
            let p = g.constant(Self.paddings(1, 1, 1, 1), shape: [4, 2], .int32)
            let padded = g.tensors.count
            g.tensors.append(GraphTensor(name: "padded", type: .int8, shape: [0], quantization: qx))
            g.op(.pad, [x, p], [padded])
            let scales = (0..<16).map { _ in Float.random(in: 0.002...0.01, using: &rng) }
            let w = g.constant((0..<16 * 9 * 8).map { _ in Int8.random(in: -127...127, using: &rng) }, shape: [16, 3, 3, 8], .int8,
                               TensorQuantization(scales: scales, zeroPoints: [Int64](repeating: 0, count: 16)))
            let b = g.constant((0..<16).map { _ in Int32.random(in: -2000...2000, using: &rng) }, shape: [16], .int32)
            let y = g.output(.int8, QuantizedGraph.q(0.08, 2))
            g.op(.conv2D, [padded, w, b], [y]) { $0.strideHeight = 2; $0.strideWidth = 2; $0.padding = .valid }
            let feed = (0..<9 * 9 * 8).map { _ in UInt8.random(in: 0...255, using: &rng) }
            try check(InterpreterGraph(tensors: g.tensors, operators: g.operators, inputs: g.inputs, outputs: g.outputs),
                      feeds: [feed], pad: 0, expectFolded: true, "int8 conv")
        }
        // uint8 DEPTHWISE_CONV_2D, uneven padding, stride 1.
        do {
            var g = QuantizedGraph()
            let qx = QuantizedGraph.q(0.02, 120)
            let x = g.input([1, 8, 10, 16], .uint8, qx)
            let p = g.constant(Self.paddings(2, 1, 1, 2), shape: [4, 2], .int32)
            let padded = g.tensors.count
            g.tensors.append(GraphTensor(name: "padded", type: .uint8, shape: [0], quantization: qx))
            g.op(.pad, [x, p], [padded])
            let w = g.constant((0..<9 * 16).map { _ in UInt8.random(in: 0...255, using: &rng) }, shape: [1, 3, 3, 16], .uint8,
                               QuantizedGraph.q(0.01, 128))
            let b = g.constant((0..<16).map { _ in Int32.random(in: -500...500, using: &rng) }, shape: [16], .int32)
            let y = g.output(.uint8, QuantizedGraph.q(0.03, 100))
            g.op(.depthwiseConv2D, [padded, w, b], [y]) { $0.padding = .valid; $0.depthMultiplier = 1 }
            let feed = (0..<8 * 10 * 16).map { _ in UInt8.random(in: 0...255, using: &rng) }
            try check(InterpreterGraph(tensors: g.tensors, operators: g.operators, inputs: g.inputs, outputs: g.outputs),
                      feeds: [feed], pad: 0, expectFolded: true, "uint8 depthwise")
        }
    }

    func testPadsThatMustRunStay() throws {
        let input = [1, 9, 11, 8], feed = floatFeed(input, seed: 3)
        let cases: [(InterpreterGraph, String)] = [
            (hybridGraph(input: input, outC: 16, kernel: 3, stride: 2, paddings: Self.paddings(1, 1, 1, 1), floatFilter: true, seed: 1),
             "float filter"),
            (hybridGraph(input: input, outC: 16, kernel: 3, stride: 2, paddings: Self.paddings(1, 1, 1, 1), padIsOutput: true, seed: 1),
             "PAD output is a graph output"),
            (hybridGraph(input: input, outC: 16, kernel: 3, stride: 1, paddings: Self.paddings(1, 1, 1, 1), padding: .same, seed: 1),
             "SAME convolution"),
            (hybridGraph(input: input, outC: 16, kernel: 3, stride: 2, paddings: Self.paddings(3, 0, 1, 1), seed: 1),
             "padding past the filter's reach"),
        ]
        for (graph, label) in cases { try check(graph, feeds: [feed], pad: 0, expectFolded: false, label) }
    }

    /// Paddings from a malformed file (huge or negative) are not folded and fail prepare with an
    /// error naming the op, never a trap in the fold's or the geometry's arithmetic.
    func testAbsurdPaddingsFailPrepareWithoutTrapping() {
        var g = GraphBuilder()
        let x = g.input([1, 9, 11, 8])
        let p = g.constantBytes([Int64](arrayLiteral: 0, 0, 1 << 62, 1 << 62, 1, 1, 0, 0).withUnsafeBytes { Array($0) },
                                shape: [4, 2], type: .int64)
        let padded = g.op(.pad, [x, p])[0]
        let w = g.int8Constant([Int8](repeating: 3, count: 16 * 9 * 8), shape: [16, 3, 3, 8],
                               quantization: TensorQuantization(scales: [Float](repeating: 0.01, count: 16),
                                                                zeroPoints: [Int64](repeating: 0, count: 16)))
        g.outputs = g.op(.conv2D, [padded, w, -1]) { $0.strideHeight = 2; $0.strideWidth = 2; $0.padding = .valid }
        XCTAssertThrowsError(try Interpreter(graph: g.build())) { error in
            XCTAssertTrue("\(error)".contains("PAD"), "\(error)")
        }
        var h = GraphBuilder()
        let y = h.input([1, 9, 11, 8])
        let q = h.intConstant([0, 0, -1, 1, 1, 1, 0, 0], shape: [4, 2])
        let paddedY = h.op(.pad, [y, q])[0]
        let w2 = h.int8Constant([Int8](repeating: 3, count: 16 * 9 * 8), shape: [16, 3, 3, 8],
                                quantization: TensorQuantization(scales: [Float](repeating: 0.01, count: 16),
                                                                 zeroPoints: [Int64](repeating: 0, count: 16)))
        h.outputs = h.op(.conv2D, [paddedY, w2, -1]) { $0.padding = .valid }
        XCTAssertThrowsError(try Interpreter(graph: h.build())) { error in
            XCTAssertTrue("\(error)".contains("negative padding"), "\(error)")
        }
    }
}
