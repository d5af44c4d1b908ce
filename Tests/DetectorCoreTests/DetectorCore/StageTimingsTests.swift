import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// `ObjectDetector.timings` and `ImageLabeler.timings`: every stage recorded, none negative,
/// one count per call, and the stages together no longer than the calls took from outside.
final class StageTimingsTests: XCTestCase {
    func astronaut() throws -> ImageBuffer {
        try ImageDecoder.decode(contentsOf: SharedData.fixture("astronaut.png").path).image
    }

    /// Runs `body`, returning the seconds it took on the monotonic clock.
    func wallSeconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    func checkStages(_ t: StageTimings, count: Int, within wall: Double, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(t.count, count, file: file, line: line)
        // A model run and a resize take measurable time; decoding boxes may take less than the clock's tick.
        XCTAssertGreaterThan(t.preprocessSeconds, 0, file: file, line: line)
        XCTAssertGreaterThan(t.inferenceSeconds, 0, file: file, line: line)
        XCTAssertGreaterThanOrEqual(t.postprocessSeconds, 0, file: file, line: line)
        XCTAssertEqual(t.totalSeconds, t.preprocessSeconds + t.inferenceSeconds + t.postprocessSeconds, accuracy: 1e-12, file: file, line: line)
        XCTAssertLessThanOrEqual(t.totalSeconds, wall, "the stages sum to no more than the whole", file: file, line: line)
    }

    func testDetectorRecordsEachStageOfEveryCall() throws {
        let image = try astronaut()
        let detector = try ObjectDetector(options: ObjectDetectorOptions(model: .embedded("face")))
        XCTAssertEqual(detector.timings, StageTimings(), "nothing recorded before the first call")
        let wall = try wallSeconds { for _ in 0..<3 { _ = try detector.detect(image: image, orientation: .right) } }
        checkStages(detector.timings, count: 3, within: wall)
        // The difference of two readings is the calls in between.
        let before = detector.timings
        let one = try wallSeconds { _ = try detector.detect(image: image) }
        checkStages(detector.timings - before, count: 1, within: one)
        // A call that fails records nothing.
        let after = detector.timings
        XCTAssertThrowsError(try detector.detect(videoFrame: image, timestampMs: 0))
        XCTAssertEqual(detector.timings, after)
    }

    func testDetectorWithAClassifierAndInVideoMode() throws {
        let image = try astronaut()
        var options = ObjectDetectorOptions(model: .embedded("face"))
        options.runningMode = .video
        options.shouldEnableClassification = true
        options.classifierModel = .file(SharedData.fixture("automl_flowers/manifest.json").path)
        let detector = try ObjectDetector(options: options)
        var objects: [DetectedObject] = []
        let wall = try wallSeconds {
            for k in 0..<2 { objects = try detector.detect(videoFrame: image, timestampMs: Int64(k) * 33) }
        }
        XCTAssertFalse(objects.first?.labels.isEmpty ?? true, "the face was classified")
        checkStages(detector.timings, count: 2, within: wall)
    }

    func testLabelerRecordsEachStage() throws {
        let image = try astronaut()
        let labeler = try ImageLabeler(options: ImageLabelerOptions(model: .localModel(path: SharedData.fixture("automl_flowers/manifest.json").path)))
        let wall = try wallSeconds { for _ in 0..<2 { _ = try labeler.label(image: image) } }
        checkStages(labeler.timings, count: 2, within: wall)
    }

    /// `ImageLabelerOptions.labels` names the classes by index in place of the model's labels.
    func testLabelerTakesGivenLabels() throws {
        let image = try astronaut()
        let model = SharedData.fixture("automl_flowers/model.tflite").path
        let own = try ImageLabeler(options: ImageLabelerOptions(model: .file(model))).label(image: image)
        var options = ImageLabelerOptions(model: .file(model))
        options.labels = ["a", "b", "c", "d", "e"]
        let given = try ImageLabeler(options: options).label(image: image)
        XCTAssertEqual(given.map(\.index), own.map(\.index))
        XCTAssertEqual(given.map(\.text), own.map { ["a", "b", "c", "d", "e"][$0.index] })
        options.labels = ["a"]
        XCTAssertThrowsError(try ImageLabeler(options: options)) { error in
            XCTAssertTrue(String(describing: error).contains("the model scores 5 classes but only 1 labels were given"), "\(error)")
        }
    }
}
