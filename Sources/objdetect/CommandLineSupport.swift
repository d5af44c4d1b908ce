import Foundation
import DetectorCore

/// A mistake in how the command was called (exit code 2).
struct UsageError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// A failure that is not a usage error but has no typed error of its own (exit code 1).
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// Options several subcommands share, declared once so they read the same everywhere.
enum CommonOptions {
    static func model(default defaultText: String? = nil, help: String) -> OptionSpec {
        OptionSpec("--model", .text, value: "NAME|PATH", default: defaultText, help: help)
    }
    static let threads = OptionSpec("--threads", .int(1...64), value: "N", default: "1", help: "threads the model may use")
    /// Detection and labelling use every core unless told otherwise (as XNNPACK's users set it).
    static let taskThreads = OptionSpec("--threads", .int(1...64), value: "N", default: "the number of cores",
                                        help: "threads the model may use")
    static func format(_ choices: [String], default defaultText: String, help: String = "output format") -> OptionSpec {
        OptionSpec("--format", .choice(choices), default: defaultText, help: help)
    }
    static let json = OptionSpec("--json", .flag, help: "the same as --format json")
    static let pretty = OptionSpec("--pretty", .flag, help: "indented JSON (the default when stdout is a terminal)")
    static let scoreThreshold = OptionSpec("--score-threshold", .number(min: 0, max: 1), value: "T",
                                           default: "the model's (metadata, or the face and palm graphs' 0.5), else 0.5 for the embedded objects model and 0.25 for other detectors",
                                           help: "drop results scoring below T; 0 keeps every result")
    static let maxResults = OptionSpec("--max-results", .int(1...100_000), value: "N", default: "all", help: "keep the N best results")
    static let allow = OptionSpec("--allow", .list, value: "A,B", help: "keep only these categories (exclusive with --deny)")
    static let deny = OptionSpec("--deny", .list, value: "A,B", help: "drop these categories")
    static let locale = OptionSpec("--locale", .text, value: "L", default: "en", help: "locale of display names from the model metadata")
    static let orientation = OptionSpec(
        "--orientation", .choice(["up", "down", "left", "right", "upMirrored", "downMirrored", "leftMirrored", "rightMirrored"] + (1...8).map(String.init)),
        value: "NAME|1-8", default: "the file's EXIF, else up",
        help: "how the stored image is turned: up, down, left, right, upMirrored, downMirrored, leftMirrored, rightMirrored or EXIF 1-8")
    static let ignoreEXIF = OptionSpec("--ignore-exif", .flag, help: "ignore the EXIF orientation")

    /// The format asked for with `--format` or `--json`, else `fallback`.
    static func chosenFormat(_ args: ParsedOptions, fallback: String) throws -> String {
        if args.flag("--json") {
            if let f = args.string("--format"), f != "json" { throw UsageError("--json and --format \(f) contradict each other") }
            return "json"
        }
        return args.string("--format") ?? fallback
    }

    /// A usage error for `--pretty` with a format other than JSON.
    static func rejectPretty(_ args: ParsedOptions, format: String) throws {
        if args.flag("--pretty") && format != "json" { throw UsageError("--pretty applies to --format json only, not \(format)") }
    }

    /// An embedded model's file for its name, else the argument as a path (which must exist).
    static func modelPath(_ name: String) throws -> String {
        ModelCatalog.isEmbedded(name) ? try ModelCatalog.path(for: name) : try existingModelFile(name)
    }

    /// `--model NAME|PATH` as a model source: an embedded name, else a file that must exist.
    static func modelSource(_ name: String) throws -> ModelSource {
        ModelCatalog.isEmbedded(name) ? .embedded(name) : .file(try existingModelFile(name))
    }

    /// `path` when a file is there; else one line naming the embedded models and saying that
    /// other models are paths to `.tflite` files.
    static func existingModelFile(_ path: String) throws -> String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue { return path }
        throw CommandFailure(unknownModelMessage(path))
    }

    /// The message for a `--model` argument that is neither an embedded name nor a file.
    static func unknownModelMessage(_ name: String) -> String {
        "no embedded model is named '\(name)' and no file is at that path: the embedded models are "
            + "\(ModelCatalog.names.joined(separator: ", ")); any other model is a path to a .tflite file"
    }
}

/// Writes a JSON document (`inspect`, `image-info`, `bench`, `eval`) as one line, or indented
/// with `pretty`, to standard output: keys sorted, as every JSON output of the tool.
func printJSON<T: Encodable>(_ value: T, pretty: Bool = false) throws {
    try OutputChannel.standardOutput.write(try JSONLines(pretty: pretty).encode(value) + "\n")
}

/// An optional written as `null` when absent (a synthesized `Encodable` leaves the key out,
/// which is right for keys that are only there when they apply).
struct Nullable<Wrapped: Encodable>: Encodable {
    let value: Wrapped?
    init(_ value: Wrapped?) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}

/// A message on one line (newlines inside an error description become "; ").
func oneLine(_ message: String) -> String {
    message.split(whereSeparator: \.isNewline).joined(separator: "; ")
}

/// The library names options by their Swift property names (`decoder`, `categoryAllowlist`);
/// the command line says the flag instead (`--decoder`, `--allow`), and "pass --decoder yolov8"
/// for a suggested value. Errors carry the options as data (`TaskOption`), so nothing is parsed.
enum OptionFlagNames {
    /// The flag that sets `option`, if the command line has one.
    static func flag(_ option: TaskOption) -> String? {
        switch option {
        case .model: return "--model"
        case .decoder: return "--decoder"
        case .decoderConfig: return "--decoder-config"
        case .labels: return "--labels"
        case .categoryAllowlist: return "--allow"
        case .categoryDenylist: return "--deny"
        case .maxResults: return "--max-results"
        case .scoreThreshold, .confidenceThreshold, .fallbackScoreThreshold: return "--score-threshold"
        case .yoloIoUThreshold: return "--nms-iou"
        case .threadCount: return "--threads"
        case .resizeMode: return "--resize"
        case .resampler: return "--resample"
        case .channelOrder: return "--channel-order"
        case .displayNamesLocale: return "--locale"
        case .classifierModel: return "--classifier"
        case .logitHandling: return "--logits"
        case .classifierLogitHandling: return "--classifier-logits"
        case .maxPerObjectLabelCount: return "--classifier-max-results"
        case .classificationConfidenceThreshold: return "--classifier-score-threshold"
        case .runningMode, .resultHandler, .shouldEnableMultipleObjects, .shouldEnableClassification,
             .tracker, .maxArenaBytes, .maxMultiplyAccumulates:
            return nil
        }
    }

    /// Options named by their flags ("--decoder", "pass --decoder yolov8"); an option without
    /// a flag keeps the library's name.
    static let naming = OptionNaming(
        name: { flag($0) ?? OptionNaming.swift.name($0) },
        setting: { option, value in flag(option).map { "pass \($0) \(value)" } ?? OptionNaming.swift.setting(option, value) })

    /// An error's sentence as the command line says it: a task error (or a detection error,
    /// which can name the category lists) with flag names.
    static func message(for error: any Error) -> String {
        switch error {
        case let e as TaskError: return e.description(naming: naming)
        case let e as DetectionError: return TaskError.detection(e).description(naming: naming)
        default: return String(describing: error)
        }
    }
}
