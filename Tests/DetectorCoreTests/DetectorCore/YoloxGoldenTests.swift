import Foundation
import XCTest
@testable import DetectorCore
@testable import objdetect
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// YOLOX end to end against `../shared/goldens/detections/yolox_*__ref_kernels.json` (the numpy
/// YOLOX reference of `reference/yolox_goldens.py` around LiteRT's reference kernels, which our
/// integer kernels match bit for bit), with nothing set but the goldens' threshold: the family,
/// the preprocessing (top-left letterbox, grey 114, Pillow bilinear, BGR, 0…255) and the decoding
/// are auto-detected. The match rule is the README's ("Matching tolerance"), as for the YOLO goldens.
final class YoloxGoldenTests: XCTestCase {
    func check(_ stem: String, minimumFraction: Double = 0.9) throws {
        var options = ObjectDetectorOptions(model: .file(try SharedData.url("models/\(stem).tflite").path))
        options.scoreThreshold = 0.3   // the goldens' conf (YOLOX's demo)
        options.threadCount = 1
        let pipeline = try DetectorPipeline(options: options)
        XCTAssertEqual(pipeline.plan.family, .yolox)
        XCTAssertEqual(pipeline.plan.tensorOptions.resizeMode, .letterboxTopLeft)
        XCTAssertEqual(pipeline.plan.tensorOptions.letterboxFill, 114)
        XCTAssertEqual(pipeline.plan.tensorOptions.channelOrder, .bgr)
        XCTAssertEqual(pipeline.plan.tensorOptions.resampler, .pillowBilinear)
        let labels = try String(contentsOf: SharedData.url("models/yolo_coco80_labels.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        XCTAssertEqual(pipeline.labels.names, labels, "YOLOX's COCO_CLASSES are YOLO's 80 names")

        let golden = try GoldenTensors.detectionGolden("\(stem)__conf0.30_iou0.45__ref_kernels")
        var total = GoldenMatchRule.Outcome()
        var passing = 0, sameInput = 0
        for name in ObjectDetectorGoldenTests.imageNames {
            let entry = try XCTUnwrap(GoldenTensors.goldenImage(golden, named: name), name)
            let image = try ImageDecoder.decode(contentsOf: SharedData.url("images/png/\(name).png").path).image
            // The letterboxed RGB canvas and the BGR tensor bytes the reference fed.
            let tensor = try ImageToTensor.convert(image, options: pipeline.plan.tensorOptions)
            let tensorBytes: [UInt8]
            switch tensor.values {
            case let .int8(v): tensorBytes = v.map { UInt8(bitPattern: $0) }
            case let .float32(v): tensorBytes = v.withUnsafeBytes { Array($0) }
            case let .uint8(v): tensorBytes = v
            }
            if SHA256Hash.hexDigest(tensor.resized.pixels) == entry["input_rgb_sha256"] as? String,
               SHA256Hash.hexDigest(tensorBytes) == entry["input_tensor_sha256"] as? String {
                sameInput += 1
            }
            let refs = try XCTUnwrap(entry["detections"] as? [[String: Any]]).map { d -> GoldenMatchRule.Item in
                let bb = try XCTUnwrap(d["bounding_box"] as? [String: Double])
                let c = try XCTUnwrap((d["categories"] as? [[String: Any]])?.first)
                return .init(box: (bb["origin_x"] ?? 0, bb["origin_y"] ?? 0, bb["width"] ?? 0, bb["height"] ?? 0),
                             score: try XCTUnwrap(c["score"] as? Double), name: c["category_name"] as? String ?? "")
            }
            let found = try pipeline.detect(image).map { o in
                GoldenMatchRule.Item(box: (o.frame.x, o.frame.y, o.frame.width, o.frame.height), score: Double(o.score), name: o.category.text)
            }
            let outcome = GoldenMatchRule.compare(references: refs, port: found, cutoff: 0.3)
            total.add(outcome)
            if outcome.passes { passing += 1 }
        }
        print("[YOLOX \(stem) ref kernels] matched \(total.matched)/\(total.references), images passing \(passing)/12, same input tensor \(sameInput)/12, missing penalised \(total.missingPenalised) excused \(total.missingExcused), extras penalised \(total.extrasPenalised) excused \(total.extrasExcused), worst |Δscore| \(total.worstScoreDelta), worst IoU \(total.worstIoU)")
        XCTAssertEqual(sameInput, 12, "the letterbox, resampler, channel order or values differ from the reference's")
        XCTAssertGreaterThan(total.references, 0)
        XCTAssertGreaterThanOrEqual(Double(total.matched), minimumFraction * Double(total.references),
                                    "\(stem): \(total.matched)/\(total.references) reference detections matched")
    }

    func testYoloxInt8MatchesTheReferenceKernelsGolden() throws { try check("yolox_nano_ti_lite_320_int8") }
    func testYoloxFp16MatchesTheReferenceKernelsGolden() throws { try check("yolox_nano_ti_lite_320_fp16") }

    /// Both files are told from YOLOv5 by their row count (2100 = 40² + 20² + 10² at 320 × 320).
    func testBothModelsAreDetectedAsYolox() throws {
        for stem in ["yolox_nano_ti_lite_320_int8", "yolox_nano_ti_lite_320_fp16"] {
            let model = try TFLiteModel(contentsOfFile: SharedData.url("models/\(stem).tflite").path)
            let info = ModelFamilyDetector.detect(model)
            XCTAssertEqual(info.family, .yolox, info.reason)
            XCTAssertEqual(info.classCount, 80)
            XCTAssertEqual(info.candidateCount, 2100)
        }
    }
}
