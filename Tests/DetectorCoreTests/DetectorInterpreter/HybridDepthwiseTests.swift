import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Hybrid DEPTHWISE_CONV_2D (float input, per-channel int8 filter) on the float path: bit for bit
/// `referenceHybrid` (the runtime's loops), at every tier and thread count, since its sums of
/// 8-bit products are integers that float32 holds exactly.
final class HybridDepthwiseTests: XCTestCase {
    func testFloatPathEqualsReferenceHybridBitForBit() throws {
        var rng = SplitMix64(seed: 27)
        func float() -> Float { Float(rng.below(2001)) / 1000 - 1 }
        // (batch, height, width, channels, kernel, stride, dilation): wide rows reach the tier
        // interior, odd channel counts the 8- and 4-lane tails.
        var shapes = [(1, 33, 40, 64, 3, 1, 1), (2, 9, 37, 19, 3, 2, 1), (1, 12, 12, 5, 5, 1, 2), (1, 7, 6, 33, 1, 1, 1)]
        for _ in 0..<8 {
            shapes.append((1 + rng.below(2), 1 + rng.below(12), 1 + rng.below(12), 1 + rng.below(40),
                           1 + rng.below(5), 1 + rng.below(2), 1 + rng.below(2)))
        }
        for (trial, (batch, h, w, c, k, stride, dilation)) in shapes.enumerated() {
            let input = (0..<(batch * h * w * c)).map { _ in float() * 3 }
            let weights = (0..<(k * k * c)).map { _ in Int8(truncatingIfNeeded: rng.below(256) - 128) }
            let scales = (0..<c).map { _ in (float() + 1.5) / 100 }
            let bias = (0..<c).map { _ in float() }
            let relu6 = trial % 2 == 1
            var g = GraphBuilder()
            let x = g.input([batch, h, w, c])
            let wt = g.int8Constant(weights, shape: [1, k, k, c],
                                    quantization: .init(scales: scales, zeroPoints: [Int64](repeating: 0, count: c), quantizedDimension: 3))
            let bt = g.constant(bias, shape: [c])
            g.outputs = g.op(.depthwiseConv2D, [x, wt, bt]) {
                $0.padding = .same; $0.strideWidth = stride; $0.strideHeight = stride; $0.depthMultiplier = 1
                $0.dilationWidthFactor = dilation; $0.dilationHeightFactor = dilation
                if relu6 { $0.activation = .relu6 }
            }
            for tier in TierTesting.tiers {
                for threads in [1, 2] {
                    let interpreter = try Interpreter(graph: g.build(), options: .init(threadCount: threads, tier: tier))
                    let kernel = try XCTUnwrap(interpreter.kernels[0] as? DepthwiseConv2DKernel)
                    XCTAssertNotNil(kernel.hybridFloatFilter, "trial \(trial)")
                    try interpreter.copyInput(input, at: 0)
                    try interpreter.invoke()
                    let fast = try interpreter.outputFloats(at: 0)
                    var expected = [Float](repeating: .nan, count: fast.count)
                    input.withUnsafeBufferPointer { ip in bias.withUnsafeBufferPointer { bp in
                        expected.withUnsafeMutableBufferPointer { op in
                            guard let i = ip.baseAddress, let o = op.baseAddress else { return }
                            DepthwiseConv2DKernel.referenceHybrid(g: kernel.g, multiplier: 1, input: i, filter: weights, scales: scales,
                                                                  bias: bp.baseAddress, output: o, act: kernel.act)
                        }
                    } }
                    XCTAssertEqual(fast.map(\.bitPattern), expected.map(\.bitPattern),
                                   "trial \(trial): \(batch)×\(h)×\(w)×\(c), \(k)×\(k) stride \(stride) dilation \(dilation), \(tier), \(threads) threads")
                }
            }
        }
    }
}
