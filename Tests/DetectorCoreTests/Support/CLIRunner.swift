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
            // In CI the tests run after the whole package is built: a missing binary is a failure.
            throw SharedData.missing("objdetect executable not built next to the tests (looked at \(candidates.map(\.path)))")
        }
        return url
    }

    /// Runs `objdetect arguments…`, feeding `stdin` if given; returns the exit status and both outputs.
    static func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        let r = try runCapturingBytes(arguments, stdin: stdin, environment: environment)
        return (r.status, r.stdout, r.stderr)
    }

    /// Runs `objdetect arguments…` with standard output going to `stdoutPath` (a file or device
    /// such as `/dev/full`); returns the exit status and standard error.
    static func run(_ arguments: [String], stdoutPath: String) throws -> (status: Int32, stderr: String) {
        guard let sink = FileHandle(forWritingAtPath: stdoutPath) else { throw CLIRunnerError("cannot open \(stdoutPath)") }
        defer { try? sink.close() }
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        let err = Pipe()
        process.standardOutput = sink
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stderrData, as: UTF8.self))
    }

    struct CLIRunnerError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// `run`, keeping standard output as bytes (annotated frames).
    static func runCapturingBytes(_ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil) throws -> Result {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin {
            // Write on another thread so a large input cannot deadlock against unread output.
            // The CLI may exit before reading everything (a usage error, an unreadable stream):
            // writing to the closed pipe must fail quietly, not kill the tests with SIGPIPE.
            signal(SIGPIPE, SIG_IGN)
            let writer = input.fileHandleForWriting
            DispatchQueue.global().async {
                try? writer.write(contentsOf: stdin)
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
        return Result(status: process.terminationStatus, stdoutData: collected.data, stderr: String(decoding: stderrData, as: UTF8.self))
    }

    /// What one run gave: the exit status, standard output (as bytes and as text) and standard error.
    struct Result {
        let status: Int32
        let stdoutData: Data
        let stderr: String
        var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    }
}
