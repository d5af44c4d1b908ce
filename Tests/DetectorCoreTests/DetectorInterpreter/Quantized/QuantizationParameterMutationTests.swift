import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Real quantized models with their quantization parameters damaged (NaN, infinite, zero,
/// negative and huge scales; zero points at and past the 8-bit range) must load and run or be
/// rejected with a typed error, never trap: the fast integer paths derive table sizes,
/// multipliers and shifts from these values.
final class QuantizationParameterMutationTests: XCTestCase {
    private struct Rng {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % n
        }
    }

    private let badScales: [Float] = [.nan, .infinity, -.infinity, 0, -1, 1e-38, 1e38, .leastNonzeroMagnitude, 3.4e38, 1e-7, 1e7]
    private let badZeroPoints: [Int64] = [-129, -128, 127, 128, 255, 256, 383, -384, 70_000, -70_000, Int64(Int32.max) + 1, Int64.min]

    private func mutate(_ model: String, count: Int) throws {
        let url = try SharedData.url("models/\(model).tflite")
        let graph = try InterpreterGraph(model: try TFLiteModel(contentsOfFile: url.path))
        let quantized = graph.tensors.indices.filter { graph.tensors[$0].quantization != nil }
        XCTAssertFalse(quantized.isEmpty)
        var rng = Rng(state: UInt64(quantized.count) &+ 17)
        var ran = 0, rejected = 0
        for _ in 0..<count {
            var g = graph
            for _ in 0..<(1 + rng.next(3)) {
                let t = quantized[rng.next(quantized.count)]
                guard var q = g.tensors[t].quantization else { continue }
                if rng.next(2) == 0, !q.scales.isEmpty {
                    q.scales[rng.next(q.scales.count)] = badScales[rng.next(badScales.count)]
                } else if !q.zeroPoints.isEmpty {
                    q.zeroPoints[rng.next(q.zeroPoints.count)] = badZeroPoints[rng.next(badZeroPoints.count)]
                }
                g.tensors[t].quantization = q
            }
            do {
                let interpreter = try Interpreter(graph: g, options: .init(maxArenaBytes: 256 << 20))
                for (i, input) in interpreter.inputs.enumerated() {
                    try interpreter.copyInput([UInt8]((0..<input.byteCount).map { UInt8(truncatingIfNeeded: $0 &* 31) }), at: i)
                }
                try interpreter.invoke()
                ran += 1
            } catch let error as CustomStringConvertible {
                rejected += 1
                XCTAssertFalse(error.description.isEmpty)
            }
        }
        XCTAssertEqual(ran + rejected, count)
        print("[quantization mutation] \(model): \(count) mutated graphs, \(ran) ran, \(rejected) rejected with a typed error")
    }

    func testMobilenetV1QuantWithDamagedQuantizationNeverTraps() throws {
        try mutate("mobilenet_v1_0.25_224_quant", count: 300)
    }

    func testAutoMLWithDamagedQuantizationNeverTraps() throws {
        try mutate("automl_labeler_model", count: 200)
    }

    func testYoloV8FullIntegerWithDamagedQuantizationNeverTraps() throws {
        try mutate("yolov8n_full_integer_quant", count: 40)
    }

    func testSsdWithDamagedQuantizationNeverTraps() throws {
        try mutate("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29", count: 40)
    }
}
