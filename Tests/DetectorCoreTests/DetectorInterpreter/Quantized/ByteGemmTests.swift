import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The u8 × s8 byte GEMM (`vpdpbusd` at AVX-512) against its plain reference, the algebra of
/// `QuantizedByteWeights` on a hand-computed case, and the quantized convolution's byte path
/// against the reference kernel at every tier.
final class ByteGemmTests: XCTestCase {
    /// `multiplyBytes` on `[m][k]` A and `[n][k]` B, A rows padded with `rowPad` (any value: B's
    /// depth padding is 0), into a row stride of n + 1 whose last column must stay untouched.
    private func fastGemm(_ a: [UInt8], _ b: [Int8], m: Int, n: Int, k: Int, tier: InstructionSetTier, rowPad: UInt8,
                          rowWeights: [Int32]? = nil) -> [Int32] {
        let kp = IntegerGemm.paddedByteDepth(k)
        var padded = [UInt8](repeating: rowPad, count: m * kp)
        for i in 0..<m { for q in 0..<k { padded[i * kp + q] = a[i * k + q] } }
        let panels = b.withUnsafeBufferPointer { IntegerGemm.packBytes($0, n: n, k: k) }
        // Padded to whole panels of 16 as the kernel reads them; the padding must not matter.
        let r = rowWeights.map { $0 + [Int32](repeating: 99, count: (n + 15) / 16 * 16 - n) } ?? []
        return GemmTestSupport.stridedOutput(m: m, n: n, tier: tier) { c, ldc in
            padded.withUnsafeBufferPointer { ap in panels.withUnsafeBufferPointer { bp in r.withUnsafeBufferPointer { rp in
                IntegerGemm.multiplyBytes(a: ap.baseAddress!, lda: kp, packedB: bp.baseAddress!, m: m, n: n, kPadded: kp,
                                          rowWeights: rowWeights == nil ? nil : rp.baseAddress, c: c, ldc: ldc, tier: tier)
            } } }
        }
    }

    func testByteGemmHandComputed() {
        // [1 2 3; 255 0 7] x [4 -5 6; -128 1 2]^T = [[12, -120], [1062, -32626]]
        for tier in TierTesting.tiers {
            XCTAssertEqual(fastGemm([1, 2, 3, 255, 0, 7], [4, -5, 6, -128, 1, 2], m: 2, n: 2, k: 3, tier: tier, rowPad: 9),
                           [12, -120, 1062, -32626], "\(tier)")
        }
    }

    func testByteGemmMatchesReferenceOnRandomShapes() {
        var rng = TestRandom(seed: 4242)
        for trial in 0..<60 {
            // m not a multiple of the 8-row tile, n below and across the 16-channel panels, k odd or not a multiple of 4.
            let m = rng.int(1...21), n = trial % 4 == 0 ? rng.int(1...15) : rng.int(1...50), k = rng.int(1...75)
            let a = (0..<m * k).map { _ in UInt8(rng.int(0...255)) }
            let b = (0..<n * k).map { _ in Int8(rng.int(-128...127)) }
            let ref = GemmTestSupport.reference(a, b, m: m, n: n, k: k)
            // The row correction: C[i][j] - r_j · Σ_q A[i][q] (A's row padding must then be 0).
            let r = (0..<n).map { _ in Int32(rng.int(-255...255)) }
            let corrected = (0..<m * n).map { e in
                ref[e] &- r[e % n] &* a[(e / n) * k..<(e / n + 1) * k].reduce(Int32(0)) { $0 &+ Int32($1) }
            }
            for tier in TierTesting.tiers {
                XCTAssertEqual(fastGemm(a, b, m: m, n: n, k: k, tier: tier, rowPad: UInt8(trial % 256)), ref,
                               "m=\(m) n=\(n) k=\(k) \(tier)")
                XCTAssertEqual(fastGemm(a, b, m: m, n: n, k: k, tier: tier, rowPad: 0, rowWeights: r), corrected,
                               "row weights m=\(m) n=\(n) k=\(k) \(tier)")
            }
        }
    }

    /// Rows read as `runs` pieces `runStride` apart (a convolution's filter rows in place):
    /// the same sums as the rows copied out, with and without row weights, at every tier.
    func testByteGemmRowRunsMatchCopiedRows() {
        var rng = TestRandom(seed: 99)
        for (m, n, runs, length, lda, runStride) in [(11, 20, 3, 12, 8, 40), (8, 16, 1, 20, 20, 0), (5, 33, 2, 4, 4, 9),
                                                     (17, 7, 5, 8, 16, 100)] {
            let k = runs * length
            let image = (0..<(lda * m + runStride * runs + length)).map { _ in UInt8(rng.int(0...255)) }
            let rows = (0..<m).flatMap { i in (0..<k).map { q in image[i * lda + (q / length) * runStride + q % length] } }
            let b = (0..<n * k).map { _ in Int8(rng.int(-128...127)) }
            let r = (0..<n).map { _ in Int32(rng.int(-255...255)) } + [Int32](repeating: 0, count: (n + 15) / 16 * 16 - n)
            let panels = b.withUnsafeBufferPointer { IntegerGemm.packBytes($0, n: n, k: k) }
            for tier in TierTesting.tiers {
                for weights in [false, true] {
                    let copied = fastGemm(rows, b, m: m, n: n, k: k, tier: tier, rowPad: 0, rowWeights: weights ? Array(r[0..<n]) : nil)
                    var c = [Int32](repeating: 0, count: m * n)
                    image.withUnsafeBufferPointer { ap in panels.withUnsafeBufferPointer { bp in r.withUnsafeBufferPointer { rp in
                        c.withUnsafeMutableBufferPointer { cp in
                            IntegerGemm.multiplyBytes(a: ap.baseAddress!, lda: lda, packedB: bp.baseAddress!, m: m, n: n, kPadded: k,
                                                      runs: runs, runStride: runStride, rowWeights: weights ? rp.baseAddress : nil,
                                                      c: cp.baseAddress!, ldc: n, tier: tier)
                        }
                    } } }
                    XCTAssertEqual(c, copied, "m=\(m) n=\(n) runs=\(runs)×\(length) \(tier) row weights \(weights)")
                }
            }
        }
    }

    /// The byte GEMM with the requantization in its registers (`multiplyBytesRequantized`) against
    /// the plain sums requantized one by one with TFLite's `MultiplyByQuantizedMultiplier`
    /// (`QuantizedMultiplier.apply`): rows not a multiple of 8, channels across panels of 16,
    /// filter-row runs, row weights, an output stride wider than a row (the gap left untouched).
    func testByteGemmRequantizedMatchesPlainSumsThenRequantization() throws {
        var rng = TestRandom(seed: 517)
        for trial in 0..<40 {
            let m = rng.int(1...19), n = trial % 3 == 0 ? rng.int(1...15) : rng.int(1...40)
            let runs = rng.int(1...3), length = 4 * rng.int(1...6), k = runs * length
            let lda = length + 4 * rng.int(0...2), runStride = lda * m + rng.int(0...5)
            let image = (0..<(runStride * runs + lda * m + length)).map { _ in UInt8(rng.int(0...255)) }
            let rows = (0..<m).flatMap { i in (0..<k).map { q in image[i * lda + (q / length) * runStride + q % length] } }
            let b = (0..<n * k).map { _ in Int8(rng.int(-128...127)) }
            let weights = trial % 2 == 1
            let r = (0..<n).map { _ in Int32(rng.int(-128...127)) } + [Int32](repeating: 0, count: (n + 15) / 16 * 16 - n)
            var sums = GemmTestSupport.reference(rows, b, m: m, n: n, k: k)
            if weights {
                for e in 0..<m * n { sums[e] = sums[e] &- r[e % n] &* rows[(e / n) * k..<(e / n + 1) * k].reduce(Int32(0)) { $0 &+ Int32($1) } }
            }
            let multipliers = (0..<n).map { _ in QuantizedMultiplier(Double(rng.int(1...1000)) * 1e-6) }
            let bias = (0..<n).map { _ in Int32(rng.int(-50000...50000)) }
            let zp = Int32(rng.int(-20...20)), lo = Int32(trial % 4 == 0 ? -128 : -100), hi = Int32(trial % 4 == 0 ? 127 : 90)
            let expected = (0..<m * n).map { e in
                Int8(min(max(multipliers[e % n].apply(sums[e] &+ bias[e % n]) &+ zp, lo), hi))
            }
            let panels = b.withUnsafeBufferPointer { IntegerGemm.packBytes($0, n: n, k: k) }
            for tier in TierTesting.tiers {
                let vr = try XCTUnwrap(VectorRequantization(multipliers: multipliers, bias: bias, outputZeroPoint: zp,
                                                            activationMin: lo, activationMax: hi, tier: tier))
                let ldo = n + 3
                var out = [Int8](repeating: 77, count: m * ldo)
                VectorRequantization.withRows(vr) { rq in
                    image.withUnsafeBufferPointer { ap in panels.withUnsafeBufferPointer { bp in r.withUnsafeBufferPointer { rp in
                        out.withUnsafeMutableBufferPointer { op in
                            IntegerGemm.multiplyBytesRequantized(a: ap.baseAddress!, lda: lda, packedB: bp.baseAddress!, m: m, n: n,
                                                                 kPadded: k, runs: runs, runStride: runStride,
                                                                 rowWeights: weights ? rp.baseAddress : nil, requantization: rq!,
                                                                 output: op.baseAddress!, ldo: ldo,
                                                                 kernel: KernelTable.for(tier).byteGEMM)
                        }
                    } } }
                }
                XCTAssertEqual((0..<m).flatMap { out[$0 * ldo..<$0 * ldo + n] }, expected, "m=\(m) n=\(n) runs=\(runs)x\(length) \(tier)")
                XCTAssertEqual((0..<m).flatMap { out[$0 * ldo + n..<$0 * ldo + ldo] }, [Int8](repeating: 77, count: 3 * m), "gap \(tier)")
                if m * n >= 40 { XCTAssertGreaterThan(Set(expected).count, 3, "trial \(trial) degenerate") }
            }
        }
    }

    /// Sums just below, at and above the points where the requantized value steps (TFLite's
    /// double rounding puts them at |x|·M / 2^(31+r) + ½ + 2^−(r+1) ∈ ℤ), for shifts 0 to 30, both
    /// signs: the byte GEMM's requantization must give `QuantizedMultiplier.apply`'s value on every
    /// one. Odd trials
    /// keep every shift in 1…22 and add a zero point, so whole panels take the AVX-512 tiles'
    /// signed form (zero point folded into the rounding term); even trials mix in shifts 0 and
    /// 23…30, which take the unsigned form.
    func testByteGemmRequantizedAtRoundingSteps() throws {
        var rng = TestRandom(seed: 8128)
        let n = 48, m = 8, k = 4
        // Row i sums to i in every channel: A row i = [i, 0, 0, 0], B channel j = [1, 0, 0, 0].
        let a: [UInt8] = (0..<m).flatMap { i -> [UInt8] in [UInt8(i), 0, 0, 0] }
        let b: [Int8] = (0..<n).flatMap { _ -> [Int8] in [1, 0, 0, 0] }
        let panels = b.withUnsafeBufferPointer { IntegerGemm.packBytes($0, n: n, k: k) }
        for trial in 0..<60 {
            var multipliers: [QuantizedMultiplier] = [], bias: [Int32] = []
            let shifts = trial % 2 == 0 ? 0...30 : 1...22
            let zp = trial % 2 == 0 ? Int32(0) : Int32(rng.int(-128...127))
            while multipliers.count < n {
                // Real multipliers from 2^−31 to 1 (shifts 0…30).
                let q = QuantizedMultiplier(pow(2, -Double(rng.int(shifts)) - Double(rng.int(0...999)) / 1000))
                let r = Int(-q.shift), mult = Double(q.multiplier)
                guard q.multiplier > 0, shifts.contains(r) else { continue }
                let half = r > 0 ? 0.5 + pow(2, -Double(r + 1)) : 0.5
                let target = Double(rng.int(1...140)) - half   // |V| where the value steps up
                let x = (target * pow(2, Double(31 + r)) / mult).rounded()
                guard x < 2_147_000_000 else { continue }
                multipliers.append(q)
                // Rows add 0…7: start 3 below the step (and mirrored for negative sums).
                bias.append(trial % 4 == 0 || multipliers.count % 3 == 0 ? Int32(x) - 3 : -Int32(x) - 3)
            }
            let expected = (0..<m * n).map { e in Int8(min(max(multipliers[e % n].apply(bias[e % n] &+ Int32(e / n)) &+ zp, -128), 127)) }
            if zp == 0 { XCTAssertGreaterThan(Set(expected).count, 20, "trial \(trial) degenerate") }
            for tier in TierTesting.tiers {
                let vr = try XCTUnwrap(VectorRequantization(multipliers: multipliers, bias: bias, outputZeroPoint: zp,
                                                            activationMin: -128, activationMax: 127, tier: tier))
                var out = [Int8](repeating: 0, count: m * n)
                VectorRequantization.withRows(vr) { rq in
                    a.withUnsafeBufferPointer { ap in panels.withUnsafeBufferPointer { bp in out.withUnsafeMutableBufferPointer { op in
                        IntegerGemm.multiplyBytesRequantized(a: ap.baseAddress!, lda: k, packedB: bp.baseAddress!, m: m, n: n, kPadded: k,
                                                             requantization: rq!, output: op.baseAddress!, ldo: n,
                                                             kernel: KernelTable.for(tier).byteGEMM)
                    } } }
                }
                XCTAssertEqual(out, expected, "trial \(trial) \(tier)")
            }
        }
    }

    /// Sums at the ends of Int32 (biases of ±2^31 and nearby, where `x · M` is near ±2^62),
    /// multipliers just below 1 and just above 2^−23, the zero point at both ends of int8, and a
    /// clamp inside the range: every tier's requantized bytes against `QuantizedMultiplier.apply`.
    func testByteGemmRequantizedExtremeSums() throws {
        let m = 8, k = 4, n = 32
        let a: [UInt8] = (0..<m).flatMap { i -> [UInt8] in [UInt8(i * 30), 0, 0, 0] }
        let b: [Int8] = (0..<n).flatMap { j -> [Int8] in [j % 2 == 0 ? 127 : -128, 0, 0, 0] }
        let panels = b.withUnsafeBufferPointer { IntegerGemm.packBytes($0, n: n, k: k) }
        let sums = (0..<m * n).map { e in Int32(e / n * 30) * (e % n % 2 == 0 ? 127 : -128) }
        let biases: [Int32] = [.min, .max, .min + 40_000, .max - 40_000, -1, 0, 1 << 30, -(1 << 30)]
        for (trial, realMultiplier) in [0.999_999_9, 0.75, 0.5, 0.499_999, pow(2.0, -22) * 1.999, pow(2.0, -23) * 1.5].enumerated() {
            let multipliers = (0..<n).map { j in QuantizedMultiplier(realMultiplier * (1 - Double(j) * 1e-3)) }
            let bias = (0..<n).map { biases[$0 % biases.count] }
            for (zp, lo, hi) in [(Int32(-128), Int32(-128), Int32(127)), (127, -128, 127), (5, -100, 90)] {
                let expected = (0..<m * n).map { e in
                    Int8(min(max(multipliers[e % n].apply(sums[e] &+ bias[e % n]) &+ zp, lo), hi))
                }
                for tier in TierTesting.tiers {
                    let vr = try XCTUnwrap(VectorRequantization(multipliers: multipliers, bias: bias, outputZeroPoint: zp,
                                                                activationMin: lo, activationMax: hi, tier: tier))
                    var out = [Int8](repeating: 0, count: m * n)
                    VectorRequantization.withRows(vr) { rq in
                        a.withUnsafeBufferPointer { ap in panels.withUnsafeBufferPointer { bp in out.withUnsafeMutableBufferPointer { op in
                            IntegerGemm.multiplyBytesRequantized(a: ap.baseAddress!, lda: k, packedB: bp.baseAddress!, m: m, n: n,
                                                                 kPadded: k, requantization: rq!, output: op.baseAddress!, ldo: n,
                                                                 kernel: KernelTable.for(tier).byteGEMM)
                        } } }
                    }
                    XCTAssertEqual(out, expected, "trial \(trial) zp \(zp) \(tier)")
                }
                // Most sums saturate (a wrapped product would land at the other end); both ends occur.
                XCTAssertGreaterThanOrEqual(Set(expected).count, 2, "trial \(trial) zp \(zp) degenerate")
            }
        }
    }

    func testByteGemmExtremesAndLongDepth() {
        for (k, bValue) in [(4099, Int8(-128)), (3001, Int8(127))] {
            let m = 9, n = 17
            let a = [UInt8](repeating: 255, count: m * k), b = [Int8](repeating: bValue, count: n * k)
            let expected = Int32(k) * 255 * Int32(bValue)
            for tier in TierTesting.tiers {
                XCTAssertEqual(fastGemm(a, b, m: m, n: n, k: k, tier: tier, rowPad: 255), [Int32](repeating: expected, count: m * n),
                               "k=\(k) \(tier)")
            }
        }
    }

    func testByteWeightsCorrectionHandComputed() throws {
        // uint8 x = 130 (zx = 128), uint8 w = 100 (zw = 120), K = 1, bias 5: (130 - 128)(100 - 120) + 5 = -35.
        // x' = 130, zx' = 128, w' = -28, zw' = -8: folded bias 5 - 128·(-28) + 1·128·(-8) = 2565,
        // GEMM 130·(-28) = -3640, row correction -(-8)·130 = +1040.
        let filter: [UInt8] = [100]
        let bw = try XCTUnwrap(filter.withUnsafeBufferPointer {
            QuantizedByteWeights(filter: $0, patchSize: 1, outputDepth: 1, filterZeroPoints: [120], inputZeroPoint: 128,
                                 activation: UInt8.self, bias: [5])
        })
        XCTAssertEqual(bw.bias, [2565])
        XCTAssertEqual(bw.weightZeroPoints, [-8] + [Int32](repeating: 0, count: 15))
        XCTAssertEqual(bw.paddingValue, 128)
        XCTAssertEqual(bw.activationFlip, 0)
        XCTAssertEqual(bw.panels.prefix(4), [-28, 0, 0, 0])
        let row: [UInt8] = [130, 0, 0, 0]
        for tier in TierTesting.tiers {
            var acc: [Int32] = [0]
            row.withUnsafeBufferPointer { r in bw.panels.withUnsafeBufferPointer { b in bw.weightZeroPoints!.withUnsafeBufferPointer { z in
                acc.withUnsafeMutableBufferPointer {
                    IntegerGemm.multiplyBytes(a: r.baseAddress!, lda: 4, packedB: b.baseAddress!, m: 1, n: 1, kPadded: 4,
                                              rowWeights: z.baseAddress, c: $0.baseAddress!, ldc: 1, tier: tier)
                }
            } } }
            XCTAssertEqual(acc[0], -3640 + 1040, "\(tier)")
            XCTAssertEqual(acc[0] &+ bw.bias[0], -35, "\(tier)")
        }

        // int8 activations (offset 128, bit pattern XOR 0x80) and int8 weights with zero point 0: no row sums.
        let filter8: [Int8] = [-3, 7]
        let bw8 = try XCTUnwrap(filter8.withUnsafeBufferPointer {
            QuantizedByteWeights(filter: $0, patchSize: 2, outputDepth: 1, filterZeroPoints: [0], inputZeroPoint: -5,
                                 activation: Int8.self, bias: [0])
        })
        XCTAssertNil(bw8.weightZeroPoints)
        XCTAssertEqual(bw8.activationFlip, 0x80)
        XCTAssertEqual(bw8.paddingValue, 123)
        XCTAssertEqual(bw8.bias, [-123 * 4])   // -zx'·Σw' = -123·(-3 + 7)

        // A zero point outside the element range: no byte path.
        XCTAssertNil(filter8.withUnsafeBufferPointer {
            QuantizedByteWeights(filter: $0, patchSize: 2, outputDepth: 1, filterZeroPoints: [0], inputZeroPoint: 200,
                                 activation: Int8.self, bias: [0])
        })
        XCTAssertNil(filter.withUnsafeBufferPointer {
            QuantizedByteWeights(filter: $0, patchSize: 1, outputDepth: 1, filterZeroPoints: [256], inputZeroPoint: 0,
                                 activation: UInt8.self, bias: [0])
        })
    }

    /// One random convolution at every tier against the reference kernel; at AVX-512 it must take the byte path.
    private func convCase<T: QuantizedElement, W: QuantizedElement>(
        _ rng: inout TestRandom, _: T.Type, _: W.Type, pointwise: Bool, inputZeroPoint: Int32, filterZeroPoints: [Int32], trial: Int,
        rowsInPlace: Bool = false, oddRows: Bool = false
    ) throws {
        let h = rng.int(1...(rowsInPlace || oddRows ? 13 : 9)), w = rng.int(1...(rowsInPlace || oddRows ? 13 : 9)), cout = rng.int(1...35)
        // rowsInPlace: dilation 1 and filter rows of a multiple of 4 bytes (the padded-rows path);
        // oddRows: dilation 1 and rows of other lengths (3-channel first layers, 6×6 filters).
        let cin = rowsInPlace ? [2, 4, 8, 12, 20][rng.below(5)]
            : oddRows ? [1, 3, 3, 5, 6, 7, 13][rng.below(7)]
            : (pointwise && trial % 2 == 0 ? 4 * rng.int(1...24) : rng.int(1...21))
        let fh = pointwise ? 1 : rng.int(1...(oddRows ? 6 : 3))
        let fw = pointwise ? 1 : (rowsInPlace && cin == 2 ? 2 : rng.int(1...(oddRows ? 6 : 3)))
        let s = pointwise ? 1 : rng.int(1...2), d = pointwise || rowsInPlace || oddRows ? 1 : rng.int(1...2)
        let same = rowsInPlace || oddRows ? trial % 2 == 0 : !pointwise
        guard let g = WindowGeometry(batches: rng.int(1...2), inputHeight: h, inputWidth: w,
                                              filterHeight: fh, filterWidth: fw, strideHeight: s, strideWidth: s,
                                              dilationHeight: d, dilationWidth: d, samePadding: same) else {
            XCTAssertTrue((rowsInPlace || oddRows) && !same, "only a VALID window larger than the input has no geometry")
            return
        }
        let input = (0..<g.batches * h * w * cin).map { _ in T(truncatingIfNeeded: rng.int(Int(T.quantizedMin)...Int(T.quantizedMax))) }
        let filter = (0..<cout * fh * fw * cin).map { _ in W(truncatingIfNeeded: rng.int(Int(W.quantizedMin)...Int(W.quantizedMax))) }
        let bias = (0..<cout).map { _ in Int32(rng.int(-20000...20000)) }
        let zps = filterZeroPoints.count == 1 ? filterZeroPoints : (0..<cout).map { filterZeroPoints[$0 % filterZeroPoints.count] }
        let scales = (0..<zps.count).map { _ in Float(rng.int(50...100)) * 0.0002 }
        let qi = QuantizationParams(scale: 0.02, zeroPoint: inputZeroPoint)
        // Sums spread around K·mean(x - zx)·mean(w - zw) (large with extreme zero points), about
        // √K·74² wide: an output scale putting that range on ±100 steps keeps the outputs varied.
        let k = Float(fh * fw * cin)
        let meanX = abs(Float(T.quantizedMin + T.quantizedMax) / 2 - Float(inputZeroPoint))
        let meanW = zps.map { abs(Float(W.quantizedMin + W.quantizedMax) / 2 - Float($0)) }.max()!
        let range = k * meanX * meanW + 3 * k.squareRoot() * 74 * 74 + 20000
        let qo = QuantizationParams(scale: 0.02 * 0.015 * range / 100, zeroPoint: Int32(T.quantizedMin + 128))
        let count = g.batches * g.outputHeight * g.outputWidth * cout
        for tier in TierTesting.tiers {
            let p = try XCTUnwrap(filter.withUnsafeBufferPointer { f in bias.withUnsafeBufferPointer { b in
                QuantizedConvParams(geometry: g, inputDepth: cin, outputDepth: cout, input: qi, output: qo, filter: f,
                                    filterScales: scales, filterZeroPoints: zps, bias: b, activation: .none,
                                    outputType: T.self, tier: tier)
            } })
            // Weight zero points other than 128 (uint8) or 0 (int8) need row sums, worth it only
            // from `minimumDepthWithRowSums` on.
            let needsRowSums = zps.contains { $0 != 128 + W.quantizedMin }
            // 1 to 3 channels with row sums and rows not a multiple of 4: the input widened to 4 channels.
            let widened = needsRowSums && cin < 4 && (fw * cin) % 4 != 0 && !QuantizedConv2D.isPointwise(g) && d == 1
            let bytePath = tier == .avx512 && (!needsRowSums || fh * fw * cin >= QuantizedByteWeights.minimumDepthWithRowSums || widened)
            XCTAssertEqual(p.byteWeights?.paddedChannels, tier == .avx512 && widened ? 4 : nil, "widened input at AVX-512")
            XCTAssertEqual(p.byteWeights != nil, bytePath, "byte path at AVX-512, K = \(fh * fw * cin)")
            XCTAssertEqual(p.gemmWeights.isEmpty, bytePath, "one packed weight copy")
            if rowsInPlace {
                XCTAssertEqual(QuantizedConv2D.paddedRowGeometry(p) != nil, bytePath && !QuantizedConv2D.isPointwise(g), "padded rows at AVX-512")
            }
            if oddRows {
                // Rows of a multiple of 4 bytes always; others padded to one, without row sums, when
                // that adds at most half the im2col depth (by hand: 4 ⌈row / 4⌉ · fh ≤ 1.5 · 4 ⌈K / 4⌉).
                let row = fw * cin, k = fh * row
                let padded = row % 4 == 0 || (!needsRowSums && 2 * fh * ((row + 3) / 4 * 4) <= 3 * ((k + 3) / 4 * 4)) || widened
                XCTAssertEqual(QuantizedConv2D.paddedRowGeometry(p) != nil, bytePath && padded,
                               "padded rows at AVX-512: \(fh)x\(fw)x\(cin)")
            }
            var fast = [T](repeating: 1, count: count), ref = [T](repeating: 2, count: count)
            input.withUnsafeBufferPointer { x in
                fast.withUnsafeMutableBufferPointer { QuantizedConv2D.run(p, input: x.baseAddress!, output: $0.baseAddress!, threads: 1 + trial % 2) }
                ref.withUnsafeMutableBufferPointer { QuantizedConv2D.reference(p, filter: filter, filterZeroPoints: zps, input: x.baseAddress!, output: $0.baseAddress!) }
            }
            XCTAssertEqual(fast, ref, "conv \(T.self)/\(W.self) trial \(trial) \(tier): \(g.batches)x\(h)x\(w)x\(cin) -> \(cout), "
                           + "filter \(fh)x\(fw) s\(s) d\(d), zx \(inputZeroPoint), zw \(filterZeroPoints)")
            if count >= 60 { XCTAssertGreaterThan(Set(ref.map { Int($0) }).count, 3, "trial \(trial) output is degenerate") }
        }
    }

    func testConvBytePathMatchesReferenceAtEveryTier() throws {
        var rng = TestRandom(seed: 77)
        for trial in 0..<24 {
            let pointwise = trial % 3 == 0
            // uint8 per-tensor with extreme and middle zero points (zw' ≠ 0: row sums).
            let zx = Int32([0, 255, 128, rng.int(1...254)][trial % 4]), zw = Int32([255, 0, 128, rng.int(1...254)][(trial + 1) % 4])
            try convCase(&rng, UInt8.self, UInt8.self, pointwise: pointwise, inputZeroPoint: zx, filterZeroPoints: [zw], trial: trial)
            // int8 per-channel, symmetric (no row sums) and, every other trial, nonzero per-channel zero points.
            let zx8 = Int32([-128, 127, 0, rng.int(-127...126)][trial % 4])
            let zw8: [Int32] = trial % 2 == 0 ? [0] : [-128, 127, 3, 0, -7]
            try convCase(&rng, Int8.self, Int8.self, pointwise: pointwise, inputZeroPoint: zx8, filterZeroPoints: zw8, trial: trial)
        }
    }

    /// Convolutions whose filter rows are a multiple of 4 bytes with dilation 1: at AVX-512 each
    /// output row reads its filter rows in a padded copy of the input (no im2col).
    func testConvPaddedRowsPathMatchesReferenceAtEveryTier() throws {
        var rng = TestRandom(seed: 78)
        for trial in 0..<30 {
            let zx = Int32([0, 255, 128, rng.int(1...254)][trial % 4]), zw = Int32([255, 0, 128, rng.int(1...254)][(trial + 1) % 4])
            try convCase(&rng, UInt8.self, UInt8.self, pointwise: false, inputZeroPoint: zx, filterZeroPoints: [zw], trial: trial,
                         rowsInPlace: true)
            let zx8 = Int32([-128, 127, 0, rng.int(-127...126)][trial % 4])
            let zw8: [Int32] = trial % 2 == 0 ? [0] : [-128, 127, 3, 0, -7]
            try convCase(&rng, Int8.self, Int8.self, pointwise: false, inputZeroPoint: zx8, filterZeroPoints: zw8, trial: trial,
                         rowsInPlace: true)
        }
    }

    /// Filter rows that are not a multiple of 4 bytes (3 or 5 channels, 6×6 filters), strides
    /// 1 and 2, SAME and VALID: at AVX-512 int8 weights without row sums read each row in place
    /// padded to 4 bytes, the bytes past its end meeting zero weights.
    func testConvPaddedOddRowsMatchReferenceAtEveryTier() throws {
        var rng = TestRandom(seed: 79)
        for trial in 0..<36 {
            let zx8 = Int32([-128, 127, 0, rng.int(-127...126)][trial % 4])
            let zw8: [Int32] = trial % 3 == 2 ? [-128, 127, 3, 0, -7] : [0]
            try convCase(&rng, Int8.self, Int8.self, pointwise: false, inputZeroPoint: zx8, filterZeroPoints: zw8, trial: trial,
                         oddRows: true)
            // uint8 weights with zero point 128 (w' = w − 128, no row sums) and others (row sums).
            let zx = Int32([0, 255, 128, rng.int(1...254)][trial % 4]), zw = Int32(trial % 2 == 0 ? 128 : rng.int(0...255))
            try convCase(&rng, UInt8.self, UInt8.self, pointwise: false, inputZeroPoint: zx, filterZeroPoints: [zw], trial: trial,
                         oddRows: true)
        }
    }
}
