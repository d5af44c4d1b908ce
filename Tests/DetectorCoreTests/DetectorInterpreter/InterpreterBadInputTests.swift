import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Malformed models must end in a typed error at load (or run), never a trap.
final class InterpreterBadInputTests: XCTestCase {
    struct Rng {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % n
        }
    }

    /// Seeded byte mutations of a real model: load, prepare, run on zero inputs.
    func mutate(_ model: String, count: Int, invoke: Bool) throws {
        let original = try [UInt8](Data(contentsOf: SharedData.url("models/\(model).tflite")))
        var rng = Rng(state: UInt64(original.count))
        var loaded = 0, rejected = 0
        for _ in 0..<count {
            var bytes = original
            for _ in 0..<(1 + rng.next(8)) {
                let i = rng.next(bytes.count)
                bytes[i] = rng.next(4) == 0 ? 0xFF : UInt8(truncatingIfNeeded: rng.next(256))
            }
            do {
                let interpreter = try Interpreter(modelData: Data(bytes), options: .init(maxArenaBytes: 64 << 20))
                loaded += 1
                if invoke {
                    for (i, input) in interpreter.inputs.enumerated() {
                        try interpreter.copyInput([UInt8](repeating: 0, count: input.byteCount), at: i)
                    }
                    try interpreter.invoke()
                }
            } catch let error as CustomStringConvertible {
                rejected += 1
                XCTAssertFalse(error.description.isEmpty)
            }
        }
        XCTAssertEqual(loaded + rejected, count)
    }

    func testMutatedDilatedConvNeverTraps() throws { try mutate("dilated_conv", count: 4000, invoke: true) }
    func testMutatedFaceDetectorNeverTrapsAtLoad() throws { try mutate("face_detection_short_range", count: 400, invoke: false) }

    func testTruncatedAndEmptyModelsAreTypedErrors() throws {
        let original = try [UInt8](Data(contentsOf: SharedData.url("models/dilated_conv.tflite")))
        for n in [0, 3, 8, 64, original.count / 2] {
            XCTAssertThrowsError(try Interpreter(modelData: Data(original.prefix(n))))
        }
    }

    func testHugeResizeIsRejectedBeforeAllocating() throws {
        let interpreter = try Interpreter(contentsOfFile: try SharedData.url("models/dilated_conv.tflite").path,
                                          options: .init(maxArenaBytes: 1 << 30))
        XCTAssertThrowsError(try interpreter.resizeInput(at: 0, to: [1, 1 << 20, 1 << 20, 3]))
        try interpreter.resizeInput(at: 0, to: [1, 20000, 20000, 3])   // valid shape, 4.8 GB of floats
        XCTAssertThrowsError(try interpreter.invoke()) { error in
            XCTAssertTrue("\(error)".contains("maxArenaBytes") || "\(error)".contains("too large"), "\(error)")
        }
    }
}
