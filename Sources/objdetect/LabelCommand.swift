import Foundation
import DetectorCore

/// `objdetect label IMAGE --model M`: image labeling with a custom classifier (`.tflite` or an
/// AutoML Vision Edge `manifest.json`).
enum LabelCommand {
    static let spec = CommandSpec(
        name: "label", usage: "objdetect label IMAGE --model MODEL [options]",
        summary: "label an image with a classifier (.tflite or AutoML manifest.json)",
        options: [
            CommonOptions.model(help: "the classifier: a .tflite file or an AutoML manifest.json (required)"),
            CommonOptions.maxResults.withDefault("10"),
            CommonOptions.scoreThreshold.withDefault("the model's, else 0"),
            CommonOptions.allow, CommonOptions.deny, CommonOptions.locale,
            OptionSpec("--logits", .choice(LogitHandling.allCases.map(\.rawValue)), default: "reject",
                       help: "a model that outputs logits: reject it, softmax them into probabilities, or report them raw"),
            CommonOptions.orientation, CommonOptions.ignoreEXIF,
            CommonOptions.format(["json", "jsonl", "text"], default: "json"),
            CommonOptions.json, CommonOptions.pretty,
        ],
        renamed: ["--threshold": "--score-threshold"])

    static let subcommand = Subcommand(spec: spec, handler: run)

    static func run(_ args: ParsedOptions) throws -> Int32 {
        guard args.positional.count == 1, let path = args.positional.first else {
            throw UsageError("label takes one IMAGE, got \(args.positional.count)")
        }
        guard let model = args.string("--model") else { throw UsageError("label needs --model MODEL.tflite or manifest.json") }
        try args.rejectBoth("--allow", "--deny")
        let format = try CommonOptions.chosenFormat(args, fallback: "json")
        try CommonOptions.rejectPretty(args, format: format)
        var options = ImageLabelerOptions(model: .localModel(path: try CommonOptions.modelPath(model)))
        options.maxResultCount = args.int("--max-results") ?? 10
        options.confidenceThreshold = args.float("--score-threshold")
        if let l = args.string("--locale") { options.displayNamesLocale = l }
        options.categoryAllowlist = args.list("--allow")
        options.categoryDenylist = args.list("--deny")
        if let l = args.string("--logits").flatMap(LogitHandling.init(rawValue:)) { options.logitHandling = l }
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("no file at \(path)") }
        let decoded = try ImageDecoder.decode(contentsOf: path)
        let orientation = DetectCommand.orientation(args, decoded: decoded)
        let labeler = try ImageLabeler(options: options)
        let labels = try labeler.label(image: decoded.image, orientation: orientation)
        let upright = orientation.exifValue >= 5 ?  // EXIF 5-8 turn by a quarter
            (decoded.image.height, decoded.image.width) : (decoded.image.width, decoded.image.height)
        let result = LabelingResult(source: path, width: upright.0, height: upright.1, labels: labels.map(LabelResult.init))
        switch format {
        case "text":
            if labels.isEmpty { try writeLine("\(path): no labels") }
            for l in result.labels { try writeLine("\(path): \(readableLabel(l)) \(String(format: "%.4f", l.confidence)) (index \(l.index))") }
        default:
            try writeLine(JSONLines(pretty: format == "json" && (args.flag("--pretty") || isatty(STDOUT_FILENO) == 1)).encode(result))
        }
        return 0
    }
}
