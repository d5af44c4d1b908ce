import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The SIMD islow IDCT against the plain scalar reference, on seeded random blocks.
final class JPEGIDCTTests: XCTestCase {
    func testSIMDMatchesReference() {
        var generator = SplitMix64(seed: 42)
        var coefficients = [Int16](repeating: 0, count: 64)
        var quant = [Int32](repeating: 1, count: 64)
        var fast = [UInt8](repeating: 0, count: 64), slow = [UInt8](repeating: 0, count: 64)
        var workspace = [Int32](repeating: 0, count: 64)
        for trial in 0..<3000 {
            for i in 0..<64 {
                quant[i] = Int32.random(in: 1...(trial % 3 == 0 ? 8 : 100), using: &generator)
                // Sparse blocks like real data, with a few large coefficients.
                let density = trial % 5
                coefficients[i] = Int.random(in: 0..<8, using: &generator) < density + 1
                    ? Int16.random(in: -(i == 0 ? 1000 : 200)...(i == 0 ? 1000 : 200), using: &generator) / Int16(max(1, quant[i] / 4))
                    : 0
            }
            if trial % 7 == 0 { for i in 1..<64 { coefficients[i] = 0 } }   // DC-only blocks
            coefficients.withUnsafeBufferPointer { c in
                quant.withUnsafeBufferPointer { q in
                    jpegIDCTRangeLimit.withUnsafeBufferPointer { rl in
                        fast.withUnsafeMutableBufferPointer { f in
                            slow.withUnsafeMutableBufferPointer { s in
                                workspace.withUnsafeMutableBufferPointer { ws in
                                    JPEGIDCT.transform(coefficients: c.baseAddress!, quant: q.baseAddress!,
                                                       output: f.baseAddress!, stride: 8)
                                    JPEGIDCT.referenceTransform(coefficients: c.baseAddress!, quant: q.baseAddress!,
                                                                output: s.baseAddress!, stride: 8,
                                                                workspace: ws.baseAddress!, rangeLimit: rl.baseAddress!)
                                }
                            }
                        }
                    }
                }
            }
            XCTAssertEqual(fast, slow, "trial \(trial)")
            if fast != slow { break }
        }
    }

    func testRangeLimitArithmeticMatchesTable() {
        for v in -2048...2047 {
            XCTAssertEqual(JPEGIDCT.rangeLimit(Int32(v)), jpegIDCTRangeLimit[v & 1023], "v = \(v)")
            let vector = JPEGIDCT.rangeLimit(SIMD8<Int32>(repeating: Int32(v)))
            XCTAssertEqual(UInt8(vector[3]), jpegIDCTRangeLimit[v & 1023], "v = \(v)")
        }
    }

    func testTranspose() {
        let rows = (0..<8).map { r in SIMD8<Int32>((0..<8).map { Int32(r * 8 + $0) }) }
        let t = JPEGIDCT.transpose(rows[0], rows[1], rows[2], rows[3], rows[4], rows[5], rows[6], rows[7])
        let out = [t.0, t.1, t.2, t.3, t.4, t.5, t.6, t.7]
        for r in 0..<8 { for c in 0..<8 { XCTAssertEqual(out[r][c], Int32(c * 8 + r)) } }
    }
}
