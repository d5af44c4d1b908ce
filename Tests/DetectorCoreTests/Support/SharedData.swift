import Foundation
import XCTest

/// Locates `../shared` (the read-only test inputs and goldens beside the repository) and
/// decides what a test does when it is missing: skip with a message outside CI, fail in CI.
enum SharedData {
    /// The repository root (two levels above this file's `Tests/DetectorCoreTests/Support`).
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared` next to the repository, if it exists.
    static var root: URL? {
        let url = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) && isDir.boolValue ? url : nil
    }

    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Returns `../shared`, or throws: `XCTSkip` outside CI, a failure in CI (where it must exist).
    static func require() throws -> URL {
        if let root { return root }
        throw missing("../shared not found next to \(repositoryRoot.path): conformance test skipped")
    }

    /// What a test throws when something it needs (`../shared`, the built CLI) is missing:
    /// `XCTSkip` outside CI; in CI (`ci`, from `CI=true`) an error that fails the test. (A test
    /// that calls `XCTFail` and then throws `XCTSkip` is reported as skipped, so CI stayed green.)
    static func missing(_ message: String, ci: Bool = isCI) -> any Error {
        ci ? MissingInCI(description: "CI=true, but " + message) : XCTSkip(message)
    }

    /// The error that fails a test in CI when an input it needs is missing.
    struct MissingInCI: Error, CustomStringConvertible {
        let description: String
    }

    /// A file inside `../shared`, e.g. `SharedData.url("models/yolov5n-int8.tflite")`.
    static func url(_ relative: String) throws -> URL {
        try require().appendingPathComponent(relative)
    }

    /// A file in the repository's `Fixtures/`.
    static func fixture(_ name: String) -> URL {
        repositoryRoot.appendingPathComponent("Fixtures").appendingPathComponent(name)
    }
}
