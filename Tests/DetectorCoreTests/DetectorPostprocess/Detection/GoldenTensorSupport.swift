import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Reads `shared/goldens/tensors/<model>/<case>/` files (raw little-endian tensors + manifest).
enum GoldenTensors {
    struct TensorInfo {
        var dtype: String
        var shape: [Int]
        var scale: Float?
        var zeroPoint: Int?
        var file: String
    }

    static func manifest(_ model: String, _ testCase: String = "image") throws -> [String: Any] {
        let url = try SharedData.url("goldens/tensors/\(model)/\(testCase)/manifest.json")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        guard let dict = object as? [String: Any] else { throw XCTSkip("manifest is not an object") }
        return dict
    }

    static func outputInfo(_ model: String, _ position: Int, _ testCase: String = "image") throws -> TensorInfo {
        let m = try manifest(model, testCase)
        guard let outputs = m["outputs"] as? [[String: Any]], position < outputs.count else {
            XCTFail("manifest of \(model) has no output \(position)")
            throw XCTSkip("bad manifest")
        }
        let o = outputs[position]
        let q = o["quantization"] as? [String: Any]
        return TensorInfo(dtype: o["dtype"] as? String ?? "", shape: o["shape"] as? [Int] ?? [],
                          scale: (q?["scale"] as? Double).map(Float.init), zeroPoint: q?["zero_point"] as? Int,
                          file: o["file"] as? String ?? "")
    }

    static func bytes(_ model: String, _ file: String, _ testCase: String = "image") throws -> Data {
        try Data(contentsOf: SharedData.url("goldens/tensors/\(model)/\(testCase)/\(file)"))
    }

    /// Output `position` as dequantized floats (float32, uint8 or int8 files).
    static func outputFloats(_ model: String, _ position: Int, _ testCase: String = "image") throws -> (values: [Float], shape: [Int]) {
        let info = try outputInfo(model, position, testCase)
        let data = try bytes(model, info.file, testCase)
        switch info.dtype {
        case "float32":
            var values = [Float](repeating: 0, count: data.count / 4)
            data.withUnsafeBytes { raw in
                for i in 0..<values.count {
                    values[i] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)))
                }
            }
            return (values, info.shape)
        case "uint8":
            return (Dequantize.uint8([UInt8](data), scale: info.scale ?? 1, zeroPoint: info.zeroPoint ?? 0), info.shape)
        case "int8":
            return (Dequantize.int8(data.map { Int8(bitPattern: $0) }, scale: info.scale ?? 1, zeroPoint: info.zeroPoint ?? 0), info.shape)
        default:
            XCTFail("unsupported dtype \(info.dtype)")
            throw XCTSkip("dtype")
        }
    }

    /// A detections golden JSON (`goldens/detections/<name>.json`).
    static func detectionGolden(_ name: String) throws -> [String: Any] {
        let url = try SharedData.url("goldens/detections/\(name).json")
        guard let dict = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] else {
            throw XCTSkip("golden is not an object")
        }
        return dict
    }

    static func goldenImage(_ golden: [String: Any], named name: String) -> [String: Any]? {
        (golden["images"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }
}
