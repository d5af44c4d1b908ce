import XCTest
@testable import DetectorInterpreter
@testable import DetectorModelFile

/// A float16 filter dequantized at prepare and packed by the convolutions that read it: the
/// float32 copy is released after its last reader packs it (not before), kept when it is a
/// graph output or when the graph asks to keep every tensor, and the results are the 1×1
/// convolution sums written out here.
final class PackedConstantReleaseTests: XCTestCase {
    /// input [1, 2, 2, 2] → two 1×1 convolutions (3 output channels each) on the same
    /// float16 filter; outputs: both convolutions, and optionally the float32 filter itself.
    private func graph(filterIsOutput: Bool) -> (GraphBuilder, filter: Int) {
        var g = GraphBuilder()
        let x = g.input([1, 2, 2, 2])
        let weights: [Float16] = [1, 2, -1, 0.5, 3, -2]        // [3, 1, 1, 2], OHWI
        let half = g.constantBytes(weights.map(\.bitPattern).withUnsafeBytes { Array($0) }, shape: [3, 1, 1, 2], type: .float16)
        let filter = g.op(.dequantize, [half])[0]
        let bias = g.constant([0, 0, 0], shape: [3])
        let a = g.op(.conv2D, [x, filter, bias]) { $0.strideHeight = 1; $0.strideWidth = 1 }[0]
        let b = g.op(.conv2D, [x, filter, bias]) { $0.strideHeight = 1; $0.strideWidth = 1; $0.activation = .relu }[0]
        g.outputs = filterIsOutput ? [a, b, filter] : [a, b]
        return (g, filter)
    }

    private let input: [Float] = [1, 2, 3, 4, -1, -2, 0.5, 0.25]

    /// out[p, o] = Σ_c in[p, c] · w[o, c].
    private func expected(relu: Bool) -> [Float] {
        let w: [[Float]] = [[1, 2], [-1, 0.5], [3, -2]]
        var out: [Float] = []
        for p in 0..<4 { for o in 0..<3 {
            let v = input[2 * p] * w[o][0] + input[2 * p + 1] * w[o][1]
            out.append(relu ? max(0, v) : v)
        } }
        return out
    }

    func testTheFloat32FilterIsReleasedAfterItsLastReaderPacksIt() throws {
        let (g, filter) = graph(filterIsOutput: false)
        let interpreter = try Interpreter(graph: g.build())
        XCTAssertNil(interpreter.tensorBytes(filter), "the packed float32 filter is still held")
        XCTAssertEqual(interpreter.foldedByteCount, 0)
        try interpreter.copyInput(input, at: 0)
        try interpreter.invoke()
        XCTAssertEqual(try interpreter.outputFloats(at: 0), expected(relu: false))
        XCTAssertEqual(try interpreter.outputFloats(at: 1), expected(relu: true))
    }

    func testAFilterThatIsAGraphOutputOrPreservedStays() throws {
        let (g, filter) = graph(filterIsOutput: true)
        let interpreter = try Interpreter(graph: g.build())
        XCTAssertNotNil(interpreter.tensorBytes(filter))
        XCTAssertEqual(interpreter.foldedByteCount, 6 * 4)
        try interpreter.copyInput(input, at: 0)
        try interpreter.invoke()
        XCTAssertEqual(try interpreter.outputFloats(at: 2), [1, 2, -1, 0.5, 3, -2])
        XCTAssertEqual(try interpreter.outputFloats(at: 0), expected(relu: false))

        let (h, hidden) = graph(filterIsOutput: false)
        let preserving = try Interpreter(graph: h.build(), options: .init(preserveAllTensors: true))
        XCTAssertNotNil(preserving.tensorBytes(hidden))
        try preserving.copyInput(input, at: 0)
        try preserving.invoke()
        XCTAssertEqual(try preserving.outputFloats(at: 1), expected(relu: true))
    }
}
