import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Decoders on the official runtime's raw outputs (`goldens/tensors/<model>/image`):
/// `cats_and_dogs.jpg` (1200×600) **stretched** with Pillow bilinear to the model input,
/// reference kernels. The MediaPipe goldens letterbox (faces) or use another resampler
/// (SSD), so these are plausibility checks against them, not exact comparisons (the exact
/// ones are `YoloDecoderTests` and the task-level `ObjectDetectorGoldenTests`).
final class RealOutputDecodingTests: XCTestCase {
    func anchorOutputs(_ model: String) throws -> (boxes: [Float], boxesShape: [Int], scores: [Float], scoresShape: [Int]) {
        let b = try GoldenTensors.outputFloats(model, 0)
        let s = try GoldenTensors.outputFloats(model, 1)
        return (b.values, b.shape, s.values, s.shape)
    }

    func testFullRangeFaceDecodesTheGoldensAnimalFaceAtTheSamePlace() throws {
        // The dense full-range golden reports one "face" (0.71, an animal face) on
        // cats_and_dogs. Decoding the stretched run must find it at the same centre; a
        // swapped x/y order or wrong anchors would put it elsewhere.
        var config = DetectorDecoderConfig.faceFullRange
        config.decoding?.minScoreThresh = 0.3
        let o = try anchorOutputs("face_detection_full_range")
        try config.check(inputShape: [1, 192, 192, 3], outputShapes: [o.boxesShape, o.scoresShape])
        let found = try config.makeAnchorPostProcessor().run(boxes: o.boxes, boxesShape: o.boxesShape, scores: o.scores, scoresShape: o.scoresShape)
        XCTAssertEqual(found.count, 1)
        let face = try XCTUnwrap(found.first)
        XCTAssertEqual(face.keypoints.count, 6)
        XCTAssertEqual(face.label, "face")

        let golden = try GoldenTensors.detectionGolden("face_full_range_dense__conf0.50")
        let ref = try XCTUnwrap((GoldenTensors.goldenImage(golden, named: "cats_and_dogs")?["detections"] as? [[String: Any]])?.first)
        let bb = try XCTUnwrap(ref["relative_bounding_box"] as? [String: Double])
        let refCentre = (bb["xmin"]! + bb["width"]! / 2, bb["ymin"]! + bb["height"]! / 2)
        XCTAssertEqual(Double(face.box.xmin + face.box.width / 2), refCentre.0, accuracy: 0.03)
        XCTAssertEqual(Double(face.box.ymin + face.box.height / 2), refCentre.1, accuracy: 0.03)
        // Keypoints lie in or near their box.
        for k in face.keypoints {
            XCTAssertGreaterThan(k.x, face.box.xmin - 0.05)
            XCTAssertLessThan(k.x, face.box.xmax + 0.05)
        }
    }

    func testShortRangeAndPalmFindNothingOnCatsAndDogs() throws {
        // As in the golden (short range finds no face on cats_and_dogs), and no hands.
        for (model, config) in [("face_detection_short_range", DetectorDecoderConfig.faceShortRange),
                                ("palm_detection_lite", DetectorDecoderConfig.palm)] {
            let o = try anchorOutputs(model)
            try config.check(inputShape: [1, config.inputHeight, config.inputWidth, 3], outputShapes: [o.boxesShape, o.scoresShape])
            let pipeline = try config.makeAnchorPostProcessor()
            XCTAssertEqual(try pipeline.run(boxes: o.boxes, boxesShape: o.boxesShape, scores: o.scores, scoresShape: o.scoresShape).count, 0, model)
            // Without a threshold every box decodes with a sigmoid score in (0, 1).
            var open = config.decoding!
            open.minScoreThresh = nil
            let all = try RawAnchorDecoder(options: open, anchors: pipeline.decoder.anchors)
                .decode(boxes: o.boxes, boxesShape: o.boxesShape, scores: o.scores, scoresShape: o.scoresShape)
            XCTAssertGreaterThan(all.count, open.numBoxes * 9 / 10, model)
            XCTAssertTrue(all.allSatisfy { $0.score > 0 && $0.score < 0.5 && $0.keypoints.count == open.numKeypoints }, model)
        }
    }

    func testSsdPostProcessOutputsDecodeToTheGoldensCats() throws {
        let model = "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29"
        let outputs = try (0..<4).map { try GoldenTensors.outputFloats(model, $0).values }
        let labels = LabelMap(fileContents: try String(contentsOf: SharedData.url("models/coco_ssd_mobilenet_v1_labelmap.txt"), encoding: .utf8))
        let found = try SsdPostProcessDecoder(labels: labels)
            .decode(locations: outputs[0], classes: outputs[1], scores: outputs[2], count: outputs[3])
        XCTAssertEqual(found.count, 10)
        XCTAssertEqual(found.map(\.score), found.map(\.score).sorted(by: >))
        let pixels = DetectionProjection.identity.apply(found).map { PixelRect(truncating: $0.box, imageWidth: 1200, imageHeight: 600) }
        // Top detection worked out by hand from the raw row [0.66346115, 0.04269294, 0.99057764, 0.3698094], class 16.
        XCTAssertEqual(found[0].label, "cat")
        XCTAssertEqual(pixels[0], PixelRect(x: 51, y: 398, width: 392, height: 196))
        // The three strongest decoded boxes each coincide (same class, IoU ≥ 0.85) with a
        // detection MediaPipe reported for this image with its own resampler and kernels.
        let golden = try GoldenTensors.detectionGolden("ssd_mobilenet_v1__default")
        let refs = try XCTUnwrap(GoldenTensors.goldenImage(golden, named: "cats_and_dogs")?["detections"] as? [[String: Any]])
        let refItems: [GoldenMatchRule.Item] = refs.compactMap { r in
            guard let bb = r["bounding_box"] as? [String: Int], let c = (r["categories"] as? [[String: Any]])?.first else { return nil }
            return .init(box: (Double(bb["origin_x"]!), Double(bb["origin_y"]!), Double(bb["width"]!), Double(bb["height"]!)),
                         score: c["score"] as? Double ?? 0, name: c["category_name"] as? String ?? "")
        }
        for i in 0..<3 {
            let p = GoldenMatchRule.Item(box: (Double(pixels[i].x), Double(pixels[i].y), Double(pixels[i].width), Double(pixels[i].height)),
                                         score: Double(found[i].score), name: found[i].label ?? "")
            let best = refItems.filter { $0.name == p.name }.map { GoldenMatchRule.iou($0, p) }.max() ?? 0
            XCTAssertGreaterThanOrEqual(best, 0.85, "decoded detection \(i) (\(p.name)) has no counterpart in the golden")
        }
    }
}
