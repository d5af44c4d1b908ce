import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// `YoloxDecoder` on outputs written by hand, with every expected box worked out from YOLOX's
/// formulas (`demo_postprocess`, `multiclass_nms`, the "+1" IoU), and the family decision by shape.
final class YoloxDecoderUnitTests: XCTestCase {
    /// A 32 × 32 input: 4×4 cells of stride 8 (rows 0–15), 2×2 of 16 (16–19), 1 of 32 (20); 2 classes.
    func output(_ rows: [Int: [Float]]) -> [Float] {
        var values = [Float](repeating: 0, count: 21 * 7)
        for (r, v) in rows { for (k, x) in v.enumerated() { values[r * 7 + k] = x } }
        return values
    }

    let rows: [Int: [Float]] = [
        // stride 8, cell (0, 0): centre ((0.5 + 0) · 8, (0.5 + 0) · 8) = (4, 4), size e⁰ · 8 = 8 → (0, 0, 8, 8);
        // objectness 0.9 × classes (0.5, 0.8): 0.45 (class 0) and 0.72 (class 1), both candidates.
        0: [0.5, 0.5, 0, 0, 0.9, 0.5, 0.8],
        // stride 8, cell (1, 0): centre ((−0.5 + 1) · 8, 4) = (4, 4): the same box, class 0 at 0.4.
        1: [-0.5, 0.5, 0, 0, 1, 0.4, 0],
        // stride 8, cell (1, 1) (row 5 = 1 · 4 + 1): centre (8, 8), size 8 → (4, 4, 12, 12), class 0 at 0.6.
        5: [0, 0, 0, 0, 1, 0.6, 0],
        // stride 32, cell (0, 0): centre (16, 16), size e^ln2 · 32 = 64 → (−16, −16, 48, 48), class 1 at 0.2.
        20: [0.5, 0.5, Float(log(2.0)), Float(log(2.0)), 0.5, 0, 0.4],
    ]

    func testGridDecodingScoresAndClassAwareNMS() throws {
        let decoder = YoloxDecoder(numClasses: 2, options: YoloDecoderOptions(scoreThreshold: 0.3, iouThreshold: 0.45))
        XCTAssertEqual(decoder.rowCount(inputWidth: 32, inputHeight: 32), 21)
        let found = try decoder.decode(output(rows), shape: [1, 21, 7], inputWidth: 32, inputHeight: 32)
        // Row 1 (0.4) has IoU 1 with row 0's class-0 box (0.45) and is suppressed; row 0 keeps
        // both classes; row 5 overlaps row 0 by (8 − 4 + 1)² / (81 + 81 − 25) = 0.18 only.
        XCTAssertEqual(found.map(\.classIndex), [1, 0, 0])
        XCTAssertEqual(found.map(\.score), [Double(Float(0.9) * Float(0.8)), Double(Float(0.6)), Double(Float(0.9) * Float(0.5))])
        XCTAssertEqual([found[0].x1, found[0].y1, found[0].x2, found[0].y2], [0, 0, 8, 8])
        XCTAssertEqual([found[1].x1, found[1].y1, found[1].x2, found[1].y2], [4, 4, 12, 12])
        XCTAssertEqual([found[2].x1, found[2].y1, found[2].x2, found[2].y2], [0, 0, 8, 8])

        // Across classes, row 0's class-1 box (0.72) suppresses its class-0 twin and row 1.
        var agnostic = decoder
        agnostic.options.classAware = false
        XCTAssertEqual(try agnostic.decode(output(rows), shape: [1, 21, 7], inputWidth: 32, inputHeight: 32).map(\.score).count, 2)

        // No threshold: the stride-32 box (0.2) comes too, with exp(ln 2) · 32 = 64.
        var open = decoder
        open.options.scoreThreshold = -.infinity
        let all = try open.decode(output(rows), shape: [1, 21, 7], inputWidth: 32, inputHeight: 32)
        let wide = try XCTUnwrap(all.first { abs($0.score - 0.2) < 1e-6 })
        XCTAssertEqual(wide.x1, -16, accuracy: 1e-5)
        XCTAssertEqual(wide.x2, 48, accuracy: 1e-5)
        XCTAssertTrue(all.contains { $0.score == 0 }, "every (row, class) pair is a candidate, the empty rows' too")
    }

    func testPlusOneIoUInImagePixels() {
        let a = YoloDetection(x1: 0, y1: 0, x2: 8, y2: 8, score: 1, classIndex: 0)
        let b = YoloDetection(x1: 4, y1: 4, x2: 12, y2: 12, score: 1, classIndex: 0)
        // (8 − 4 + 1)² / (9² + 9² − 5²) = 25 / 137.
        XCTAssertEqual(YoloxDecoder.iouPlusOne(a, b), 25.0 / 137.0, accuracy: 1e-12)
        // Scaled ×10 to image pixels: 41² / (81² + 81² − 41²) = 1681 / 11441.
        XCTAssertEqual(YoloxDecoder.iouPlusOne(a, b, scaleX: 10, scaleY: 10), 1681.0 / 11441.0, accuracy: 1e-12)
    }

    func testShapesThatAreNoGridAreErrors() {
        let decoder = YoloxDecoder(numClasses: 2)
        XCTAssertThrowsError(try decoder.decode([Float](repeating: 0, count: 20 * 7), shape: [1, 20, 7], inputWidth: 32, inputHeight: 32))
        XCTAssertThrowsError(try decoder.decode([Float](repeating: 0, count: 21 * 7), shape: [1, 21, 7], inputWidth: 30, inputHeight: 32))
        XCTAssertNil(decoder.rowCount(inputWidth: 40, inputHeight: 32))
    }

    /// YOLOX has one row per cell, YOLOv5 three; `[1, N, 6]` with N no grid is end-to-end.
    func testFamilyByShape() {
        XCTAssertEqual(ModelFamily.gridCellCount(inputWidth: 320, inputHeight: 320), 2100)
        XCTAssertEqual(ModelFamily.gridCellCount(inputWidth: 640, inputHeight: 480), 80 * 60 + 40 * 30 + 20 * 15)
        XCTAssertNil(ModelFamily.gridCellCount(inputWidth: 300, inputHeight: 300))
        func family(_ input: [Int], _ output: [Int], _ words: String = "") -> ModelFamily {
            ModelFamilyDetector.rowsFamily(inputShape: input, outputShape: output, metadataWords: words).family
        }
        XCTAssertEqual(family([1, 320, 320, 3], [1, 2100, 85]), .yolox)
        XCTAssertEqual(family([1, 640, 640, 3], [1, 8400, 85]), .yolox)
        XCTAssertEqual(family([1, 640, 640, 3], [1, 25200, 85]), .yolov5)
        XCTAssertEqual(family([1, 640, 640, 3], [1, 8400, 85], "ultralytics yolov5n"), .yolov5)
        XCTAssertEqual(family([1, 640, 640, 3], [1, 300, 6]), .endToEnd)
        XCTAssertEqual(family([1, 640, 640, 3], [1, 100, 85], "yolox-s"), .yolox)
        XCTAssertEqual(family([1, 300, 300, 3], [1, 1000, 85]), .yolov5)
    }
}
