import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Runs every quantized model golden in `../shared/goldens/tensors` through the interpreter and
/// compares with the official runtime's reference-kernel outputs: integer outputs element by
/// element (bar: ≥ 99.9 % identical, never more than 1 step off; goal 100 %), the SSD
/// post-processing outputs exactly for count and classes and within 1e-5 for boxes and scores.
final class QuantizedConformanceTests: XCTestCase {
    static let models = [
        "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29",
        "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_no_metadata",
        "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_score_calibration",
        "automl_labeler_model",
        "mobilenet_v1_0.25_224_quant",
        "mobilenet_v2_1.0_224_quant",
        "yolov5n-int8",
        "yolov8n_full_integer_quant",
    ]

    struct TensorEntry: Decodable {
        let dtype: String
        let shape: [Int]
        let file: String
    }
    struct Manifest: Decodable {
        let model: String
        let inputs: [TensorEntry]
        let outputs: [TensorEntry]
    }

    func testSSDMobileNetQuant() throws { try check("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29") }
    func testSSDMobileNetQuantNoMetadata() throws { try check("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_no_metadata") }
    func testSSDMobileNetQuantScoreCalibration() throws { try check("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_score_calibration") }
    func testAutoMLLabeler() throws { try check("automl_labeler_model") }
    func testMobileNetV1Quant() throws { try check("mobilenet_v1_0.25_224_quant") }
    func testMobileNetV2Quant() throws { try check("mobilenet_v2_1.0_224_quant") }
    func testYoloV5nInt8() throws { try check("yolov5n-int8") }
    func testYoloV8nFullIntegerQuant() throws { try check("yolov8n_full_integer_quant") }

    func check(_ stem: String) throws {
        let shared = try SharedData.require()
        let dir = shared.appendingPathComponent("goldens/tensors/\(stem)")
        let cases = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertFalse(cases.isEmpty, "no golden cases for \(stem)")
        for name in cases {
            let caseDir = dir.appendingPathComponent(name)
            let manifestURL = caseDir.appendingPathComponent("manifest.json")
            guard FileManager.default.fileExists(atPath: manifestURL.path) else { continue }
            let manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: manifestURL))
            let interpreter = try Interpreter(contentsOfFile: shared.appendingPathComponent(manifest.model).path,
                                              options: .init(threadCount: 2))
            for (i, input) in manifest.inputs.enumerated() {
                try interpreter.copyInput(Data(contentsOf: caseDir.appendingPathComponent(input.file)), at: i)
            }
            try interpreter.invoke()
            let isSSD = manifest.outputs.count == 4 && manifest.outputs.allSatisfy { $0.dtype == "float32" }
            for (i, expected) in manifest.outputs.enumerated() {
                let golden = try Data(contentsOf: caseDir.appendingPathComponent(expected.file))
                let ours = Data(try interpreter.outputBytes(at: i))
                XCTAssertEqual(interpreter.outputs[i].shape, expected.shape, "\(stem)/\(name) output \(i) shape")
                XCTAssertEqual(ours.count, golden.count, "\(stem)/\(name) output \(i) size")
                guard ours.count == golden.count else { continue }
                let label = "\(stem)/\(name) output \(i)"
                switch expected.dtype {
                case "uint8": compareIntegers(ours.map { Int($0) }, golden.map { Int($0) }, label)
                case "int8": compareIntegers(ours.map { Int(Int8(bitPattern: $0)) }, golden.map { Int(Int8(bitPattern: $0)) }, label)
                case "float32" where isSSD:
                    let a = floats(ours), b = floats(golden)
                    if i == 1 || i == 3 {
                        XCTAssertEqual(a, b, "\(label): classes/count must be identical")
                    } else {
                        let worst = zip(a, b).map { abs($0 - $1) }.max() ?? 0
                        print("[quantized-conformance] \(label): max |diff| \(worst)")
                        XCTAssertLessThanOrEqual(worst, 1e-5, label)
                    }
                default:
                    XCTFail("\(label): unexpected dtype \(expected.dtype)")
                }
            }
        }
    }

    func floats(_ d: Data) -> [Float] { d.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) } }

    func compareIntegers(_ ours: [Int], _ golden: [Int], _ label: String) {
        var same = 0, worst = 0
        for (a, b) in zip(ours, golden) {
            if a == b { same += 1 } else { worst = max(worst, abs(a - b)) }
        }
        let fraction = Double(same) / Double(max(golden.count, 1))
        print("[quantized-conformance] \(label): \(same)/\(golden.count) identical (\(String(format: "%.4f", fraction * 100)) %), max diff \(worst)")
        XCTAssertGreaterThanOrEqual(fraction, 0.999, "\(label): identical fraction")
        XCTAssertLessThanOrEqual(worst, 1, "\(label): max step difference")
    }
}
