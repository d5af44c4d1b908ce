import Foundation
import DetectorCore

/// `objdetect label INPUT... --model M`: image labeling with a custom classifier (`.tflite` or an
/// AutoML Vision Edge `manifest.json`), on the same inputs as `detect` in single mode (files,
/// folders, patterns, `--paths-from`, one image on stdin) with the same outputs, progress and
/// error shapes.
enum LabelCommand {
    static let spec = CommandSpec(
        name: "label", usage: "objdetect label INPUT... --model MODEL [options]",
        summary: "label images with a classifier (.tflite or AutoML manifest.json)",
        options: [
            CommonOptions.model(help: "the classifier: a .tflite file or an AutoML manifest.json (required)"),
            OptionSpec("--labels", .text, value: "FILE.txt", help: "label names, one per line (for classifiers without metadata)"),
            CommonOptions.maxResults.withDefault("10"),
            CommonOptions.scoreThreshold.withDefault("the model's, else 0"),
            CommonOptions.allow, CommonOptions.deny, CommonOptions.locale,
            OptionSpec("--logits", .choice(LogitHandling.allCases.map(\.rawValue)), default: "reject",
                       help: "a model that outputs logits: reject it, softmax them into probabilities, or report them raw"),
            CommonOptions.taskThreads,
            CommonOptions.orientation, CommonOptions.ignoreEXIF,
            CommonOptions.format(["json", "jsonl", "text", "csv"], default: "json",
                                 help: "results: json (an array for several images), jsonl (a line per image), text (a line per label), csv"),
            CommonOptions.json, CommonOptions.pretty,
            OptionSpec("--output", .text, value: "FILE", default: "stdout", help: "write the results to FILE"),
            OptionSpec("--paths-from", .text, value: "FILE|-", help: "read image paths, one per line, from FILE or stdin"),
            OptionSpec("--quiet", .flag, help: "no progress or summary on stderr"),
        ],
        notes: [
            """
            INPUT: image files (PNG, JPEG, PPM/PGM; a quoted pattern such as '*.jpg' is expanded), a folder
            (each image file in it), or - (one image on stdin). Each image is labelled on its own; an image
            that cannot be read or labelled is reported on stderr and the others go on (exit 1 at the end).
            Progress (several images) and a summary go to stderr; results alone go to stdout.
            """,
        ],
        renamed: ["--threshold": "--score-threshold"])

    static let subcommand = Subcommand(spec: spec, handler: run)

    static func run(_ args: ParsedOptions) throws -> Int32 {
        guard let model = args.string("--model") else { throw UsageError("label needs --model MODEL.tflite or manifest.json") }
        try args.rejectBoth("--allow", "--deny")
        let format = try CommonOptions.chosenFormat(args, fallback: "json")
        try CommonOptions.rejectPretty(args, format: format)
        let pathsFrom = args.string("--paths-from")
        if args.positional.contains("-") && pathsFrom == "-" { throw UsageError("stdin cannot carry both an image and --paths-from -") }
        var paths: [String] = []
        if !args.positional.isEmpty {
            paths = try DetectInputs.singleImages(args.positional, pathsFrom: pathsFrom)
        } else if let pathsFrom {
            paths = try DetectInputs.pathList(pathsFrom)
        }
        guard !paths.isEmpty else { throw UsageError("label needs an INPUT: image files, a folder, - or --paths-from FILE") }
        var options = ImageLabelerOptions(model: .localModel(path: try CommonOptions.modelPath(model)))
        options.maxResults = args.int("--max-results") ?? 10
        options.confidenceThreshold = args.float("--score-threshold")
        if let l = args.string("--locale") { options.displayNamesLocale = l }
        options.categoryAllowlist = args.list("--allow")
        options.categoryDenylist = args.list("--deny")
        if let l = args.string("--logits").flatMap(LogitHandling.init(rawValue:)) { options.logitHandling = l }
        options.threadCount = args.int("--threads") ?? ProcessInfo.processInfo.activeProcessorCount
        if let path = args.string("--labels") {
            guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure("cannot read the labels file \(path)") }
            options.labels = LabelFile.parseLines([UInt8](data))
        }
        let labeler = try ImageLabeler(options: options)
        let channel: OutputChannel
        if let path = args.string("--output"), path != "-" {
            channel = try OutputChannel.create(path: path, what: "results")
        } else {
            channel = .standardOutput
        }
        let pretty = args.flag("--pretty") || (format == "json" && isatty(STDOUT_FILENO) == 1)
        let writer = LabelResultWriter(format: format, pretty: pretty, channel: channel, asArray: paths.count > 1)
        return try LabelRunner(labeler: labeler, orientations: OrientationChoice(args), writer: writer, quiet: args.flag("--quiet")).run(paths)
    }
}

/// Labels each image on its own and writes its result as it ends; several images get progress
/// and a final summary, one image a one-line summary (as `detect` in single mode).
struct LabelRunner {
    let labeler: ImageLabeler
    let orientations: OrientationChoice
    let writer: LabelResultWriter
    let quiet: Bool

    func run(_ paths: [String]) throws -> Int32 {
        let progress = ProgressReporter(unit: "images", quiet: quiet || paths.count == 1, total: paths.count, found: "label")
        writer.beforeWrite = progress.clearLine
        var stages = StageSummary()
        for path in paths {
            if Interruption.requested { break }
            let started = DispatchTime.now().uptimeNanoseconds
            let source = path == "-" ? "stdin" : path
            do {
                let decoded = try stages.decoding { try DetectInputs.decodeImage(path) }
                let input = UprightInput(decoded, orientation: orientations.orientation(of: decoded), rendersUpright: false)
                let labels = try labeler.label(image: input.image, orientation: input.orientation)
                try writer.write(LabelingResult(source: source, width: input.size.width, height: input.size.height,
                                                labels: labels.map(LabelResult.init)))
                progress.add(objects: labels.count)
                if paths.count == 1 && !quiet {
                    let ms = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
                    stages.task = labeler.timings
                    printError("objdetect: \(source): \(labels.count) label\(labels.count == 1 ? "" : "s") in \(String(format: "%.1f", ms)) ms (\(stages.text))")
                }
            } catch {
                try progress.batchFailure(error, source: source, single: paths.count == 1)
            }
        }
        try writer.finish()
        stages.task = labeler.timings
        if paths.count > 1 { progress.finish(interrupted: Interruption.requested, stages: stages) }
        if Interruption.requested { return Interruption.exitStatus }
        return progress.failures > 0 ? 1 : 0
    }
}

/// Where `label`'s results go, in the chosen format: `json` (one document; several images make
/// an array, written as they come), `jsonl` (one line per image), `text` (one line per label,
/// "SOURCE: LABEL CONFIDENCE (index N)", or "SOURCE: no labels") or `csv` (a header
/// `source,label,index,confidence`, one row per label).
final class LabelResultWriter {
    let format: String
    private let json: JSONLines
    private let channel: OutputChannel
    private let asArray: Bool
    private var written = 0
    /// Called before anything is written to standard output (clears a progress line there).
    var beforeWrite: () -> Void = {}

    init(format: String, pretty: Bool, channel: OutputChannel, asArray: Bool) {
        self.format = format
        self.json = JSONLines(pretty: pretty)
        self.channel = channel
        self.asArray = asArray
    }

    func write(_ result: LabelingResult) throws {
        var text: String
        switch format {
        case "json":
            text = try json.encode(result)
            if asArray { text = (written == 0 ? "[\n" : ",\n") + text } else { text += "\n" }
        case "jsonl":
            text = try JSONLines(pretty: false).encode(result) + "\n"
        case "csv":
            text = written == 0 ? "source,label,index,confidence\n" : ""
            for l in result.labels {
                text += [csvField(result.source), csvField(readableLabel(l)), String(l.index), shortestText(l.confidence)].joined(separator: ",") + "\n"
            }
        default:
            text = Self.textLines(result)
        }
        written += 1
        try emit(text)
    }

    /// Closes a JSON array (or writes an empty one) and a results file.
    func finish() throws {
        if format == "json" && asArray { try emit(written == 0 ? "[]\n" : "\n]\n") }
        try channel.close()
    }

    private func emit(_ text: String) throws {
        guard !text.isEmpty else { return }
        if channel.isStandardOutput { beforeWrite() }
        try channel.write(text)
    }

    static func textLines(_ r: LabelingResult) -> String {
        if r.labels.isEmpty { return "\(r.source): no labels\n" }
        return r.labels.map { "\(r.source): \(readableLabel($0)) \(String(format: "%.4f", $0.confidence)) (index \($0.index))\n" }.joined()
    }
}
