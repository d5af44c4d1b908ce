import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class YoloDecoderTests: XCTestCase {
    // MARK: hand-made tensors

    /// YOLOv5 rows (2 classes): cx, cy, w, h, objectness, c0, c1.
    func v5(_ rows: [[Float]]) -> ([Float], [Int]) { (rows.flatMap { $0 }, [1, rows.count, 7]) }

    /// The same rows laid out YOLOv8 style ([1, 4 + C, N], no objectness).
    func v8(_ rows: [[Float]]) -> ([Float], [Int]) {
        let channels = rows[0].count
        var out: [Float] = []
        for k in 0..<channels { for r in rows { out.append(r[k]) } }
        return (out, [1, channels, rows.count])
    }

    func testV5ScoreIsObjectnessTimesClassAndNormalizedUnits() throws {
        let (data, shape) = v5([[0.5, 0.5, 0.2, 0.4, 0.5, 0.6, 0.9],    // score 0.45, class 1
                                [0.1, 0.1, 0.1, 0.1, 0.9, 0.2, 0.1]])   // 0.18 < 0.25
        let r = try YoloDecoder(layout: .yolov5, numClasses: 2).decodeWithUnits(data, shape: shape, inputWidth: 100, inputHeight: 200)
        XCTAssertEqual(r.units, .normalized)
        XCTAssertEqual(r.candidates, 1)
        let d = try XCTUnwrap(r.detections.first)
        XCTAssertEqual(d.classIndex, 1)
        XCTAssertEqual(d.score, Double(Float(0.9) * Float(0.5)))
        XCTAssertEqual(d.x1, 40, accuracy: 1e-4)   // (0.5 − 0.1) · 100
        XCTAssertEqual(d.y1, 60, accuracy: 1e-4)   // (0.5 − 0.2) · 200
        XCTAssertEqual(d.x2, 60, accuracy: 1e-4)
        XCTAssertEqual(d.y2, 140, accuracy: 1e-4)
    }

    func testPixelUnitsAreDetectedFromTheLargestValueOfAllRows() throws {
        // The second row is below the threshold but its width 3 > 2 makes every box pixels.
        let (data, shape) = v8([[50, 60, 10, 20, 0.3, 0.8], [1, 1, 3, 1, 0.01, 0.01]])
        let r = try YoloDecoder(layout: .yolov8, numClasses: 2).decodeWithUnits(data, shape: shape, inputWidth: 640, inputHeight: 640)
        XCTAssertEqual(r.units, .pixels)
        XCTAssertEqual(r.detections.count, 1)
        XCTAssertEqual(r.detections[0].x1, 45)
        XCTAssertEqual(r.detections[0].y2, 70)
        XCTAssertEqual(r.detections[0].score, Double(Float(0.8)))
        // Exactly 2.0 still counts as normalized.
        let (d2, s2) = v8([[0.5, 0.5, 2.0, 0.1, 0.9, 0]])
        XCTAssertEqual(try YoloDecoder(layout: .yolov8, numClasses: 2).decodeWithUnits(d2, shape: s2, inputWidth: 10, inputHeight: 10).units, .normalized)
    }

    func testFirstMaximumWinsAndThresholdIsInclusive() throws {
        let (data, shape) = v8([[0.5, 0.5, 0.1, 0.1, 0.25, 0.25]])
        let r = try YoloDecoder(layout: .yolov8, numClasses: 2).decode(data, shape: shape, inputWidth: 10, inputHeight: 10)
        XCTAssertEqual(r.count, 1)
        XCTAssertEqual(r[0].classIndex, 0)
    }

    func testClassAwareNMSWithStableTies() throws {
        // Three overlapping boxes: classes 0, 0, 1; scores 0.9, 0.9 (tie), 0.8.
        let rows: [[Float]] = [[0.50, 0.5, 0.2, 0.2, 0.9, 0.0],
                               [0.51, 0.5, 0.2, 0.2, 0.9, 0.0],
                               [0.52, 0.5, 0.2, 0.2, 0.0, 0.8]]
        let (data, shape) = v8(rows)
        let aware = try YoloDecoder(layout: .yolov8, numClasses: 2).decode(data, shape: shape, inputWidth: 100, inputHeight: 100)
        XCTAssertEqual(aware.map(\.classIndex), [0, 1])
        XCTAssertEqual(aware[0].x1, 40, accuracy: 1e-4)   // the first row of the tie is kept
        var options = YoloDecoderOptions()
        options.classAware = false
        let agnostic = try YoloDecoder(layout: .yolov8, numClasses: 2, options: options).decode(data, shape: shape, inputWidth: 100, inputHeight: 100)
        XCTAssertEqual(agnostic.count, 1)
        options.maxDetections = 1
        options.classAware = true
        XCTAssertEqual(try YoloDecoder(layout: .yolov8, numClasses: 2, options: options).decode(data, shape: shape, inputWidth: 100, inputHeight: 100).count, 1)
    }

    func testReferenceIoUAndZeroAreaBoxes() {
        let a = YoloDetection(x1: 0, y1: 0, x2: 10, y2: 10, score: 1, classIndex: 0)
        let b = YoloDetection(x1: 5, y1: 0, x2: 15, y2: 10, score: 1, classIndex: 0)
        XCTAssertEqual(YoloDecoder.iou(a, b), 50.0 / 150.0, accuracy: 1e-12)
        let p = YoloDetection(x1: 3, y1: 3, x2: 3, y2: 3, score: 1, classIndex: 0)
        XCTAssertEqual(YoloDecoder.iou(p, p), 0)
        let kept = YoloDecoder.greedyNMS([p, p, a], iouThreshold: 0.45, classAware: true, maxDetections: 100)
        XCTAssertEqual(kept.count, 3)
    }

    func testMappingToTheImageClips() {
        let d = YoloDetection(x1: -10, y1: 100, x2: 650, y2: 320, score: 0.5, classIndex: 3)
        let m = d.mappedToImage(imageWidth: 1200, imageHeight: 600, inputWidth: 640, inputHeight: 640)
        XCTAssertEqual(m.x1, 0)
        XCTAssertEqual(m.x2, 1200)
        XCTAssertEqual(m.y1, 93.75, accuracy: 1e-9)
        XCTAssertEqual(m.y2, 300, accuracy: 1e-9)
        let n = m.detection(frameWidth: 1200, frameHeight: 600, labels: LabelMap(names: ["a", "b", "c", "d"]))
        XCTAssertEqual(n.label, "d")
        XCTAssertEqual(n.box.width, 1)
    }

    func testShapeErrorsAndLayoutDetection() {
        let d = YoloDecoder(layout: .yolov5, numClasses: 2)
        XCTAssertThrowsError(try d.decode([0, 0, 0], shape: [1, 1, 7], inputWidth: 10, inputHeight: 10))
        XCTAssertThrowsError(try d.decode([Float](repeating: 0, count: 8), shape: [1, 1, 8], inputWidth: 10, inputHeight: 10))
        XCTAssertThrowsError(try d.decode([Float](repeating: 0, count: 7), shape: [1, 1, 7], inputWidth: 0, inputHeight: 10))
        XCTAssertThrowsError(try d.decode([], shape: [1, -1, 7], inputWidth: 10, inputHeight: 10))
        XCTAssertEqual(YoloDecoder.detectLayout(shape: [1, 25200, 85], numClasses: 80), .yolov5)
        XCTAssertEqual(YoloDecoder.detectLayout(shape: [1, 84, 8400], numClasses: 80), .yolov8)
        XCTAssertNil(YoloDecoder.detectLayout(shape: [1, 10, 10], numClasses: 80))
        XCTAssertEqual(Dequantize.uint8([3, 4], scale: 0.5, zeroPoint: 3), [0, 0.5])
        XCTAssertEqual(Dequantize.int8([-128, 0], scale: 0.25, zeroPoint: -128), [0, 32])
    }

    // MARK: real model outputs against the YOLO reference goldens

    /// The tensor goldens' `image` case is `cats_and_dogs` stretched to 640×640 with Pillow
    /// BILINEAR and run with the reference kernels — the very input and kernels of the
    /// `__ref_kernels` detection goldens (same `input_rgb_sha256`), so decoding those raw
    /// outputs must give the golden detections.
    func checkAgainstReferenceGolden(model: String, layout: YoloLayout) throws {
        let (values, shape) = try GoldenTensors.outputFloats(model, 0)
        let golden = try GoldenTensors.detectionGolden("\(model)__conf0.25_iou0.45__ref_kernels")
        let image = try XCTUnwrap(GoldenTensors.goldenImage(golden, named: "cats_and_dogs"))
        let width = try XCTUnwrap(image["width"] as? Int), height = try XCTUnwrap(image["height"] as? Int)
        let refs = try XCTUnwrap(image["detections"] as? [[String: Any]])

        // Same input buffer as the golden, else the comparison means nothing.
        let inputSHA = try XCTUnwrap(image["input_rgb_sha256"] as? String)
        let manifest = try GoldenTensors.manifest(model)
        let inputs = try XCTUnwrap(manifest["inputs"] as? [[String: Any]])
        let source = try XCTUnwrap(inputs.first?["source"] as? [String: Any])
        XCTAssertEqual(source["image"] as? String, "images/cats_and_dogs.jpg")
        XCTAssertTrue((source["resize"] as? String ?? "").contains("bilinear to 640x640"))
        XCTAssertEqual(manifest["resolver"] as? String, "BUILTIN_REF")
        // yolov5n-int8 takes the raw uint8 pixels, so its input file's SHA-256 is the
        // resized RGB buffer's: the golden's `input_rgb_sha256` must be that buffer.
        let rawInputs = try XCTUnwrap(GoldenTensors.manifest("yolov5n-int8")["inputs"] as? [[String: Any]])
        XCTAssertEqual(rawInputs.first?["sha256"] as? String, inputSHA, "the golden was computed from another input buffer")

        XCTAssertEqual(YoloDecoder.detectLayout(shape: shape, numClasses: 80), layout)
        let result = try YoloDecoder(layout: layout, numClasses: 80).decodeWithUnits(values, shape: shape, inputWidth: 640, inputHeight: 640)
        XCTAssertEqual(result.units.rawValue, (image["box_units"] as? String).map { $0 == "normalised" ? "normalized" : $0 })
        XCTAssertEqual(result.candidates, image["candidates_above_threshold"] as? Int, "\(model): rows above 0.25")
        let mapped = result.detections.map { $0.mappedToImage(imageWidth: width, imageHeight: height, inputWidth: 640, inputHeight: 640) }
        XCTAssertEqual(mapped.count, refs.count, "\(model): detection count")
        for (d, ref) in zip(mapped, refs) {
            let xyxy = try XCTUnwrap(ref["xyxy"] as? [Double])
            let category = try XCTUnwrap((ref["categories"] as? [[String: Any]])?.first)
            XCTAssertEqual(d.classIndex, category["index"] as? Int, "\(model): class")
            XCTAssertEqual(d.score, try XCTUnwrap(category["score"] as? Double), accuracy: 6e-7, "\(model): score")
            for (a, b) in zip([d.x1, d.y1, d.x2, d.y2], xyxy) {
                XCTAssertEqual(a, b, accuracy: 6e-4, "\(model): box corner")
            }
        }
    }

    func testYolov5Int8MatchesReferenceGolden() throws {
        try checkAgainstReferenceGolden(model: "yolov5n-int8", layout: .yolov5)
    }

    func testYolov5Fp16MatchesReferenceGolden() throws {
        // No random case for fp16 but the image case exists.
        try checkAgainstReferenceGolden(model: "yolov5n-fp16", layout: .yolov5)
    }

    func testYolov8Int8MatchesReferenceGolden() throws {
        try checkAgainstReferenceGolden(model: "yolov8n_int8", layout: .yolov8)
    }

    func testYolov8FullIntegerMatchesReferenceGolden() throws {
        try checkAgainstReferenceGolden(model: "yolov8n_full_integer_quant", layout: .yolov8)
    }
}
