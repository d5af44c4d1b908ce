import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Hand-worked cases of the rules behind `JPEGDamagedFileTests`: libjpeg's restart-marker
/// resynchronisation table, the rounding and clamping of a smoothing estimate, and which block
/// rows smoothing reads as neighbours.
final class JPEGResyncAndSmoothingTests: XCTestCase {
    func testResyncActionFollowsLibjpegTable() {
        typealias A = JPEGStreamParser.ResyncAction
        func action(_ code: Int, _ expected: Int) -> A { JPEGStreamParser.resyncAction(code: code, expected: expected) }
        // RST2 due: RST2 itself is consumed; RST3/RST4 (the next two) are left; RST1/RST0 (the
        // previous two) skipped; RST5...RST7 are too far to tell and taken as RST2.
        XCTAssertEqual(action(0xD2, 2), .consume)
        XCTAssertEqual(action(0xD3, 2), .leave)
        XCTAssertEqual(action(0xD4, 2), .leave)
        XCTAssertEqual(action(0xD1, 2), .skipToNextMarker)
        XCTAssertEqual(action(0xD0, 2), .skipToNextMarker)
        for code in 0xD5...0xD7 { XCTAssertEqual(action(code, 2), .consume) }
        // Numbers wrap modulo 8.
        XCTAssertEqual(action(0xD0, 7), .leave)
        XCTAssertEqual(action(0xD1, 7), .leave)
        XCTAssertEqual(action(0xD6, 7), .skipToNextMarker)
        XCTAssertEqual(action(0xD7, 0), .skipToNextMarker)
        XCTAssertEqual(action(0xD6, 0), .skipToNextMarker)
        // Other markers: known ones (EOI, DHT, SOS) are left, codes below SOF0 skipped.
        XCTAssertEqual(action(0xD9, 2), .leave)
        XCTAssertEqual(action(0xC4, 2), .leave)
        XCTAssertEqual(action(0xDA, 2), .leave)
        XCTAssertEqual(action(0x05, 2), .skipToNextMarker)
        XCTAssertEqual(action(0x01, 2), .skipToNextMarker)
    }

    func testEstimateRoundsAndClamps() {
        // (num + 128q) / 256q with the sign apart: 1000 / 512 rounds to 2.
        XCTAssertEqual(JPEGBlockSmoother.estimate(1000, quantizer: 2, knownBits: -1), 2)
        XCTAssertEqual(JPEGBlockSmoother.estimate(-1000, quantizer: 2, knownBits: -1), -2)
        // One known low bit: the estimate stays below 2^1.
        XCTAssertEqual(JPEGBlockSmoother.estimate(1000, quantizer: 2, knownBits: 1), 1)
        XCTAssertEqual(JPEGBlockSmoother.estimate(-1000, quantizer: 2, knownBits: 1), -1)
        // Halves round away from zero: 128/256 -> 1, 127/256 -> 0.
        XCTAssertEqual(JPEGBlockSmoother.estimate(128, quantizer: 1, knownBits: -1), 1)
        XCTAssertEqual(JPEGBlockSmoother.estimate(127, quantizer: 1, knownBits: -1), 0)
        XCTAssertEqual(JPEGBlockSmoother.estimate(-128, quantizer: 1, knownBits: -1), -1)
        // Narrowed to 16 bits as libjpeg stores it: 70000 * 256 / 256 -> 70000 - 65536.
        XCTAssertEqual(JPEGBlockSmoother.estimate(70000 * 256, quantizer: 1, knownBits: 0), 4464)
    }

    func testNeighbourRows() {
        func rows(_ row: Int, v: Int, iMCURows: Int, blockRows: Int, storedRows: Int) -> [Int] {
            var out = [Int](repeating: -1, count: 5)
            out.withUnsafeMutableBufferPointer { buffer in
                JPEGBlockSmoother.neighbourRows(row: row, v: v, iMCURows: iMCURows, blockRows: blockRows,
                                                storedRows: storedRows, into: buffer.baseAddress!)
            }
            return out
        }
        // One block row per iMCU row: edges repeat.
        XCTAssertEqual(rows(0, v: 1, iMCURows: 3, blockRows: 3, storedRows: 3), [0, 0, 0, 1, 2])
        XCTAssertEqual(rows(1, v: 1, iMCURows: 3, blockRows: 3, storedRows: 3), [0, 0, 1, 2, 2])
        XCTAssertEqual(rows(2, v: 1, iMCURows: 3, blockRows: 3, storedRows: 3), [0, 1, 2, 2, 2])
        // v = 2 with 3 real block rows (4 stored): row 1 reads the padding row 3 two below, and
        // the last row (alone in its iMCU row) takes row 1 for the row two above, as libjpeg's
        // index arithmetic does (it numbers that row 1, not 2).
        XCTAssertEqual(rows(1, v: 2, iMCURows: 2, blockRows: 3, storedRows: 4), [0, 0, 1, 2, 3])
        XCTAssertEqual(rows(2, v: 2, iMCURows: 2, blockRows: 3, storedRows: 4), [1, 1, 2, 2, 2])
    }

    /// The kernels: those of the DC-only case keep the average (weights of the smoothed DC sum to
    /// 256, each AC kernel to 0), and Q10, Q02, Q21, Q30 are Q01, Q20, Q12, Q03 transposed.
    func testKernelShapes() {
        XCTAssertEqual(JPEGBlockSmoother.dcWeights.reduce(0, +), 256)
        for w in JPEGBlockSmoother.interpolatingWeights + JPEGBlockSmoother.plainWeights {
            XCTAssertEqual(w.count, 25)
            XCTAssertEqual(w.reduce(0, +), 0)
        }
        // Q10 (index 1) at row -2 (first five weights) is Q01's column -2 read downwards.
        XCTAssertEqual(Array(JPEGBlockSmoother.interpolatingWeights[1][0..<5]), [-1, -3, -3, -3, -1])
        XCTAssertEqual(JPEGBlockSmoother.plainWeights[1][7], 50)   // row -1, column 0
        XCTAssertEqual(JPEGBlockSmoother.acPositions, Array(jpegNaturalOrder[1...9]))
    }
}
