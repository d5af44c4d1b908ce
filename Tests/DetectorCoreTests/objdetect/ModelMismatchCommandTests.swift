import Foundation
import XCTest

/// A model used the wrong way is exit 1 with one line saying what is wrong and what to pass
/// instead — never a result made of garbage (the cases found by trying the CLI as a new user).
final class ModelMismatchCommandTests: XCTestCase {
    func model(_ name: String) throws -> String { try SharedData.url("models/\(name)").path }
    func photo() throws -> String { try SharedData.url("images/cats_and_dogs.jpg").path }

    /// Runs the CLI and returns its one stderr line, checking exit 1 and empty stdout.
    func failure(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let r = try CLIRunner.run(arguments)
        XCTAssertEqual(r.status, 1, r.stderr, file: file, line: line)
        XCTAssertEqual(r.stdout, "", file: file, line: line)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, r.stderr, file: file, line: line)
        return String(lines.first ?? "")
    }

    func testYoloV5ModelWithTheV8DecoderNamesTheV5Decoder() throws {
        XCTAssertEqual(try failure([try photo(), "--model", try model("yolov5n-int8.tflite"), "--decoder", "yolov8"]),
                       "objdetect: the output [1, 25200, 85] has YOLOv5's layout [1, N, 5 + C], not YOLOv8's [1, 4 + C, N]; pass --decoder yolov5.")
    }

    func testYoloV8ModelWithTheV5DecoderNamesTheV8Decoder() throws {
        XCTAssertEqual(try failure([try photo(), "--model", try model("yolov8n_int8.tflite"), "--decoder", "yolov5"]),
                       "objdetect: the output [1, 84, 8400] has YOLOv8's layout [1, 4 + C, N], not YOLOv5's [1, N, 5 + C]; pass --decoder yolov8.")
    }

    func testDetectorAsLabelerIsAnError() throws {
        let message = try failure(["label", try photo(), "--model", try model("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite")])
        XCTAssertEqual(message, "objdetect: this model's outputs [[1, 10, 4], [1, 10], [1, 10], [1]] are a detector's (ssd), not one tensor of class scores [1, C]; detect with it instead (ObjectDetector), and label with an image-classification model.")
    }

    func testDetectorAsPerObjectClassifierIsAnError() throws {
        let ssd = try model("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite")
        let message = try failure([try photo(), "--model", ssd, "--classifier", ssd])
        XCTAssertEqual(message, "objdetect: the classifier model (--classifier): this model's outputs [[1, 10, 4], [1, 10], [1, 10], [1]] are a detector's (ssd), not one tensor of class scores [1, C]; give --classifier an image-classification model.")
    }

    func testClassifierAsDetectorIsAnError() throws {
        XCTAssertEqual(try failure([try photo(), "--model", try model("mobilenet_v1_0.25_224_quant.tflite")]),
                       "objdetect: this model is an image classifier (one output of class scores [1, 1001]), not a detector; label with it instead (ImageLabeler, or as --classifier to classify detected objects).")
    }

    func testLogitOutputsAreNotReportedAsConfidences() throws {
        let v2 = try model("mobilenet_v2_1.0_224_quant.tflite")
        let message = try failure(["label", try photo(), "--model", v2])
        XCTAssertEqual(message, "objdetect: the classifier's output holds logits, not probabilities (its scores come from CONV_2D and no metadata bounds them to 0…1); pass --logits softmax for probabilities, or pass --logits raw to keep the model's own scores.")
        // With the softmax, confidences are probabilities: within 0…1, at most 1 in all.
        let r = try CLIRunner.run(["label", try photo(), "--model", v2, "--logits", "softmax", "--max-results", "1001", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let d = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let confidences = try XCTUnwrap(d["labels"] as? [[String: Any]]).compactMap { $0["confidence"] as? Double }
        XCTAssertEqual(confidences.count, 1001)
        XCTAssertTrue(confidences.allSatisfy { $0 >= 0 && $0 <= 1 })
        XCTAssertEqual(confidences.reduce(0, +), 1, accuracy: 0.01)
    }

    func testUnknownAllowlistNamesListTheClosestLabels() throws {
        XCTAssertEqual(try failure([try photo(), "--model", try model("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite"), "--allow", "persn,dog"]),
                       "objdetect: --allow names a label the model does not have: 'persn' (closest: 'person').")
        XCTAssertEqual(try failure(["label", try photo(), "--model", try model("automl_labeler_model.tflite"), "--deny", "rose"]),
                       "objdetect: --deny names a label the model does not have: 'rose' (closest: 'roses').")
    }
}
