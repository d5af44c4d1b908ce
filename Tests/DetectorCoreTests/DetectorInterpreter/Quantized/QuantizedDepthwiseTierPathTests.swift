import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The tier quantized depthwise kernel (`QuantizedDepthwiseTierPath`, `TierQuantizedDepthwise`)
/// against the plain reference loop, byte for byte, over the shapes its paths split on:
/// stride 1 (the flat lane vector, shared weights when 16 is a multiple of the channel count)
/// and 2 (4 pixels × 16 channels), channel counts around the 16-lane blocks, windows cut by
/// every border, both padding modes, 3×3 and 5×5, fused clamps, 1 and 2 threads, every tier.
final class QuantizedDepthwiseTierPathTests: XCTestCase {
    private static let channelCounts = [1, 8, 15, 16, 17, 32, 33, 64, 100]

    private func check<T: QuantizedElement>(_: T.Type, seed: UInt64) throws {
        var rng = TestRandom(seed: seed)
        let perChannel = T.self == Int8.self
        var tierPathRuns = 0
        for channels in Self.channelCounts { for stride in [1, 2] { for same in [true, false] { for filter in [3, 5] {
            for tier in TierTesting.tiers {
                // Wide enough that the interior runs cross the 4-pixel and 64-lane steps at one channel.
                let h = rng.int(5...9), w = channels < 8 ? rng.int(66...80) : rng.int(6...14)
                let dilation = rng.int(0...5) == 0 ? 2 : 1
                guard let g = WindowGeometry(batches: rng.int(1...2), inputHeight: h, inputWidth: w,
                                                      filterHeight: filter, filterWidth: filter, strideHeight: stride,
                                                      strideWidth: stride, dilationHeight: dilation, dilationWidth: dilation,
                                                      samePadding: same) else { continue }
                let input = (0..<g.batches * h * w * channels).map { _ in
                    T(truncatingIfNeeded: rng.int(Int(T.quantizedMin)...Int(T.quantizedMax)))
                }
                let weights = (0..<filter * filter * channels).map { _ in
                    T(truncatingIfNeeded: rng.int(Int(T.quantizedMin)...Int(T.quantizedMax)))
                }
                let bias = (0..<channels).map { _ in Int32(rng.int(-30000...30000)) }
                // Zero points at the bottom of the range in a quarter of the cases (the largest shifted
                // values), centred otherwise; output scales that keep the sums mostly unsaturated.
                let extreme = rng.int(0...3) == 0
                let middle = Int(T.quantizedMin) + 128
                let zx = Int32(extreme ? Int(T.quantizedMin) : rng.int(middle - 30...middle + 30))
                let scales = perChannel ? (0..<channels).map { _ in Float(rng.int(1...100)) * 0.0002 } : [Float(0.01)]
                let zw: [Int32] = perChannel ? [0] : [Int32(rng.int(100...155))]
                let qi = QuantizationParams(scale: 0.02, zeroPoint: zx)
                let qo = QuantizationParams(scale: 0.02 * scales[0] * Float(filter) * (extreme ? 300 : 100),
                                            zeroPoint: Int32(rng.int(middle - 20...middle + 20)))
                let activation: QuantizedFusedActivation = rng.int(0...1) == 0 ? .none : .relu6
                let p = try XCTUnwrap(weights.withUnsafeBufferPointer { f in bias.withUnsafeBufferPointer { b in
                    QuantizedDepthwiseConvParams(geometry: g, inputDepth: channels, depthMultiplier: 1, input: qi, output: qo,
                                                 filter: f, filterScales: scales, filterZeroPoints: zw, bias: b,
                                                 activation: activation, outputType: T.self, floatProductMultiplier: !perChannel,
                                                 tier: tier)
                } })
                XCTAssertNotNil(p.tierPath, "every tier, the baseline too, runs its build of the kernel")
                if p.tierPath != nil { tierPathRuns += 1 }
                let expected = reference(p, input)
                for threads in [1, 2] {
                    // Pre-filled with a value the reference never wrote there, so an unwritten output shows.
                    var out = expected.map { $0 == 1 ? T(truncatingIfNeeded: 2) : T(truncatingIfNeeded: 1) }
                    input.withUnsafeBufferPointer { x in out.withUnsafeMutableBufferPointer {
                        QuantizedDepthwiseConv2D.run(p, input: x.baseAddress!, output: $0.baseAddress!, threads: threads)
                    } }
                    XCTAssertEqual(out, expected, "\(T.self) \(tier) \(g.batches)x\(h)x\(w)x\(channels) \(filter)x\(filter) s\(stride) "
                                   + "d\(dilation) \(same ? "same" : "valid") \(activation) zx \(zx), \(threads) threads")
                }
                if expected.count >= 200, activation == .none { XCTAssertGreaterThan(Set(expected.map { Int($0) }).count, 10, "output is degenerate") }
            }
        } } } }
        XCTAssertGreaterThan(tierPathRuns, 0)
    }

    private func reference<T: QuantizedElement>(_ p: QuantizedDepthwiseConvParams, _ input: [T]) -> [T] {
        let g = p.geometry
        var out = [T](repeating: 0, count: g.batches * g.outputHeight * g.outputWidth * p.outputDepth)
        input.withUnsafeBufferPointer { x in out.withUnsafeMutableBufferPointer { QuantizedDepthwiseConv2D.reference(p, input: x.baseAddress!, output: $0.baseAddress!) } }
        return out
    }

    func testUint8PerTensorMatchesReference() throws { try check(UInt8.self, seed: 41) }

    func testInt8PerChannelMatchesReference() throws { try check(Int8.self, seed: 42) }

    /// A hand-computed case: 1×3×3×1 input, 3×3 filter, SAME padding, so the centre output
    /// has every tap and the corners four; uint8 with zero points 1 (input) and 2 (filter).
    func testHandComputedCornerAndCentre() throws {
        let g = try XCTUnwrap(WindowGeometry(batches: 1, inputHeight: 3, inputWidth: 3, filterHeight: 3, filterWidth: 3,
                                                      strideHeight: 1, strideWidth: 1, samePadding: true))
        let input: [UInt8] = [2, 3, 4, 5, 6, 7, 8, 9, 10]      // x − 1 = 1…9
        let filter: [UInt8] = [3, 3, 3, 3, 4, 3, 3, 3, 3]      // w − 2 = 1, centre 2
        for tier in TierTesting.tiers {
            // Scales make the real multiplier 1/2: output = round(sum / 2) (half away from zero).
            let p = try XCTUnwrap(filter.withUnsafeBufferPointer { f in
                QuantizedDepthwiseConvParams(geometry: g, inputDepth: 1, depthMultiplier: 1,
                                             input: QuantizationParams(scale: 0.5, zeroPoint: 1),
                                             output: QuantizationParams(scale: 1, zeroPoint: 0), filter: f, filterScales: [1],
                                             filterZeroPoints: [2], bias: nil, activation: .none, outputType: UInt8.self, tier: tier)
            })
            var out = [UInt8](repeating: 0, count: 9)
            input.withUnsafeBufferPointer { x in out.withUnsafeMutableBufferPointer { QuantizedDepthwiseConv2D.run(p, input: x.baseAddress!, output: $0.baseAddress!) } }
            // Top-left: 1·2 + 2 + 4 + 5 = 13 → 6.5 → 7; centre: 45 + 5 = 50 → 25; bottom-right: 5 + 6 + 8 + 9·2 = 37 → 18.5 → 19.
            XCTAssertEqual(out[0], 7, "\(tier)")
            XCTAssertEqual(out[4], 25, "\(tier)")
            XCTAssertEqual(out[8], 19, "\(tier)")
        }
    }
}
