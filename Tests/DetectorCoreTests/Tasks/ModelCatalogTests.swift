import Foundation
import XCTest
@testable import DetectorCore

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
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent()
            XCTAssertEqual(FileManager.default.contents(atPath: path), FileManager.default.contents(atPath: root.appendingPathComponent("Models/\(file)").path))
        }
        XCTAssertThrowsError(try ModelCatalog.path(for: "no-such-model")) { e in
            XCTAssertEqual(e as? TaskError, .unknownEmbeddedModel(name: "no-such-model", known: ["face", "face-short", "palm"]))
        }
    }
}
