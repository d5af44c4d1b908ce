import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The fast quantized CONV_2D / FULLY_CONNECTED / DEPTHWISE_CONV_2D paths against their plain
/// reference implementations on random shapes wide enough to cross the GEMM's panel, register-tile
/// and row-tile boundaries, for uint8 per-tensor and int8 per-channel, pointwise and windowed.
final class QuantizedConvFastPathTests: XCTestCase {
    /// An output scale that keeps typical sums of `depth` products inside the output range,
    /// so the comparison sees real requantized values rather than saturation.
    private func outputScale(input: Float, filter: Float, depth: Int) -> Float {
        input * filter * Float(depth).squareRoot() * 90
    }

    private func convCase<T: QuantizedElement, W: QuantizedElement>(
        _ rng: inout TestRandom, _: T.Type, _: W.Type, perChannel: Bool, pointwise: Bool, trial: Int
    ) throws {
        let h = rng.int(1...13), w = rng.int(1...13), cin = rng.int(1...37), cout = rng.int(1...41)
        let fh = pointwise ? 1 : rng.int(1...4), fw = pointwise ? 1 : rng.int(1...4)
        let s = pointwise ? 1 : rng.int(1...2), d = pointwise ? 1 : rng.int(1...2)
        guard let g = WindowGeometry(batches: rng.int(1...2), inputHeight: h, inputWidth: w,
                                              filterHeight: fh, filterWidth: fw, strideHeight: s, strideWidth: s,
                                              dilationHeight: d, dilationWidth: d,
                                              samePadding: !pointwise && trial % 2 == 0) else { return }
        let input = (0..<g.batches * h * w * cin).map { _ in T(truncatingIfNeeded: rng.int(Int(T.quantizedMin)...Int(T.quantizedMax))) }
        let filter = (0..<cout * fh * fw * cin).map { _ in W(truncatingIfNeeded: rng.int(Int(W.quantizedMin)...Int(W.quantizedMax))) }
        let bias = (0..<cout).map { _ in Int32(rng.int(-20000...20000)) }
        // Zero points near the middle of the range keep the shifted values centred (full-range
        // zero points are covered by IntegerGemmTests' small cases).
        let zeroPoint = { (r: inout TestRandom, e: any QuantizedElement.Type) in
            Int32(r.int(Int(e.quantizedMin) + 100...Int(e.quantizedMax) - 100))
        }
        let qi = QuantizationParams(scale: 0.02, zeroPoint: zeroPoint(&rng, T.self))
        let scales = perChannel ? (0..<cout).map { _ in Float(rng.int(1...100)) * 0.0002 } : [Float(0.011)]
        let zps: [Int32] = perChannel ? [0] : [zeroPoint(&rng, W.self)]
        // Every 10th trial: a real multiplier above 1 (left shift, the scalar requantization path).
        let leftShift = trial % 10 == 9
        let qo = QuantizationParams(scale: leftShift ? 0.02 * scales.min()! * 0.4 : outputScale(input: 0.02, filter: scales[0], depth: fh * fw * cin),
                                    zeroPoint: zeroPoint(&rng, T.self))
        let activation: QuantizedFusedActivation = [.none, .relu, .relu6][trial % 3]
        let p = try XCTUnwrap(filter.withUnsafeBufferPointer { f in bias.withUnsafeBufferPointer { b in
            QuantizedConvParams(geometry: g, inputDepth: cin, outputDepth: cout, input: qi, output: qo, filter: f,
                                filterScales: scales, filterZeroPoints: zps, bias: b, activation: activation,
                                outputType: T.self, floatProductMultiplier: !perChannel,
                                tier: TierTesting.tiers[trial % TierTesting.tiers.count])
        } })
        let count = g.batches * g.outputHeight * g.outputWidth * cout
        let (fast, ref) = Self.fastAndReference(count: count, input: input,
                                                fast: { QuantizedConv2D.run(p, input: $0, output: $1, threads: 1 + trial % 2) },
                                                reference: { QuantizedConv2D.reference(p, filter: filter, filterZeroPoints: zps, input: $0, output: $1) })
        XCTAssertEqual(fast, ref, "conv \(T.self) trial \(trial): \(g.batches)x\(h)x\(w)x\(cin) -> \(cout), filter \(fh)x\(fw) s\(s) d\(d)")
        XCTAssertEqual(p.vectorRequantization == nil, leftShift)
        if count >= 50, !leftShift { XCTAssertGreaterThan(Set(ref.map { Int($0) }).count, 3, "conv trial \(trial) output is degenerate") }
    }

    func testConvUint8PerTensorMatchesReference() throws {
        var rng = TestRandom(seed: 11)
        for trial in 0..<30 { try convCase(&rng, UInt8.self, UInt8.self, perChannel: false, pointwise: trial % 3 == 0, trial: trial) }
    }

    func testConvInt8PerChannelMatchesReference() throws {
        var rng = TestRandom(seed: 12)
        for trial in 0..<30 { try convCase(&rng, Int8.self, Int8.self, perChannel: true, pointwise: trial % 3 == 0, trial: trial) }
    }

    func testConvOnLargeLayerMatchesReference() throws {
        // Enough pixels for several row tiles per thread, depth and channels past several panels.
        let g = try XCTUnwrap(WindowGeometry(batches: 1, inputHeight: 23, inputWidth: 21, filterHeight: 3, filterWidth: 3,
                                                      strideHeight: 1, strideWidth: 1, samePadding: true))
        var rng = TestRandom(seed: 13)
        let cin = 45, cout = 70
        let input = (0..<23 * 21 * cin).map { _ in Int8(truncatingIfNeeded: rng.int(-128...127)) }
        let filter = (0..<cout * 9 * cin).map { _ in Int8(truncatingIfNeeded: rng.int(-127...127)) }
        let scales = (0..<cout).map { _ in Float(rng.int(1...100)) * 0.0002 }
        let qi = QuantizationParams(scale: 0.02, zeroPoint: -3)
        let qo = QuantizationParams(scale: outputScale(input: 0.02, filter: 0.01, depth: 9 * cin), zeroPoint: 5)
        let p = try XCTUnwrap(filter.withUnsafeBufferPointer { f in
            QuantizedConvParams(geometry: g, inputDepth: cin, outputDepth: cout, input: qi, output: qo, filter: f,
                                filterScales: scales, filterZeroPoints: [0], bias: nil, activation: .none, outputType: Int8.self)
        })
        let count = 23 * 21 * cout
        var ref = [Int8](repeating: 2, count: count)
        input.withUnsafeBufferPointer { x in
            ref.withUnsafeMutableBufferPointer { QuantizedConv2D.reference(p, filter: filter, filterZeroPoints: [0], input: x.baseAddress!, output: $0.baseAddress!) }
        }
        for threads in [1, 2, 3] {
            var fast = [Int8](repeating: 1, count: count)
            input.withUnsafeBufferPointer { x in
                fast.withUnsafeMutableBufferPointer { QuantizedConv2D.run(p, input: x.baseAddress!, output: $0.baseAddress!, threads: threads) }
            }
            XCTAssertEqual(fast, ref, "threads \(threads)")
        }
    }

    func testFullyConnectedMatchesReference() throws {
        var rng = TestRandom(seed: 14)
        for trial in 0..<12 {
            let batches = rng.int(1...9), depth = rng.int(1...90), units = rng.int(1...30)
            let input = (0..<batches * depth).map { _ in UInt8(rng.int(0...255)) }
            let weights = (0..<units * depth).map { _ in UInt8(rng.int(0...255)) }
            let bias = (0..<units).map { _ in Int32(rng.int(-5000...5000)) }
            let qi = QuantizationParams(scale: 0.03, zeroPoint: Int32(rng.int(0...255)))
            let qo = QuantizationParams(scale: outputScale(input: 0.03, filter: 0.01, depth: depth), zeroPoint: Int32(rng.int(0...255)))
            let filterZeroPoint = Int32(rng.int(0...255))
            let p = try XCTUnwrap(weights.withUnsafeBufferPointer { f in bias.withUnsafeBufferPointer { b in
                QuantizedFullyConnected.params(batches: batches, inputDepth: depth, units: units, input: qi, output: qo,
                                               filter: f, filterScales: [0.01], filterZeroPoints: [filterZeroPoint],
                                               bias: b, activation: .none, outputType: UInt8.self,
                                               tier: TierTesting.tiers[trial % TierTesting.tiers.count])
            } })
            var fast = [UInt8](repeating: 1, count: batches * units), ref = [UInt8](repeating: 2, count: batches * units)
            input.withUnsafeBufferPointer { x in
                fast.withUnsafeMutableBufferPointer { QuantizedFullyConnected.run(p, input: x.baseAddress!, output: $0.baseAddress!) }
                ref.withUnsafeMutableBufferPointer { QuantizedConv2D.reference(p, filter: weights, filterZeroPoints: [filterZeroPoint], input: x.baseAddress!, output: $0.baseAddress!) }
            }
            XCTAssertEqual(fast, ref, "fully connected trial \(trial)")
        }
    }

    private func depthwiseCase<T: QuantizedElement>(_ rng: inout TestRandom, _: T.Type, trial: Int) throws {
        let h = rng.int(1...11), w = rng.int(1...11), cin = rng.int(1...37)
        let dm = trial % 4 == 3 ? rng.int(2...3) : 1
        let fh = rng.int(1...5), fw = rng.int(1...5), s = rng.int(1...2), d = rng.int(1...2)
        guard let g = WindowGeometry(batches: rng.int(1...2), inputHeight: h, inputWidth: w,
                                              filterHeight: fh, filterWidth: fw, strideHeight: s, strideWidth: s,
                                              dilationHeight: d, dilationWidth: d, samePadding: trial % 2 == 0) else { return }
        let od = cin * dm
        let perChannel = T.self == Int8.self
        let input = (0..<g.batches * h * w * cin).map { _ in T(truncatingIfNeeded: rng.int(Int(T.quantizedMin)...Int(T.quantizedMax))) }
        let filter = (0..<fh * fw * od).map { _ in T(truncatingIfNeeded: rng.int(Int(T.quantizedMin)...Int(T.quantizedMax))) }
        let bias = (0..<od).map { _ in Int32(rng.int(-20000...20000)) }
        // Extreme zero points in some trials (the largest shifted magnitudes), centred otherwise.
        let extreme = trial % 5 == 0
        let zx = Int32(extreme ? Int(T.quantizedMin) - (T.self == UInt8.self ? 128 : 0) : Int(T.quantizedMin) + 128)
        let scales = perChannel ? (0..<od).map { _ in Float(rng.int(1...100)) * 0.0002 } : [Float(0.01)]
        let zw: [Int32] = perChannel ? [0] : [Int32(rng.int(100...155))]
        let qi = QuantizationParams(scale: 0.02, zeroPoint: zx)
        let qo = QuantizationParams(scale: outputScale(input: 0.02, filter: scales[0], depth: fh * fw) * (extreme ? 30 : 1),
                                    zeroPoint: Int32(Int(T.quantizedMin) + 128))
        let p = try XCTUnwrap(filter.withUnsafeBufferPointer { f in bias.withUnsafeBufferPointer { b in
            QuantizedDepthwiseConvParams(geometry: g, inputDepth: cin, depthMultiplier: dm, input: qi, output: qo, filter: f,
                                         filterScales: scales, filterZeroPoints: zw, bias: b, activation: trial % 3 == 0 ? .relu : .none,
                                         outputType: T.self, floatProductMultiplier: !perChannel,
                                         tier: TierTesting.tiers[trial % TierTesting.tiers.count])
        } })
        let count = g.batches * g.outputHeight * g.outputWidth * od
        let (fast, ref) = Self.fastAndReference(count: count, input: input,
                                                fast: { QuantizedDepthwiseConv2D.run(p, input: $0, output: $1, threads: 1 + trial % 2) },
                                                reference: { QuantizedDepthwiseConv2D.reference(p, input: $0, output: $1) })
        XCTAssertEqual(fast, ref, "depthwise \(T.self) trial \(trial): \(g.batches)x\(h)x\(w)x\(cin) dm \(dm), filter \(fh)x\(fw) s\(s) d\(d)")
        if count >= 50 { XCTAssertGreaterThan(Set(ref.map { Int($0) }).count, 2, "depthwise trial \(trial) output is degenerate") }
    }

    func testDepthwiseUint8MatchesReference() throws {
        var rng = TestRandom(seed: 15)
        for trial in 0..<30 { try depthwiseCase(&rng, UInt8.self, trial: trial) }
    }

    func testDepthwiseInt8PerChannelMatchesReference() throws {
        var rng = TestRandom(seed: 16)
        for trial in 0..<30 { try depthwiseCase(&rng, Int8.self, trial: trial) }
    }

    func testVectorRequantizationMatchesScalarSteps() throws {
        // Multipliers across the whole exponent range (shared and per-channel shifts), sums with
        // the Int32 extremes, zero points and clamps as the kernels see them.
        var rng = TestRandom(seed: 17)
        let sums: [Int32] = [0, 1, -1, 2, -2, .max, .min, .min + 1, 1 << 30, -(1 << 30), 1 << 22, -(1 << 22)]
        for trial in 0..<400 {
            // Channel counts below and above the 16 lanes of the wide tiers, every tier in turn.
            let n = rng.int(1...40)
            let tier = TierTesting.tiers[trial % TierTesting.tiers.count]
            var multipliers = (0..<n).map { _ in QuantizedMultiplier(Double(rng.int(1...1_000_000)) * pow(2, -Double(rng.int(1...45)))) }
            multipliers = multipliers.map { QuantizedMultiplier(multiplier: $0.multiplier, shift: min($0.shift, 0)) }
            if trial % 2 == 0 { multipliers = multipliers.map { QuantizedMultiplier(multiplier: $0.multiplier, shift: multipliers[0].shift) } }
            if trial % 7 == 0 { multipliers[0] = QuantizedMultiplier(multiplier: 0, shift: 0) }
            let bias = (0..<n).map { _ in trial % 3 == 0 ? Int32(truncatingIfNeeded: rng.next()) : Int32(rng.int(-5000...5000)) }
            let zp = Int32(rng.int(-128...255)), lo = Int32(rng.int(0...100)), hi = Int32(rng.int(150...255))
            let v = try XCTUnwrap(VectorRequantization(multipliers: multipliers, bias: bias, outputZeroPoint: zp,
                                                       activationMin: lo, activationMax: hi, tier: tier))
            let acc = (0..<n).map { _ in rng.int(0...2) == 0 ? sums[rng.int(0...sums.count - 1)] : Int32(truncatingIfNeeded: rng.next() >> UInt64(rng.int(0...40))) }
            var out = [UInt8](repeating: 0, count: n)
            acc.withUnsafeBufferPointer { a in out.withUnsafeMutableBufferPointer { o in
                VectorRequantization.withRows(v) { $0!.apply(a.baseAddress!, count: n, output: o.baseAddress!) }
            } }
            let expected = (0..<n).map { c in UInt8.clamped(RequantizationStep(multipliers[c]).apply(acc[c] &+ bias[c]) &+ zp, lo, hi) }
            XCTAssertEqual(out, expected, "trial \(trial) \(tier)")
        }
        XCTAssertNil(VectorRequantization(multipliers: [QuantizedMultiplier(3.0)], bias: [0], outputZeroPoint: 0,
                                          activationMin: 0, activationMax: 255), "left shifts stay on the scalar path")
    }

    /// Outputs of a fast path and its reference on the same input (pre-filled differently, so
    /// an unwritten value shows).
    static func fastAndReference<T: QuantizedElement>(count: Int, input: [T],
                                                      fast: (UnsafePointer<T>, UnsafeMutablePointer<T>) -> Void,
                                                      reference: (UnsafePointer<T>, UnsafeMutablePointer<T>) -> Void) -> ([T], [T]) {
        var a = [T](repeating: 1, count: count), b = [T](repeating: 2, count: count)
        input.withUnsafeBufferPointer { x in
            a.withUnsafeMutableBufferPointer { fast(x.baseAddress!, $0.baseAddress!) }
            b.withUnsafeMutableBufferPointer { reference(x.baseAddress!, $0.baseAddress!) }
        }
        return (a, b)
    }
}
