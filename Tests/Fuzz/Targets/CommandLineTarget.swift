// Fuzz target of the CLI's argument parser: the input is NUL-separated arguments, parsed
// against the command the first one names (else `detect`), then turned into options as the
// commands do before they read any file.
import Foundation
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

func fuzzCommandLine(_ bytes: [UInt8]) {
    let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    guard let first = arguments.first else { return }
    _ = looksLikeInput(first)
    let command = subcommands.first { $0.spec.name == first }
    let spec = command?.spec ?? DetectCommand.spec
    let rest = command == nil ? arguments : Array(arguments.dropFirst())
    _ = ParsedOptions.closest(to: first, among: subcommands.map(\.spec.name))
    guard case let .options(args)? = try? ParsedOptions.parse(rest, spec: spec) else { return }
    // Options naming files to read or write are left out: the fuzzer would only find (or
    // litter) the files of this machine. Anything else that writes lands in a scratch folder.
    guard !args.given("--decoder-config"), !args.given("--labels"), !args.given("--output") else { return }
    _ = scratchFolder
    switch spec.name {
    case DetectCommand.spec.name:
        _ = try? args.rejectOptions(outside: args.string("--mode") ?? "single")
        if let format = try? CommonOptions.chosenFormat(args, fallback: "json") {
            _ = try? ResultOutputOptions(args, format: format)
        }
        _ = try? DetectCommand.detectorOptions(args)
        if let annotate = args.string("--annotate") { _ = try? AnnotationTarget.parse(annotate, imageCount: 3) }
    case TrackCommand.spec.name:
        _ = try? TrackCommand.makeConfiguration(args)
    case RunCommand.spec.name:
        for input in args.strings("--input") { _ = try? RunCommand.parseInput(input) }
    default:
        _ = try? CommonOptions.chosenFormat(args, fallback: "json")
    }
}

/// A folder of its own, made the current directory once: relative paths the CLI code might
/// create stay out of the checkout the fuzzer runs in.
private let scratchFolder: String = {
    let folder = NSTemporaryDirectory() + "objdetect-fuzz-cli-\(getpid())"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    _ = FileManager.default.changeCurrentDirectoryPath(folder)
    atexit(removeScratchFolder)
    return folder
}()

private func removeScratchFolder() { try? FileManager.default.removeItem(atPath: scratchFolder) }
