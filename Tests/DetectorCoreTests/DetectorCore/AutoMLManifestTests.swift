import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// An AutoML manifest may only name files inside its own folder (issue 14).
final class AutoMLManifestTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("a"), withIntermediateDirectories: true)
        // Only existence is checked by the manifest; the files need not be real models.
        try Data("model".utf8).write(to: folder.appendingPathComponent("model.tflite"))
        try Data("cat\n".utf8).write(to: folder.appendingPathComponent("dict.txt"))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func manifest(_ json: String) throws -> String {
        let path = folder.appendingPathComponent("manifest.json").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func assertRefused(model: String, labels: String = "dict.txt", field: String, name: String,
                               line: UInt = #line) throws {
        let path = try manifest(#"{"modelFile": "\#(model)", "labelsFile": "\#(labels)"}"#)
        let expected = TaskError.manifestPathOutsideFolder(manifest: path, field: field, name: name)
        XCTAssertThrowsError(try AutoMLManifest(contentsOfFile: path), line: line) { error in
            XCTAssertEqual(error as? TaskError, expected, line: line)
        }
        // The labeler (ML Kit's LocalModel path) refuses it the same way.
        XCTAssertThrowsError(try ImageLabeler(options: ImageLabelerOptions(model: .localModel(path: path))), line: line) { error in
            XCTAssertEqual(error as? TaskError, expected, line: line)
        }
    }

    func testAbsolutePathIsRefused() throws {
        let absolute = folder.appendingPathComponent("model.tflite").path
        try assertRefused(model: absolute, field: "modelFile", name: absolute)
    }

    func testParentSegmentsThatLeaveTheFolderAreRefused() throws {
        try assertRefused(model: "../x.tflite", field: "modelFile", name: "../x.tflite")
        try assertRefused(model: "a/../../x.tflite", field: "modelFile", name: "a/../../x.tflite")
        try assertRefused(model: "model.tflite", labels: "../dict.txt", field: "labelsFile", name: "../dict.txt")
    }

    func testParentSegmentsThatStayInsideAreAllowed() throws {
        let m = try AutoMLManifest(contentsOfFile: try manifest(#"{"modelFile": "a/../model.tflite", "labelsFile": "./a/../dict.txt"}"#))
        XCTAssertEqual(m.modelPath, folder.appendingPathComponent("model.tflite").path)
        XCTAssertEqual(m.labelsPath, folder.appendingPathComponent("dict.txt").path)
    }

    func testRefusalReadsAsOneSentence() {
        XCTAssertEqual(TaskError.manifestPathOutsideFolder(manifest: "m/manifest.json", field: "modelFile", name: "../x.tflite").description,
                       "the AutoML manifest m/manifest.json names modelFile '../x.tflite', which is outside the manifest's folder (absolute paths and '..' that leave it are refused)")
    }
}
