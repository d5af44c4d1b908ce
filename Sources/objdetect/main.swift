import Foundation
import DetectorCore

/// One subcommand: its declaration (options, help) and the function that runs it (returns the
/// exit code; throws `UsageError` for exit 2, anything else for exit 1).
struct Subcommand: Sendable {
    let spec: CommandSpec
    let run: @Sendable ([String]) throws -> Int32

    /// Parses the arguments against `spec` (printing the help for `--help`/`-h`) and runs `handler`.
    init(spec: CommandSpec, handler: @escaping @Sendable (ParsedOptions) throws -> Int32) {
        self.spec = spec
        self.run = { arguments in
            switch try ParsedOptions.parse(arguments, spec: spec) {
            case .help:
                try writeLine(HelpText.command(spec))
                return 0
            case let .options(parsed):
                return try handler(parsed)
            }
        }
    }
}

/// Every subcommand, in the order `objdetect --help` lists them. Each lives in its own file.
let subcommands: [Subcommand] = [
    DetectCommand.subcommand,
    LabelCommand.subcommand,
    TrackCommand.subcommand,
    EvalCommand.subcommand,
    InspectCommand.subcommand,
    RunCommand.subcommand,
    BenchCommand.subcommand,
    ImageInfoCommand.subcommand,
    HelpCommand.subcommand,
]

/// `objdetect help [COMMAND]` and `objdetect help --reference` (README's command reference).
enum HelpCommand {
    static let spec = CommandSpec(
        name: "help", usage: "objdetect help [COMMAND]",
        summary: "print the help of COMMAND (or this list)",
        options: [OptionSpec("--reference", .flag, help: "print the whole command reference as Markdown (as in README.md)")])

    static let subcommand = Subcommand(spec: spec) { args in
        if args.flag("--reference") {
            try writeLine(HelpText.reference(subcommands))
            return 0
        }
        guard let name = args.positional.first else {
            try writeLine(HelpText.topLevel(subcommands))
            return 0
        }
        guard args.positional.count == 1 else { throw UsageError("help takes one COMMAND, got \(args.positional.count)") }
        guard let command = subcommands.first(where: { $0.spec.name == name }) else { throw unknownCommand(name, couldBeInput: false) }
        try writeLine(HelpText.command(command.spec))
        return 0
    }

    /// - Parameter couldBeInput: the word stood where `detect` also takes an input file, so
    ///   the message says no file of that name exists either (not so after `help`).
    static func unknownCommand(_ name: String, couldBeInput: Bool = true) -> UsageError {
        let closest = ParsedOptions.closest(to: name, among: subcommands.map(\.spec.name))
        let hint = closest.map { "; did you mean '\($0)'?" }
            ?? (couldBeInput ? " (and no file or folder of that name)" : "; the commands are \(subcommands.map(\.spec.name).joined(separator: ", "))")
        return UsageError("unknown command '\(name)'\(hint)")
    }
}

/// Whether a first argument that names no subcommand is meant as an input of `detect`: an
/// existing path, stdin, or something shaped like a path or pattern. Anything else (`inspcet`)
/// is a mistyped command.
func looksLikeInput(_ argument: String) -> Bool {
    if argument == "-" || argument.hasPrefix("-") { return true }
    if FileManager.default.fileExists(atPath: argument) { return true }
    return argument.contains { "/.*?[~".contains($0) }
}

@MainActor func runMain() -> Int32 {
    let args = Array(CommandLine.arguments.dropFirst())
    var commandName = "objdetect"
    do {
        guard let first = args.first else {
            printError(HelpText.topLevel(subcommands))
            return 2
        }
        if first == "--help" || first == "-h" {
            try writeLine(HelpText.topLevel(subcommands))
            return 0
        }
        if first == "--version" {
            guard args.count == 1 else { throw UsageError("--version takes nothing else, got \(args.dropFirst().joined(separator: " "))") }
            try writeLine(HelpText.version)
            return 0
        }
        if let command = subcommands.first(where: { $0.spec.name == first }) {
            commandName = "objdetect \(first)"
            return try command.run(Array(args.dropFirst()))
        }
        // No subcommand: `objdetect INPUT... [options]` runs detection.
        guard looksLikeInput(first) else { throw HelpCommand.unknownCommand(first) }
        commandName = "objdetect detect"
        return try DetectCommand.subcommand.run(args)
    } catch OutputError.closedPipe {
        // The reader has all it wanted (`objdetect … | head -1`): end quietly, as cat does.
        return OutputError.closedPipeExitStatus
    } catch let error as UsageError {
        printError("objdetect: \(error.description)")
        printError("run '\(commandName) --help' for usage")
        return 2
    } catch {
        printError("objdetect: \(oneLine(OptionFlagNames.message(for: error)))")
        return 1
    }
}

Interruption.install()
exit(runMain())
