import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Seeded random mutations of real models: every one must end in a successful read or a typed
/// error with a one-line description; a trap would crash the test process. Set
/// `TFLITE_MUTATION_SCALE=10` for a longer run.
final class TFLiteMutationTests: XCTestCase {
    struct Outcome {
        var reads = 0
        var errors = 0
        var kinds: [String: Int] = [:]
    }

    /// Everything a caller might do with a model, so mutations reach every reader.
    static func exercise(_ bytes: [UInt8]) throws {
        let model = try TFLiteModel(data: Data(bytes))
        for t in model.mainSubgraph.tensors { _ = model.constantBytes(of: t) }
        _ = ModelFamilyDetector.detect(model)
        for op in model.mainSubgraph.operators where op.code.isCustom {
            _ = try? FlexBuffers.decode(model.customOptionsBytes(of: op))
            if op.code.customCode == DetectionPostProcessOptions.customCode {
                _ = try DetectionPostProcessOptions(model: model, operator: op)
            }
        }
        let assets = try ModelAssets(model: model)
        _ = try assets.labels()
        _ = try assets.scoreCalibration()
        for entry in assets.archive?.entries ?? [] { _ = try assets.archive?.contents(of: entry) }
    }

    static func mutate(_ original: [UInt8], rng: inout SplitMix64, focus: [Range<Int>]) -> [UInt8] {
        var bytes = original
        func position() -> Int {
            let r = focus[rng.below(focus.count)]
            return r.lowerBound + rng.below(r.count)
        }
        for _ in 0..<(1 + rng.below(4)) {
            guard bytes.count > 8 else { break }
            switch rng.below(20) {
            case 0..<6:
                let p = min(position(), bytes.count - 1)
                bytes[p] = UInt8(truncatingIfNeeded: rng.next())
            case 6..<10:
                let p = min(position(), bytes.count - 1)
                bytes[p] ^= UInt8(1 << rng.below(8))
            case 10..<19:
                let p = min(position() & ~3, bytes.count - 4)
                let choices: [UInt32] = [0, 0xFFFF_FFFF, 0x7FFF_FFFF, UInt32(rng.below(256)), UInt32(rng.below(bytes.count)),
                                         UInt32(truncatingIfNeeded: rng.next()), 0x8000_0000, UInt32(rng.below(65536))]
                let v = choices[rng.below(choices.count)]
                for k in 0..<4 { bytes[p + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) }
            default:
                bytes.removeLast(rng.below(bytes.count - 8))
            }
        }
        return bytes
    }

    func run(model name: String, iterations: Int, seed: UInt64, focusOnEnds: Int? = nil) throws -> Outcome {
        let original: [UInt8]
        if name == "synthetic" {
            original = [UInt8](try XCTUnwrap(Data(base64Encoded: TFLiteSyntheticModelTests.model)))
        } else {
            original = [UInt8](try Data(contentsOf: try SharedData.url("models/\(name)")))
        }
        var focus = [0..<original.count]
        if let n = focusOnEnds, original.count > 2 * n {
            // Big models are mostly weights; mutate where the tables, metadata and ZIP live.
            focus = [0..<n, (original.count - n)..<original.count]
        }
        let scale = Int(ProcessInfo.processInfo.environment["TFLITE_MUTATION_SCALE"] ?? "") ?? 1
        var rng = SplitMix64(seed: seed)
        var outcome = Outcome()
        for i in 0..<(iterations * max(1, scale)) {
            let bytes = Self.mutate(original, rng: &rng, focus: focus)
            do {
                try Self.exercise(bytes)
                outcome.reads += 1
            } catch {
                outcome.errors += 1
                let text = String(describing: error)
                let kind: String
                switch error {
                case is TFLiteModelError: kind = "TFLiteModelError"
                case is ZipArchiveError: kind = "ZipArchiveError"
                case is FlatBufferError: kind = "FlatBufferError"
                default: kind = "other: \(type(of: error))"
                }
                outcome.kinds[kind, default: 0] += 1
                XCTAssertFalse(kind.hasPrefix("other"), "\(name) mutation \(i): untyped error \(text)")
                XCTAssertFalse(text.isEmpty || text.contains("\n"), "\(name) mutation \(i): description must be one line: \(text)")
            }
        }
        return outcome
    }

    func testMutatedModelsNeverTrap() throws {
        var total = Outcome()
        let plan: [(String, Int, UInt64, Int?)] = [
            ("dilated_conv.tflite", 3000, 1, nil),
            ("synthetic", 2000, 6, nil),
            ("face_detection_short_range.tflite", 600, 2, 24_000),
            ("automl_labeler_model.tflite", 600, 3, 24_000),
            ("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_score_calibration.tflite", 300, 4, 24_000),
            ("yolov8n_int8.tflite", 200, 5, 24_000),
        ]
        for (name, iterations, seed, focus) in plan {
            let o = try run(model: name, iterations: iterations, seed: seed, focusOnEnds: focus)
            print("mutations of \(name): \(o.reads) read, \(o.errors) typed errors \(o.kinds)")
            // Mutations must actually break things, or the test proves nothing.
            XCTAssertGreaterThan(o.errors, iterations / 10, name)
            total.reads += o.reads
            total.errors += o.errors
        }
        XCTAssertEqual(total.reads + total.errors, plan.reduce(0) { $0 + $1.1 } * max(1, Int(ProcessInfo.processInfo.environment["TFLITE_MUTATION_SCALE"] ?? "") ?? 1))
    }
}
