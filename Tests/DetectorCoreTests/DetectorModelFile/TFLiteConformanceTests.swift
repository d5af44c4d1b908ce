import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The reader's view of every shared model must equal what the official runtime reports
/// (`../shared/goldens/models/<stem>.json`, made by `reference/model_details.py`), field by field.
final class TFLiteConformanceTests: XCTestCase {
    static let models = [
        "automl_labeler_model", "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29",
        "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_no_metadata",
        "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_score_calibration", "deeplabv3", "dilated_conv",
        "face_detection_full_range", "face_detection_short_range", "mobilenet_v1_0.25_224_1_metadata_1",
        "mobilenet_v1_0.25_224_quant", "mobilenet_v2_1.0_224_quant", "palm_detection_lite", "yolov5n-fp16",
        "yolov5n-int8", "yolov8n_full_integer_quant", "yolov8n_int8",
    ]

    func golden(_ stem: String) throws -> [String: Any] {
        let data = try Data(contentsOf: try SharedData.url("goldens/models/\(stem).json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func ints(_ v: Any?) -> [Int] { (v as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.intValue } }

    /// Compares one model with its golden; returns the number of tensors and ops checked.
    func check(model: TFLiteModel, golden g: [String: Any], label: String) -> (tensors: Int, ops: Int) {
        let graph = model.mainSubgraph
        XCTAssertEqual(graph.inputs, ints(g["inputs"]), "\(label) inputs")
        XCTAssertEqual(graph.outputs, ints(g["outputs"]), "\(label) outputs")
        let tensors = g["tensors"] as? [[String: Any]] ?? []
        XCTAssertEqual(graph.tensors.count, tensors.count, "\(label) tensor count")
        for (t, gt) in zip(graph.tensors, tensors) {
            let where_ = "\(label) tensor \(t.index)"
            XCTAssertEqual(t.index, (gt["index"] as? NSNumber)?.intValue, where_)
            XCTAssertEqual(t.name, gt["name"] as? String, where_)
            XCTAssertEqual(t.type.numpyName, gt["dtype"] as? String, where_)
            XCTAssertEqual(t.shape, ints(gt["shape"]), where_)
            XCTAssertEqual(t.shapeSignature, ints(gt["shape_signature"]), where_)
            let q = gt["quantization"] as? [String: Any] ?? [:]
            let goldenScales = (q["scales"] as? [Any] ?? []).compactMap { ($0 as? NSNumber).map { Float($0.doubleValue) } }
            let goldenZeroPoints = ints(q["zero_points"]).map { Int64($0) }
            let affine = t.quantization.map { $0.isAffine } ?? false
            XCTAssertEqual(affine ? t.quantization?.scales ?? [] : [], goldenScales, "\(where_) scales")
            XCTAssertEqual(affine ? t.quantization?.zeroPoints ?? [] : [], goldenZeroPoints, "\(where_) zero points")
            XCTAssertEqual(affine ? t.quantization?.quantizedDimension ?? 0 : 0, (q["quantized_dimension"] as? NSNumber)?.intValue, "\(where_) quantized dimension")
        }
        let ops = g["ops"] as? [[String: Any]] ?? []
        XCTAssertEqual(graph.operators.count, ops.count, "\(label) op count")
        for (op, go) in zip(graph.operators, ops) {
            let where_ = "\(label) op \(op.index)"
            XCTAssertEqual(op.index, (go["index"] as? NSNumber)?.intValue, where_)
            XCTAssertEqual(op.opName, go["op_name"] as? String, where_)
            XCTAssertEqual(op.inputs, ints(go["inputs"]), where_)
            XCTAssertEqual(op.outputs, ints(go["outputs"]), where_)
        }
        return (tensors.count, ops.count)
    }

    func testEveryModelMatchesItsGolden() throws {
        var tensorCount = 0, opCount = 0
        for stem in Self.models {
            let model = try TFLiteModel(contentsOfFile: try SharedData.url("models/\(stem).tflite").path)
            let n = check(model: model, golden: try golden(stem), label: stem)
            tensorCount += n.tensors
            opCount += n.ops
        }
        // Totals over the 16 goldens.
        XCTAssertEqual(tensorCount, 4206)
        XCTAssertEqual(opCount, 2405)
    }

    func testAutoMLFolderModelMatchesLabelerGolden() throws {
        // automl_flowers/model.tflite is built from automl_labeler_model.tflite.
        let model = try TFLiteModel(contentsOfFile: try SharedData.url("models/automl_flowers/model.tflite").path)
        _ = check(model: model, golden: try golden("automl_labeler_model"), label: "automl_flowers/model")
    }

    func testReadingFromDataEqualsReadingFromFile() throws {
        let url = try SharedData.url("models/dilated_conv.tflite")
        let fromFile = try TFLiteModel(contentsOfFile: url.path)
        let fromData = try TFLiteModel(data: try Data(contentsOf: url))
        XCTAssertEqual(fromFile.subgraphs, fromData.subgraphs)
        XCTAssertEqual(fromFile.buffers, fromData.buffers)
    }

    func testOperatorCodesOptionsAndConstantViews() throws {
        let model = try TFLiteModel(contentsOfFile: try SharedData.url("models/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite").path)
        XCTAssertEqual(model.version, 3)
        let graph = model.mainSubgraph
        let conv = try XCTUnwrap(graph.operators.first { $0.builtin == .conv2D })
        guard case let .conv2D(options) = conv.builtinOptions else { return XCTFail("CONV_2D without Conv2DOptions") }
        XCTAssertTrue([1, 2].contains(options.strideWidth))
        XCTAssertEqual(options.dilationWidthFactor, 1)
        // A conv weight tensor: its constant bytes are a view of exactly elementCount uint8 values.
        let weights = graph.tensors[conv.inputs[1]]
        let bytes = try XCTUnwrap(model.constantBytes(of: weights))
        XCTAssertEqual(bytes.count, weights.elementCount)
        // ... pointing into the model's own storage (no copy).
        let base = try XCTUnwrap(model.storage.bytes.baseAddress)
        let start = try XCTUnwrap(bytes.baseAddress)
        XCTAssertTrue(start >= base && start + bytes.count <= base + model.storage.count)
        // Note: no alignment check: this 2018 TOCO model predates force_align and its buffers are only 4-byte aligned.
        XCTAssertEqual(Int(bitPattern: start) % 4, 0)
        // Activations have no data.
        XCTAssertNil(model.constantBytes(of: graph.tensors[graph.inputs[0]]))
        let post = try XCTUnwrap(graph.operators.last)
        XCTAssertTrue(post.code.isCustom)
        XCTAssertEqual(post.code.customCode, "TFLite_Detection_PostProcess")
        XCTAssertNotNil(post.customOptions)
    }
}
