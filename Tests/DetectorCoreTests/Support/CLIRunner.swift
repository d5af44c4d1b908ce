import Foundation
import XCTest

/// Runs the built `objdetect` executable (it sits next to the test bundle) for end-to-end tests.
enum CLIRunner {
    static func executable() throws -> URL {
        // On Linux the test runner is `<build dir>/objdetectPackageTests.xctest`; the CLI sits beside it.
        let testBinary = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        var candidates = [testBinary.deletingLastPathComponent().appendingPathComponent("objdetect")]
        if testBinary.pathExtension != "xctest" {
            candidates.append(testBinary.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("objdetect"))
        }
        guard let url = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw XCTSkip("objdetect executable not built next to the tests (looked at \(candidates.map(\.path)))")
        }
        return url
    }

    /// Runs `objdetect arguments…`, feeding `stdin` if given; returns the exit status and both outputs.
    static func run(_ arguments: [String], stdin: Data? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin {
            // Write on another thread so a large input cannot deadlock against unread output.
            let writer = input.fileHandleForWriting
            DispatchQueue.global().async {
                writer.write(stdin)
                try? writer.close()
            }
        } else {
            try? input.fileHandleForWriting.close()
        }
        final class Collected: @unchecked Sendable { var data = Data() }   // written once, read after wait()
        let collected = Collected()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            collected.data = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: collected.data, as: UTF8.self), String(decoding: stderrData, as: UTF8.self))
    }
}
