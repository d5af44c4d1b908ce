import Foundation
import XCTest
import DetectorCore

/// The tasks throw one error type, `TaskError`, with the lower layers' typed errors wrapped in
/// their own cases (so a caller can `switch` over causes) and printing as they do.
final class TaskErrorTests: XCTestCase {
    private func scratchFile(_ bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("task-error-\(UUID().uuidString).tflite")
        try Data(bytes).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    /// A file that is not a FlatBuffer model: the model reader's error, in `.model`.
    func testAFileThatIsNotAModelIsAModelError() throws {
        // 8 bytes: root offset 4, then the identifier "TFL2" instead of "TFL3".
        let path = try scratchFile([4, 0, 0, 0, 0x54, 0x46, 0x4C, 0x32])
        do throws(TaskError) {
            _ = try ObjectDetector(options: ObjectDetectorOptions(model: .file(path)))
            XCTFail("a non-model file was accepted")
        } catch .model(.wrongIdentifier(let found)) {
            XCTAssertEqual(found, "TFL2")
        } catch {
            XCTFail("expected .model(.wrongIdentifier), got \(error)")
        }
        do throws(TaskError) {
            _ = try ImageLabeler(options: ImageLabelerOptions(model: .file(path)))
            XCTFail("a non-model file was accepted")
        } catch {
            XCTAssertEqual(error, .model(.wrongIdentifier(found: "TFL2")))
            XCTAssertEqual(error.description, TFLiteModelError.wrongIdentifier(found: "TFL2").description,
                           "a wrapped error prints as the lower layer's")
        }
    }

    /// The face model (BlazeFace short range, 128×128) needs some 31 million multiply-accumulates
    /// an invoke; a limit of 1,000 refuses it at creation, in `.interpreter(.limitExceeded)`
    /// (counting stops at the first op that goes over, so `needed` is what the ops so far take).
    func testALimitTheModelExceedsIsAnInterpreterError() {
        var options = ObjectDetectorOptions(model: .embedded("face-short"))
        options.maxMultiplyAccumulates = 1_000
        XCTAssertThrowsError(try ObjectDetector(options: options)) { error in
            guard case let .interpreter(.limitExceeded(option, needed, limit, _))? = error as? TaskError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(option, "maxMultiplyAccumulates")
            XCTAssertEqual(limit, 1_000)
            XCTAssertGreaterThan(needed, limit)
        }
    }

    /// Video mode: a repeated timestamp is `.timestampNotIncreasing`, the same case in video and
    /// live-stream mode; a live-stream frame after `finish()` is `.streamFinished`.
    func testTimestampsAndTheEndOfAStreamAreTaskErrors() async throws {
        var options = ObjectDetectorOptions(model: .embedded("face-short"))
        options.runningMode = .video
        let video = try ObjectDetector(options: options)
        let frame = try ImageBuffer(width: 64, height: 48, format: .rgb8, pixels: [UInt8](repeating: 90, count: 64 * 48 * 3))
        _ = try video.detect(videoFrame: frame, timestampMs: 40)
        XCTAssertThrowsError(try video.detect(videoFrame: frame, timestampMs: 40)) { error in
            XCTAssertEqual(error as? TaskError, .timestampNotIncreasing(previousMs: 40, receivedMs: 40))
        }
        options.runningMode = .liveStream
        let live = try ObjectDetector(options: options, resultHandler: { _ in })
        try live.detectAsync(image: frame, timestampMs: 7)
        await live.waitUntilIdle()
        XCTAssertThrowsError(try live.detectAsync(image: frame, timestampMs: 7)) { error in
            XCTAssertEqual(error as? TaskError, .timestampNotIncreasing(previousMs: 7, receivedMs: 7))
        }
        await live.finish()
        XCTAssertThrowsError(try live.detectAsync(image: frame, timestampMs: 8)) { error in
            XCTAssertEqual(error as? TaskError, .streamFinished)
        }
    }
}
