import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The embedded models come from the package's SwiftPM resource bundle.
final class ModelCatalogTests: XCTestCase {
    func testEmbeddedModelsResolveToTheResourceBundle() throws {
        guard ProcessInfo.processInfo.environment["OBJDETECT_MODELS"] == nil else {
            throw XCTSkip("OBJDETECT_MODELS overrides the resource bundle")
        }
        for (name, file) in ModelCatalog.models {
            let path = try ModelCatalog.path(for: name)
            XCTAssertTrue(path.hasSuffix("objdetect_DetectorCore.resources/Models/\(file)") || path.hasSuffix("objdetect_DetectorCore.bundle/Models/\(file)")
                          || path.contains(".bundle/Contents/Resources/Models/"), path)
            // Byte-identical to the package's Models/ folder.
            let root = SharedData.repositoryRoot
            XCTAssertEqual(FileManager.default.contents(atPath: path), FileManager.default.contents(atPath: root.appendingPathComponent("Models/\(file)").path))
        }
        XCTAssertThrowsError(try ModelCatalog.path(for: "no-such-model")) { e in
            XCTAssertEqual(e as? TaskError, .unknownEmbeddedModel(name: "no-such-model", known: ["objects", "face", "face-short", "palm"]))
        }
    }

    /// A binary copied without its resource bundle is not rescued by paths of the machine it was
    /// built on: it fails with one sentence saying what to copy (exit 1), and works once the
    /// models sit in `Models/` beside it.
    func testACopiedBinaryNeedsItsModelsBesideIt() throws {
        let built = try CLIRunner.executable()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("objdetect-alone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("objdetect")
        try FileManager.default.copyItem(at: built, to: copy)
        let root = SharedData.repositoryRoot
        let image = root.appendingPathComponent("Fixtures/astronaut.png").path
        func run() throws -> (status: Int32, stderr: String) {
            let process = Process()
            process.executableURL = copy
            process.arguments = [image, "--mode", "single"]
            var environment = ProcessInfo.processInfo.environment
            environment["OBJDETECT_MODELS"] = nil
            process.environment = environment
            let err = Pipe()
            process.standardError = err
            process.standardOutput = Pipe()
            try process.run()
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
        let alone = try run()
        XCTAssertEqual(alone.status, 1, alone.stderr)
        XCTAssertEqual(alone.stderr.split(separator: "\n").count, 1, alone.stderr)
        XCTAssertTrue(alone.stderr.contains("the embedded models folder was not found (looked in \(folder.resolvingSymlinksInPath().path)/Models"), alone.stderr)
        XCTAssertTrue(alone.stderr.contains("copy the objdetect_DetectorCore.resources folder"), alone.stderr)
        let models = folder.appendingPathComponent("Models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        for (_, file) in ModelCatalog.models {
            try FileManager.default.copyItem(at: root.appendingPathComponent("Models/\(file)"), to: models.appendingPathComponent(file))
        }
        let installed = try run()
        XCTAssertEqual(installed.status, 0, installed.stderr)
    }
}
