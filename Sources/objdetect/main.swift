import Foundation
import DetectorCore

/// One subcommand: its name, a one-line summary, and the function that runs it
/// (returns the exit code; throws `UsageError` for exit 2, anything else for exit 1).
struct Subcommand: Sendable {
    let name: String
    let summary: String
    let run: @Sendable ([String]) throws -> Int32
}

/// Every subcommand, in the order `objdetect --help` lists them. Each lives in its own file.
let subcommands: [Subcommand] = [
    DetectCommand.subcommand,
    LabelCommand.subcommand,
    Subcommand(name: "run", summary: "run a .tflite model on raw input tensors", run: RunCommand.run),
    Subcommand(name: "bench", summary: "time a .tflite model's invoke()", run: BenchCommand.run),
    inspectCommand,
    Subcommand(name: "track", summary: TrackCommand.summary, run: TrackCommand.run),
    Subcommand(name: "jpeg-bench", summary: "time JPEG decoding of FILE… (--runs N), one JSON line per file", run: runJPEGBench),
    ImageInfoCommand.subcommand, DecodeBenchCommand.subcommand,
]

@MainActor func usageText() -> String {
    var lines = ["usage: objdetect <command> [options]", "", "commands:"]
    for c in subcommands { lines.append("  \(c.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(c.summary)") }
    return lines.joined(separator: "\n")
}

@MainActor func runMain() -> Int32 {
    let args = Array(CommandLine.arguments.dropFirst())
    guard let first = args.first else {
        printError(usageText())
        return 2
    }
    if first == "--help" || first == "-h" || first == "help" {
        print(usageText())
        return 0
    }
    do {
        if let command = subcommands.first(where: { $0.name == first }) {
            return try command.run(Array(args.dropFirst()))
        }
        // No known subcommand: `objdetect IMAGE|FRAMES --mode …` runs detection.
        if let detect = subcommands.first(where: { $0.name == "detect" }) {
            return try detect.run(args)
        }
        throw UsageError("unknown command '\(first)'")
    } catch let error as UsageError {
        printError("objdetect: \(error.description)")
        printError("run 'objdetect --help' for usage")
        return 2
    } catch {
        printError("objdetect: \(String(describing: error))")
        return 1
    }
}

exit(runMain())
