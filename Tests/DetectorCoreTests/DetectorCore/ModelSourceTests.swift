import XCTest
@testable import DetectorCore

/// One `ModelSource` for detectors and classifiers: each task refuses the kind of model it
/// cannot run, naming the option, before opening anything.
final class ModelSourceTests: XCTestCase {
    func testLocalModelTellsManifestsFromModelFiles() {
        XCTAssertEqual(ModelSource.localModel(path: "flowers/manifest.json"), .autoMLManifest("flowers/manifest.json"))
        XCTAssertEqual(ModelSource.localModel(path: "flowers/MANIFEST.JSON"), .autoMLManifest("flowers/MANIFEST.JSON"))
        XCTAssertEqual(ModelSource.localModel(path: "flowers/model.tflite"), .file("flowers/model.tflite"))
        XCTAssertEqual(ModelSource.autoMLManifest("a/manifest.json").displayName, "a/manifest.json")
    }

    func testALabelerRefusesAnEmbeddedDetector() {
        XCTAssertThrowsError(try ImageLabeler(options: ImageLabelerOptions(model: .embedded("objects")))) { error in
            guard case let .invalidOption(name, reason)? = error as? TaskError else { return XCTFail("\(error)") }
            XCTAssertEqual(name, .model)
            XCTAssertTrue(reason.contains("'objects' is an embedded detector, not a classifier"), reason)
        }
    }

    func testADetectorRefusesAnAutoMLManifest() {
        XCTAssertThrowsError(try ObjectDetector(options: ObjectDetectorOptions(model: .autoMLManifest("/nonexistent/manifest.json")))) { error in
            guard case let .invalidOption(name, reason)? = error as? TaskError else { return XCTFail("\(error)") }
            XCTAssertEqual(name, .model)
            XCTAssertTrue(reason.contains("an AutoML manifest describes an image classifier"), reason)
        }
    }

    /// The per-object classifier takes an AutoML manifest through the same type.
    func testPerObjectClassificationTakesAManifest() throws {
        let manifest = try SharedData.url("models/automl_flowers/manifest.json").path
        var options = ObjectDetectorOptions()
        options.shouldEnableClassification = true
        options.classifierModel = .autoMLManifest(manifest)
        XCTAssertNoThrow(try ObjectDetector(options: options))
    }
}
