import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The JPEG pixel kernels at every tier this CPU runs, against the plain references:
/// `JPEGIDCT.referenceTransform` (scalar islow with libjpeg's table range limit) and
/// `JPEGColorConverter.referenceYCbCrToRGB` (libjpeg's tables), and libjpeg's upsampling
/// formulas, on seeded random data.
final class JPEGTierKernelTests: XCTestCase {
    private var tiers: [InstructionSetTier] { InstructionSetTier.allCases.filter { $0 <= InstructionSetTier.supported } }

    func testIDCTBlockRowMatchesReferenceAtEveryTier() {
        var generator = SplitMix64(seed: 7)
        let blocks = 9
        var coefficients = [Int16](repeating: 0, count: 64 * blocks)
        var quant = [Int32](repeating: 1, count: 64)
        var workspace = [Int32](repeating: 0, count: 64)
        let stride = blocks * 8 + 5
        for trial in 0..<400 {
            for i in 0..<64 { quant[i] = Int32.random(in: 1...(trial % 3 == 0 ? 8 : 100), using: &generator) }
            for b in 0..<blocks {
                let density = (trial + b) % 6
                for i in 0..<64 {
                    coefficients[b * 64 + i] = Int.random(in: 0..<8, using: &generator) < density
                        ? Int16.random(in: -(i == 0 ? 1000 : 300)...(i == 0 ? 1000 : 300), using: &generator) : 0
                }
                if (trial + b) % 7 == 0 { for i in 1..<64 { coefficients[b * 64 + i] = 0 } }   // DC-only blocks
            }
            var expected = [UInt8](repeating: 0, count: stride * 8)
            coefficients.withUnsafeBufferPointer { c in
                quant.withUnsafeBufferPointer { q in
                    jpegIDCTRangeLimit.withUnsafeBufferPointer { rl in
                        workspace.withUnsafeMutableBufferPointer { ws in
                            expected.withUnsafeMutableBufferPointer { e in
                                for b in 0..<blocks {
                                    JPEGIDCT.referenceTransform(coefficients: c.baseAddress! + b * 64, quant: q.baseAddress!,
                                                                output: e.baseAddress! + b * 8, stride: stride,
                                                                workspace: ws.baseAddress!, rangeLimit: rl.baseAddress!)
                                }
                            }
                        }
                    }
                }
            }
            for tier in tiers {
                var actual = [UInt8](repeating: 0, count: stride * 8)
                coefficients.withUnsafeBufferPointer { c in
                    quant.withUnsafeBufferPointer { q in
                        actual.withUnsafeMutableBufferPointer { a in
                            JPEGIDCT.transformBlocks(c.baseAddress!, count: blocks, quant: q.baseAddress!,
                                                     output: a.baseAddress!, stride: stride, tier: tier)
                        }
                    }
                }
                XCTAssertEqual(actual, expected, "trial \(trial), tier \(tier)")
                if actual != expected { return }
            }
        }
    }

    /// Blocks whose AC terms lie in the top-left 4x4 (the IDCT's short path), and the same with
    /// one more term just outside it (row 4 or column 4, which must take the full path).
    func testIDCTSparseBlocksMatchReferenceAtEveryTier() {
        var generator = SplitMix64(seed: 19)
        var coefficients = [Int16](repeating: 0, count: 64)
        var quant = [Int32](repeating: 1, count: 64)
        var workspace = [Int32](repeating: 0, count: 64)
        for trial in 0..<3000 {
            for i in 0..<64 { quant[i] = Int32.random(in: 1...(trial % 3 == 0 ? 8 : 120), using: &generator) }
            for i in 0..<64 {
                let inside = i / 8 < 4 && i % 8 < 4
                coefficients[i] = inside && Int.random(in: 0..<3, using: &generator) > 0
                    ? Int16.random(in: -(i == 0 ? 1000 : 400)...(i == 0 ? 1000 : 400), using: &generator) : 0
            }
            if trial % 3 == 1 {
                let edge = Int.random(in: 0..<8, using: &generator)
                let position = Bool.random(using: &generator) ? 32 + edge : edge * 8 + 4 + Int.random(in: 0..<4, using: &generator)
                coefficients[position] = Int16.random(in: 1...300, using: &generator) * (Bool.random(using: &generator) ? 1 : -1)
            }
            var expected = [UInt8](repeating: 0, count: 64)
            coefficients.withUnsafeBufferPointer { c in
                quant.withUnsafeBufferPointer { q in
                    jpegIDCTRangeLimit.withUnsafeBufferPointer { rl in
                        workspace.withUnsafeMutableBufferPointer { ws in
                            expected.withUnsafeMutableBufferPointer { e in
                                JPEGIDCT.referenceTransform(coefficients: c.baseAddress!, quant: q.baseAddress!,
                                                            output: e.baseAddress!, stride: 8,
                                                            workspace: ws.baseAddress!, rangeLimit: rl.baseAddress!)
                            }
                        }
                    }
                }
            }
            for tier in tiers {
                var actual = [UInt8](repeating: 0, count: 64)
                coefficients.withUnsafeBufferPointer { c in
                    quant.withUnsafeBufferPointer { q in
                        actual.withUnsafeMutableBufferPointer { a in
                            JPEGIDCT.transformBlocks(c.baseAddress!, count: 1, quant: q.baseAddress!,
                                                     output: a.baseAddress!, stride: 8, tier: tier)
                        }
                    }
                }
                XCTAssertEqual(actual, expected, "trial \(trial), tier \(tier)")
                if actual != expected { return }
            }
        }
    }

    /// h2v2 fancy upsampling against libjpeg's formulas written out per sample
    /// (`jdsample.c`): column sums `3·near + far`, then `(3·s[x] + s[x−1] + 8) >> 4` and
    /// `(3·s[x] + s[x+1] + 7) >> 4`, edges repeated; every width from 3 to 70, nothing written
    /// past `2·width`.
    func testFancyUpsamplingMatchesFormulaAtEveryTier() {
        var generator = SplitMix64(seed: 23)
        for width in 3...70 {
            let near = (0..<width).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let far = (0..<width).map { _ in Bool.random(using: &generator) ? UInt8.random(in: 0...255, using: &generator) : 255 }
            let sums = (0..<width).map { 3 * Int(near[$0]) + Int(far[$0]) }
            var expected = [UInt8]()
            for x in 0..<width {
                let left = sums[max(x - 1, 0)], right = sums[min(x + 1, width - 1)]
                expected.append(UInt8((3 * sums[x] + left + 8) >> 4))
                expected.append(UInt8((3 * sums[x] + right + 7) >> 4))
            }
            // Edge columns: libjpeg writes (4·s + 8) >> 4 and (4·s + 7) >> 4 there, which the
            // repeated neighbour above reproduces.
            XCTAssertEqual(expected[0], UInt8((4 * sums[0] + 8) >> 4))
            XCTAssertEqual(expected[2 * width - 1], UInt8((4 * sums[width - 1] + 7) >> 4))
            for tier in tiers {
                var actual = [UInt8](repeating: 0xA5, count: 2 * width + 1)
                let kernels = JPEGKernels.for(tier)
                near.withUnsafeBufferPointer { n in
                    far.withUnsafeBufferPointer { f in
                        actual.withUnsafeMutableBufferPointer { a in
                            kernels.upsampleH2V2Fancy(n.baseAddress!, f.baseAddress!, width, a.baseAddress!)
                        }
                    }
                }
                XCTAssertEqual(Array(actual[..<(2 * width)]), expected, "width \(width), tier \(tier)")
                XCTAssertEqual(actual[2 * width], 0xA5, "width \(width), tier \(tier): wrote past the row")
            }
        }
    }

    func testColorConversionMatchesTablesAtEveryTier() {
        var generator = SplitMix64(seed: 11)
        let converter = JPEGColorConverter.shared
        for width in [1, 7, 8, 9, 16, 17, 23, 64, 301] {
            for _ in 0..<20 {
                // Extremes included so every clamp is taken.
                func sample() -> UInt8 {
                    switch Int.random(in: 0..<8, using: &generator) {
                    case 0: return 0
                    case 1: return 255
                    default: return UInt8.random(in: 0...255, using: &generator)
                    }
                }
                let y = (0..<width).map { _ in sample() }, cb = (0..<width).map { _ in sample() }
                let cr = (0..<width).map { _ in sample() }
                var expected = [UInt8](repeating: 0, count: width * 3)
                converter.crToR.withUnsafeBufferPointer { crR in
                    converter.cbToB.withUnsafeBufferPointer { cbB in
                        converter.crToG.withUnsafeBufferPointer { crG in
                            converter.cbToG.withUnsafeBufferPointer { cbG in
                                JPEGColorConverter.referenceYCbCrToRGB(y: y, cb: cb, cr: cr, out: &expected, width: width,
                                                                       crToR: crR.baseAddress!, cbToB: cbB.baseAddress!,
                                                                       crToG: crG.baseAddress!, cbToG: cbG.baseAddress!)
                            }
                        }
                    }
                }
                for tier in tiers {
                    // One guard byte after the row: the kernel must not write past `width` pixels.
                    var actual = [UInt8](repeating: 0xA5, count: width * 3 + 1)
                    JPEGColorConverter.ycbcrToRGB(y: y, cb: cb, cr: cr, out: &actual, width: width, tier: tier)
                    XCTAssertEqual(Array(actual[..<(width * 3)]), expected, "width \(width), tier \(tier)")
                    XCTAssertEqual(actual[width * 3], 0xA5, "width \(width), tier \(tier): wrote past the row")
                }
            }
        }
    }

    /// Hand-computed pixels (libjpeg's formulas): grey stays grey, pure chroma saturates.
    func testColorConversionKnownValues() {
        let y: [UInt8] = [128, 0, 255, 76], cb: [UInt8] = [128, 128, 128, 85], cr: [UInt8] = [128, 128, 128, 255]
        // Pixel 3: Cb' = -43, Cr' = 127: R = 76 + round(1.402·127) = 76 + 178 = 254,
        // G = 76 + ((22554·43 − 46802·127 + 32768) >> 16) = 76 − 76 = 0, B = 76 + ((116130·−43 + 32768) >> 16) = 76 − 76 = 0.
        for tier in tiers {
            var out = [UInt8](repeating: 0, count: 12)
            JPEGColorConverter.ycbcrToRGB(y: y, cb: cb, cr: cr, out: &out, width: 4, tier: tier)
            XCTAssertEqual(out, [128, 128, 128, 0, 0, 0, 255, 255, 255, 254, 0, 0], "tier \(tier)")
        }
    }
}
