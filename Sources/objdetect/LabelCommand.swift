import Foundation
import DetectorCore

/// `objdetect label IMAGE --model M`: image labeling with a custom classifier (`.tflite` or an
/// AutoML Vision Edge `manifest.json`).
enum LabelCommand {
    static let subcommand = Subcommand(name: "label", summary: "IMAGE --model M: label an image with a classifier (.tflite or AutoML manifest.json)", run: run)

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ArgumentReader(arguments, valueOptions: ["--model", "--max-results", "--threshold", "--locale", "--format",
                                                                "--allow", "--deny", "--orientation"],
                                      flagOptions: ["--ignore-exif"])
        guard args.positional.count == 1, let path = args.positional.first else { throw UsageError("label takes one IMAGE") }
        guard let model = args.value("--model") else { throw UsageError("label needs --model MODEL.tflite or manifest.json") }
        let format = args.value("--format") ?? "json"
        guard format == "json" || format == "text" else { throw UsageError("--format must be json or text, got '\(format)'") }
        var options = ImageLabelerOptions(model: .localModel(path: model))
        if let m = try args.int("--max-results") {
            guard m != 0 else { throw UsageError("--max-results must be != 0 (or -1 for all)") }
            options.maxResultCount = m
        }
        if let t = try args.double("--threshold") { options.confidenceThreshold = Float(t) }
        if let l = args.value("--locale") { options.displayNamesLocale = l }
        options.categoryAllowlist = args.value("--allow").map(DetectCommand.splitList) ?? []
        options.categoryDenylist = args.value("--deny").map(DetectCommand.splitList) ?? []
        if !options.categoryAllowlist.isEmpty && !options.categoryDenylist.isEmpty { throw UsageError("--allow and --deny are mutually exclusive") }
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("no file at \(path)") }
        let decoded = try ImageDecoder.decode(contentsOf: path)
        let orientation = try DetectCommand.orientation(args, decoded: decoded)
        let labeler = try ImageLabeler(options: options)
        let labels = try labeler.label(image: decoded.image, orientation: orientation)
        if format == "json" {
            try printJSON(["image": path, "labels": labels.map { l -> [String: Any] in
                ["text": l.text, "index": l.index, "confidence": Double(l.confidence),
                 "displayName": l.displayName.map { $0 as Any } ?? NSNull()]
            }] as [String: Any])
        } else if labels.isEmpty {
            writeLine("No labels.")
        } else {
            for (i, l) in labels.enumerated() {
                writeLine("Label #\(i): \(l.text.isEmpty ? "#\(l.index)" : l.text) (index \(l.index)) \(String(format: "%.6f", Double(l.confidence)))")
            }
        }
        return 0
    }
}
