import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Every float and hybrid model of `../shared/goldens/tensors` against the official runtime's
/// reference-kernel outputs: each output element within
/// max(1e-4 · max(1, max|golden|), the optimized builtin kernels' recorded spread).
final class FloatConformanceTests: XCTestCase {
    static let models = [
        "face_detection_short_range", "face_detection_full_range", "palm_detection_lite",
        "mobilenet_v1_0.25_224_1_metadata_1", "deeplabv3", "dilated_conv", "yolov5n-fp16", "yolov8n_int8",
    ]

    struct Manifest: Decodable {
        struct Spread: Decodable { let max_abs_diff: Double }
        struct Tensor: Decodable {
            let position: Int
            let dtype: String
            let shape: [Int]
            let model_shape: [Int]
            let file: String
            let builtin_spread: Spread?
        }
        let model: String
        let inputs: [Tensor]
        let outputs: [Tensor]
    }

    func check(_ stem: String) throws {
        let dir = try SharedData.url("goldens/tensors/\(stem)")
        let cases = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertFalse(cases.isEmpty)
        for name in cases {
            let caseDir = dir.appendingPathComponent(name)
            let manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: caseDir.appendingPathComponent("manifest.json")))
            let interpreter = try Interpreter(contentsOfFile: try SharedData.url(manifest.model).path, options: .init(threadCount: 2))
            for t in manifest.inputs where t.shape != t.model_shape {
                try interpreter.resizeInput(at: t.position, to: t.shape)
            }
            for t in manifest.inputs {
                try interpreter.copyInput(Data(contentsOf: caseDir.appendingPathComponent(t.file)), at: t.position)
            }
            try interpreter.invoke()
            for t in manifest.outputs {
                XCTAssertEqual(t.dtype, "float32")
                XCTAssertEqual(interpreter.outputs[t.position].shape, t.shape, "\(stem)/\(name) output \(t.position) shape")
                let golden = try Data(contentsOf: caseDir.appendingPathComponent(t.file)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
                let ours = try interpreter.outputFloats(at: t.position)
                guard golden.count == ours.count else {
                    XCTFail("\(stem)/\(name) output \(t.position): \(ours.count) values, golden has \(golden.count)")
                    continue
                }
                let maxAbs = golden.reduce(Float(0)) { max($0, abs($1)) }
                let tolerance = max(1e-4 * Double(max(1, maxAbs)), t.builtin_spread?.max_abs_diff ?? 0)
                var worst: Double = 0, worstIndex = 0
                for i in 0..<golden.count {
                    let d = Double(abs(golden[i] - ours[i]))
                    if !(d <= worst) { worst = d; worstIndex = i }
                }
                print("[float conformance] \(stem)/\(name) output \(t.position): worst |Δ| \(worst) (relative to max|golden| \(worst / Double(max(1, maxAbs)))), tolerance \(tolerance)")
                XCTAssertLessThanOrEqual(worst, tolerance,
                                         "\(stem)/\(name) output \(t.position): worst error \(worst) at \(worstIndex) (golden \(golden[worstIndex]), ours \(ours[worstIndex]))")
            }
        }
    }

    func testFaceDetectionShortRange() throws { try check("face_detection_short_range") }
    func testFaceDetectionFullRange() throws { try check("face_detection_full_range") }
    func testPalmDetectionLite() throws { try check("palm_detection_lite") }
    func testMobilenetV1Float() throws { try check("mobilenet_v1_0.25_224_1_metadata_1") }
    func testDeeplabV3() throws { try check("deeplabv3") }
    func testDilatedConv() throws { try check("dilated_conv") }
    func testYoloV5nFP16() throws { try check("yolov5n-fp16") }
    func testYoloV8nHybridInt8() throws { try check("yolov8n_int8") }
}
