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
/// `JPEGColorConverter.referenceYCbCrToRGB` (libjpeg's tables), on seeded random data.
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
