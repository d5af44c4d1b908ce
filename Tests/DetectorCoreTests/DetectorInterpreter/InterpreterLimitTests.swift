import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The interpreter's resource limits (`Interpreter.Options.maxArenaBytes`,
/// `maxMultiplyAccumulates`): the defaults leave every zoo model ten times its need, and
/// hostile models (real models with mutated shapes) are refused at prepare with one sentence.
final class InterpreterLimitTests: XCTestCase {
    static let zoo = ["automl_labeler_model", "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29", "deeplabv3", "dilated_conv",
                      "face_detection_full_range", "face_detection_short_range", "mobilenet_v1_0.25_224_1_metadata_1",
                      "mobilenet_v1_0.25_224_quant", "mobilenet_v2_1.0_224_quant", "palm_detection_lite",
                      "yolov5n-fp16", "yolov5n-int8", "yolov8n_full_integer_quant", "yolov8n_int8"]

    func testDefaultsAreTenTimesWhatEveryZooModelNeeds() throws {
        var most = (bytes: 0, macs: 0)
        for name in Self.zoo {
            let interpreter = try Interpreter(contentsOfFile: try SharedData.url("models/\(name).tflite").path)
            let bytes = interpreter.arenaByteCount + interpreter.foldedByteCount
            let macs = interpreter.multiplyAccumulateCount
            print("\(name): arena \(interpreter.arenaByteCount) B + folded \(interpreter.foldedByteCount) B, \(macs) multiply-accumulates per invoke")
            XCTAssertLessThanOrEqual(10 * bytes, Interpreter.Options.defaultMaxArenaBytes, name)
            XCTAssertLessThanOrEqual(10 * macs, Interpreter.Options.defaultMaxMultiplyAccumulates, name)
            XCTAssertGreaterThan(macs, 0, name)
            most = (max(most.bytes, bytes), max(most.macs, macs))
        }
        print("most: \(most.bytes) B, \(most.macs) multiply-accumulates")
    }

    /// A 3×3 convolution from 2 to 4 channels on an 8×8 input ('same' padding, stride 1):
    /// 8·8·4 outputs × 3·3·2 = 4608 multiply-accumulates, counted by hand.
    func testConvolutionCountsOutputTimesWindowTimesDepth() throws {
        var g = GraphBuilder()
        let x = g.input([1, 8, 8, 2])
        let w = g.constant([Float](repeating: 0.5, count: 4 * 3 * 3 * 2), shape: [4, 3, 3, 2])
        let b = g.constant([0, 0, 0, 0], shape: [4])
        let y = g.op(.conv2D, [x, w, b]) { $0.padding = .same }
        g.outputs = y
        let interpreter = try Interpreter(graph: g.build())
        XCTAssertEqual(interpreter.multiplyAccumulateCount, 4608)
        XCTAssertThrowsError(try Interpreter(graph: g.build(), options: .init(maxMultiplyAccumulates: 4607))) { error in
            XCTAssertEqual(error as? InterpreterError,
                           .limitExceeded(option: "maxMultiplyAccumulates", needed: 4608, limit: 4607, context: "counting ops 0 to 0; op 0 (CONV_2D) alone needs 4608"))
        }
        XCTAssertNoThrow(try Interpreter(graph: g.build(), options: .init(maxMultiplyAccumulates: 4608)))
        // Arena: input 8·8·2 and output 8·8·4 floats, both alive for the whole run: 1536 bytes.
        XCTAssertThrowsError(try Interpreter(graph: g.build(), options: .init(maxArenaBytes: 1535)))
        XCTAssertNoThrow(try Interpreter(graph: g.build(), options: .init(maxArenaBytes: 1536)))
    }

    /// `model` with every shape vector equal to `old` (a FlatBuffer int32 vector: its length,
    /// then its values) replaced by `new` of the same rank.
    static func replacingShape(in model: [UInt8], _ old: [Int32], with new: [Int32]) -> [UInt8] {
        precondition(old.count == new.count)
        func vector(_ v: [Int32]) -> [UInt8] { ([Int32(v.count)] + v).flatMap { withUnsafeBytes(of: $0.littleEndian) { Array($0) } } }
        let pattern = vector(old), replacement = vector(new)
        var bytes = model, i = 0, found = 0
        while i + pattern.count <= bytes.count {
            if Array(bytes[i..<(i + pattern.count)]) == pattern {
                bytes.replaceSubrange(i..<(i + pattern.count), with: replacement)
                found += 1
                i += pattern.count
            } else {
                i += 1
            }
        }
        precondition(found > 0, "shape \(old) not in the model")
        return bytes
    }

    /// The face detector (128×128 input, 230 kB) told its input is 1×4096×4096×3: every
    /// activation grows 1024-fold, to 1.8 GB in all (no single tensor over 0.4 GB). Refused at
    /// prepare with the default limit, before the arena is allocated.
    func testHostileInputShapeExceedsTheArenaLimit() throws {
        let original = try [UInt8](Data(contentsOf: SharedData.url("models/face_detection_short_range.tflite")))
        let hostile = Self.replacingShape(in: original, [1, 128, 128, 3], with: [1, 4096, 4096, 3])
        // The arena at 128×128 (1.6–1.8 MB, as fusions leave more or fewer intermediates).
        let arena = try Interpreter(modelData: Data(original)).arenaByteCount
        XCTAssertGreaterThan(arena, 1_000_000)
        XCTAssertThrowsError(try Interpreter(modelData: Data(hostile))) { error in
            guard case let .limitExceeded(option, needed, limit, _)? = error as? InterpreterError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(option, "maxArenaBytes")
            XCTAssertEqual(limit, 1 << 30)
            // 1024 × the arena at 128×128 (the plan may pack a little differently).
            XCTAssertGreaterThan(needed, 1000 * arena)
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix("the model needs \(needed) bytes of memory (an arena of"), text)
            XCTAssertTrue(text.hasSuffix("more than the limit of 1073741824 set by Interpreter.Options.maxArenaBytes"), text)
            XCTAssertFalse(text.contains("\n"))
        }
        // A smaller limit through the task options refuses the unmodified model the same way.
        var options = ObjectDetectorOptions(model: .data(Data(original)))
        options.maxArenaBytes = 1 << 20
        XCTAssertThrowsError(try ObjectDetector(options: options)) { error in
            XCTAssertTrue("\(error)".contains("set by Interpreter.Options.maxArenaBytes"), "\(error)")
        }
        options.maxArenaBytes = 0
        XCTAssertThrowsError(try options.validate())
    }

    /// dilated_conv (9 kB, input 1×1×1×3, 17,116 multiply-accumulates) told its input is
    /// 1×64×64×3 needs some 4096 times as many; with a limit of 10^6 it is refused at prepare,
    /// while its arena (well under a megabyte) fits.
    func testHostileInputShapeExceedsTheComputeLimit() throws {
        let original = try [UInt8](Data(contentsOf: SharedData.url("models/dilated_conv.tflite")))
        let limits = Interpreter.Options(maxArenaBytes: 16 << 20, maxMultiplyAccumulates: 1_000_000)
        XCTAssertEqual(try Interpreter(modelData: Data(original), options: limits).multiplyAccumulateCount, 17_116)
        let hostile = Self.replacingShape(in: original, [1, 1, 1, 3], with: [1, 64, 64, 3])
        XCTAssertThrowsError(try Interpreter(modelData: Data(hostile), options: limits)) { error in
            guard case let .limitExceeded(option, needed, limit, context)? = error as? InterpreterError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(option, "maxMultiplyAccumulates")
            XCTAssertEqual(limit, 1_000_000)
            XCTAssertGreaterThan(needed, limit)
            XCTAssertTrue(context.hasPrefix("counting ops 0 to "), context)
            XCTAssertTrue("\(error)".hasSuffix("more than the limit of 1000000 set by Interpreter.Options.maxMultiplyAccumulates"), "\(error)")
        }
        XCTAssertNoThrow(try Interpreter(modelData: Data(hostile)), "the default limits fit it")
        var options = ImageLabelerOptions(model: .data(Data(original)))
        options.maxMultiplyAccumulates = 10_000
        XCTAssertThrowsError(try ImageLabeler(options: options)) { error in
            XCTAssertTrue("\(error)".contains("set by Interpreter.Options.maxMultiplyAccumulates"), "\(error)")
        }
        options.maxMultiplyAccumulates = -1
        XCTAssertThrowsError(try options.validate())
    }
}
