import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class FlexBuffersTests: XCTestCase {
    /// Expected values were read independently with the official `flatbuffers` Python package
    /// (`flexbuffers.Loads` on the operator's custom_options located with `flatbuffers.table.Table`):
    /// {'_output_quantized': True, 'h_scale': 5.0, 'max_classes_per_detection': 1, 'max_detections': 10,
    ///  'nms_iou_threshold': 0.6000000238418579, 'nms_score_threshold': 9.99999993922529e-09,
    ///  'num_classes': 90, 'w_scale': 5.0, 'x_scale': 10.0, 'y_scale': 10.0}
    func testSSDPostProcessOptions() throws {
        let model = try TFLiteModel(contentsOfFile: try SharedData.url("models/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite").path)
        let op = try XCTUnwrap(model.mainSubgraph.operators.first { $0.opName == "TFLite_Detection_PostProcess" })
        XCTAssertEqual(op.customOptions?.count, 217)
        let flex = try FlexBuffers.decode(model.customOptionsBytes(of: op))
        guard case let .map(map) = flex else { return XCTFail("options are not a map") }
        XCTAssertEqual(Set(map.keys), ["_output_quantized", "h_scale", "max_classes_per_detection", "max_detections",
                                       "nms_iou_threshold", "nms_score_threshold", "num_classes", "w_scale", "x_scale", "y_scale"])
        let o = try DetectionPostProcessOptions(model: model, operator: op)
        XCTAssertEqual(o.maxDetections, 10)
        XCTAssertEqual(o.maxClassesPerDetection, 1)
        XCTAssertEqual(o.detectionsPerClass, 100, "absent: the kernel's default")
        XCTAssertFalse(o.useRegularNMS, "absent: the kernel's default")
        XCTAssertEqual(o.nmsScoreThreshold, Float(9.99999993922529e-09))
        XCTAssertEqual(o.nmsIOUThreshold, Float(0.6000000238418579))
        XCTAssertEqual(o.numClasses, 90)
        XCTAssertEqual(o.yScale, 10)
        XCTAssertEqual(o.xScale, 10)
        XCTAssertEqual(o.hScale, 5)
        XCTAssertEqual(o.wScale, 5)
        XCTAssertTrue(o.outputQuantized)
    }

    /// Hand-assembled buffers, byte by byte from the FlexBuffers format description.
    func testScalarsAndVectors() throws {
        // Root int 7, width 1: [value, packed type (INT<<2 | 0), root width].
        XCTAssertEqual(try FlexBuffers.decode([7, 1 << 2, 1]), .int(7))
        // Root int -2 in 2 bytes.
        XCTAssertEqual(try FlexBuffers.decode([0xFE, 0xFF, 1 << 2 | 1, 2]), .int(-2))
        // Root float 1.5 (4 bytes).
        let f: [UInt8] = [0x00, 0x00, 0xC0, 0x3F]
        XCTAssertEqual(try FlexBuffers.decode(f + [3 << 2 | 2, 4]), .float(1.5))
        // Bool true.
        XCTAssertEqual(try FlexBuffers.decode([1, 26 << 2, 1]), .bool(true))
        // String "hi": [len 2, 'h', 'i', 0, offset back to 'h' = 3, packed STRING w1, root width 1].
        XCTAssertEqual(try FlexBuffers.decode([2, 0x68, 0x69, 0, 3, 5 << 2, 1]), .string("hi"))
        // Typed int vector [1, 2, 3]: [len 3, 1, 2, 3, offset 3, VECTOR_INT w1, 1].
        XCTAssertEqual(try FlexBuffers.decode([3, 1, 2, 3, 3, 11 << 2, 1]), .vector([.int(1), .int(2), .int(3)]))
        // Untyped vector [5, true]: [len 2, 5, 1, types INT, BOOL, offset 4, VECTOR w1, 1].
        XCTAssertEqual(try FlexBuffers.decode([2, 5, 1, 1 << 2, 26 << 2, 4, 10 << 2, 1]), .vector([.int(5), .bool(true)]))
    }

    func testMalformedBuffersThrow() {
        XCTAssertThrowsError(try FlexBuffers.decode([]))
        XCTAssertThrowsError(try FlexBuffers.decode([1, 2]))
        // Root width 3 is not a width.
        XCTAssertThrowsError(try FlexBuffers.decode([0, 0, 1 << 2, 3]))
        // String offset pointing before the start.
        XCTAssertThrowsError(try FlexBuffers.decode([9, 5 << 2, 1]))
        // Vector claiming 200 elements.
        XCTAssertThrowsError(try FlexBuffers.decode([200, 1, 1, 11 << 2, 1]))
        // Unknown type 50.
        XCTAssertThrowsError(try FlexBuffers.decode([0, 50 << 2, 1]))
    }

    /// A map whose keys-width slot holds 2⁶⁴ − 1 (found by the `tflite` fuzz target, kept in
    /// `Tests/Fuzz/Regressions/tflite/`): it used to trap converting that to `Int`. Width-8 map
    /// with no values: [keys offset, keys width, count 0] then the root slot (offset 0 back to
    /// the map), the packed type MAP with width 8, root width 8.
    func testMapWithHugeKeysWidthThrows() {
        let bytes: [UInt8] = [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 8)
            + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0, count: 8) + [9 << 2 | 3, 8]
        XCTAssertThrowsError(try FlexBuffers.decode(bytes)) { error in
            XCTAssertTrue("\(error)".contains("keys width"), "\(error)")
        }
    }
}
