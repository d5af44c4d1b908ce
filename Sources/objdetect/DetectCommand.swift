import Foundation
import DetectorCore

/// `objdetect [detect] INPUT... [options]`: detection on images one by one (single mode) or on
/// the frames of one video with tracking IDs (stream mode).
enum DetectCommand {
    static let spec = CommandSpec(
        name: "detect",
        usage: "objdetect [detect] INPUT... [options]",
        summary: "detect objects in images (--mode single) or track them through video frames (--mode stream)",
        options: [
            OptionSpec("--mode", .choice(["single", "stream"]), default: "stream for -, else single",
                       help: "single: every image on its own; stream: frames of one video, with tracking IDs"),
            CommonOptions.model(default: ModelCatalog.defaultModelName,
                                help: "detector: embedded \(ModelCatalog.names.joined(separator: ", ")) or a .tflite file"),
            OptionSpec("--decoder", .choice(ModelFamily.detectorFamilies.map(\.rawValue)), default: "from the model",
                       help: "output decoder family, for when the output shapes cannot tell"),
            OptionSpec("--decoder-config", .text, value: "FILE.json", help: "full decoder configuration (anchors, NMS, input)"),
            OptionSpec("--labels", .text, value: "FILE.txt", help: "label names, one per line (for models without metadata)"),
            CommonOptions.scoreThreshold,
            CommonOptions.maxResults,
            CommonOptions.allow,
            CommonOptions.deny,
            OptionSpec("--single-object", .flag, help: "only the most prominent object (ML Kit's single-object mode)"),
            OptionSpec("--nms-iou", .number(min: 0, max: 1, minExcluded: true), value: "T", default: "0.45",
                       help: "YOLO, YOLOX: IoU above which same-class boxes are suppressed"),
            CommonOptions.taskThreads,
            CommonOptions.orientation,
            CommonOptions.ignoreEXIF,
            OptionSpec("--resize", .choice(["stretch", "letterbox", "letterbox-top-left"]), default: "the family's",
                       help: "how the image is fitted to the model input (letterbox-top-left: YOLOX's)"),
            OptionSpec("--channel-order", .choice(ChannelOrder.allCases.map(\.rawValue)), default: "bgr for yolox, else rgb",
                       help: "colour channel order of the model input"),
            OptionSpec("--resample", .choice(["mediapipe", "pillow", "bilinear", "area"]), default: "the family's", help: "resampling filter"),
            CommonOptions.locale,
            OptionSpec("--classifier", .text, value: "C.tflite|manifest.json", help: "classify each object with this image classifier"),
            OptionSpec("--classifier-max-results", .int(1...1000), value: "N", default: "10", help: "labels kept per object with --classifier"),
            OptionSpec("--classifier-score-threshold", .number(min: 0, max: 1), value: "T", default: "the classifier's, else 0",
                       help: "drop classifier labels below T"),
            OptionSpec("--classifier-logits", .choice(LogitHandling.allCases.map(\.rawValue)), default: "reject",
                       help: "a classifier that outputs logits: reject it, softmax them, or report them raw"),
            CommonOptions.format(["json", "jsonl", "text", "csv", "mot"], default: "json in single mode, jsonl in stream mode",
                                 help: "results: json, jsonl (a line per image), text (a line per object), csv, mot (stream)"),
            CommonOptions.json,
            CommonOptions.pretty,
            OptionSpec("--output", .text, value: "FILE", default: "stdout", help: "write the results to FILE"),
            OptionSpec("--annotate", .text, value: "FILE.png|DIR|-|OUT.mp4",
                       help: "draw the results: one PNG, a folder of PNGs, - for a PPM stream on stdout, or a video file (stream mode; encoded by ffmpeg)"),
            OptionSpec("--paths-from", .text, value: "FILE|-", help: "read image paths, one per line, from FILE or stdin"),
            OptionSpec("--video", .flag, help: "the INPUT is a video file or stream URL for ffmpeg, whatever its name (.mp4, .mov, .mkv, … and rtsp:// are recognised without it)"),
            OptionSpec("--quiet", .flag, help: "no progress or summary on stderr"),
            OptionSpec("--fps", .number(min: 0.001, max: 10_000), value: "F", default: "30",
                       help: "frame rate that times the frames", mode: "stream"),
            OptionSpec(TrackerStateFile.inOption, .text, value: "FILE",
                       help: "resume the tracker from a saved state: IDs carry on, frames are timed after its last one", mode: "stream"),
            OptionSpec(TrackerStateFile.outOption, .text, value: "FILE", help: "save the tracker state after the last frame", mode: "stream"),
            OptionSpec("--live", .flag, help: "time frames as they arrive and drop those that come while the detector is busy (ML Kit's stream mode)",
                       mode: "stream"),
            OptionSpec("--max-frame-mb", .int(1...65_536), value: "N", default: "\(ImageLimits.defaultMaxFrameBytes >> 20)",
                       help: "refuse a frame on stdin above N MiB (by its header, before it is buffered)", mode: "stream"),
            OptionSpec("--track-iou", .number(min: 0, max: 1, minExcluded: true), value: "T",
                       default: formatDefault(Double(ObjectDetectorOptions.streamTrackerDefaults.iouThreshold)),
                       help: "IoU needed to keep a tracking ID from one frame to the next", mode: "stream"),
        ],
        notes: [
            """
            INPUT: image files (PNG, JPEG, PPM/PGM; a quoted pattern such as '*.jpg' is expanded), a folder
            (single: each image file on its own; stream: the frames of one video in natural sort order), or -
            (stream: concatenated PNG, JPEG or PPM/PGM frames on stdin, as ffmpeg -f image2pipe writes them;
            single: one image on stdin), or a video file or URL (stream mode; decoded by ffmpeg, which must be
            on PATH; its frame rate times the frames unless --fps is given).
            Progress (streams and batches) and a summary go to stderr; results alone go to stdout.
            """,
        ],
        renamed: ["--iou-threshold": "--nms-iou (YOLO) or --track-iou (stream)", "--label-threshold": "--classifier-score-threshold",
                  "--max-labels": "--classifier-max-results"])

    static let subcommand = Subcommand(spec: spec, handler: run)

    static func formatDefault(_ v: Double) -> String { shortestText((v * 1000).rounded() / 1000) }

    static func run(_ args: ParsedOptions) throws -> Int32 {
        let video = args.flag("--video") || args.positional.contains(where: FFmpeg.isVideo)
        if video && args.string("--mode") == "single" {
            throw UsageError("a video is read in --mode stream (its frames are tracked); to detect on single frames, extract them with ffmpeg first")
        }
        let mode = args.string("--mode") ?? (args.positional == ["-"] || video ? "stream" : "single")
        try args.rejectOptions(outside: mode)
        try args.rejectBoth("--allow", "--deny")
        if mode == "stream" && args.positional.isEmpty && !args.given("--paths-from") {
            throw UsageError("detect needs an INPUT: a folder of frames, - or --paths-from FILE")
        }
        let format = try CommonOptions.chosenFormat(args, fallback: mode == "single" ? "json" : "jsonl")
        if mode == "single" && format == "mot" { throw UsageError("--format mot is for --mode stream (MOTChallenge rows need frames)") }
        try CommonOptions.rejectPretty(args, format: format)
        if args.positional.contains("-") && args.string("--paths-from") == "-" {
            throw UsageError("stdin cannot carry both images and --paths-from -")
        }
        var options = try detectorOptions(args)
        let output = try ResultOutputOptions(args, format: format)
        if mode == "single" {
            let paths = try DetectInputs.singleImages(args.positional, pathsFrom: args.string("--paths-from"))
            let annotate = try args.string("--annotate").map { try AnnotationTarget.parse($0, imageCount: paths.count) }
            options.runningMode = .image
            return try SingleRunner(options: options, orientations: OrientationChoice(args), output: output, annotate: annotate).run(paths)
        }
        try args.rejectBoth("--live", "--fps")
        let annotate = try args.string("--annotate").map { try AnnotationTarget.parse($0, imageCount: nil) }
        let maxFrameBytes = (args.int("--max-frame-mb") ?? ImageLimits.defaultMaxFrameBytes >> 20) << 20
        let source = try DetectInputs.frames(args.positional, pathsFrom: args.string("--paths-from"), maxFrameBytes: maxFrameBytes,
                                             video: args.flag("--video"))
        defer { source.close() }
        if let t = args.float("--track-iou") { options.tracker.iouThreshold = t }
        if args.flag("--live") {
            if let option = [TrackerStateFile.inOption, TrackerStateFile.outOption].first(where: args.given) {
                throw UsageError("\(option) is for --mode stream without --live (a live stream drops frames as they come)")
            }
            return try LiveStreamRunner(options: options, orientations: OrientationChoice(args), output: output, annotate: annotate).run(source)
        }
        options.runningMode = .video
        return try StreamRunner(options: options, args: args, orientations: OrientationChoice(args), output: output, annotate: annotate).run(source)
    }

    /// Builds the detector options from the command line.
    static func detectorOptions(_ args: ParsedOptions) throws -> ObjectDetectorOptions {
        let modelName = args.string("--model") ?? ModelCatalog.defaultModelName
        var o = ObjectDetectorOptions(model: try CommonOptions.modelSource(modelName))
        o.decoder = args.string("--decoder").flatMap(ModelFamily.init(rawValue:))
        if let path = args.string("--decoder-config") {
            o.decoderConfig = try DetectorDecoderConfig.load(from: URL(fileURLWithPath: path))
        }
        o.maxResults = args.int("--max-results")
        o.scoreThreshold = args.float("--score-threshold")
        // Where neither the option nor the model sets a threshold: the TFLite example apps'
        // 0.5 for the embedded objects model, ultralytics' conf 0.25 for any other detector.
        o.fallbackScoreThreshold = (ModelCatalog.isEmbedded(modelName) ? ModelCatalog.suggestedScoreThreshold(for: modelName) : nil)
            ?? ModelCatalog.genericScoreThreshold
        o.channelOrder = args.string("--channel-order").flatMap(ChannelOrder.init(rawValue:))
        if let t = args.float("--nms-iou") { o.yoloIoUThreshold = t }
        o.categoryAllowlist = args.list("--allow")
        o.categoryDenylist = args.list("--deny")
        o.shouldEnableMultipleObjects = !args.flag("--single-object")
        o.resizeMode = args.string("--resize").flatMap(ResizeMode.init(rawValue:))
        o.resampler = args.string("--resample").flatMap(Resampler.init(name:))
        if let l = args.string("--locale") { o.displayNamesLocale = l }
        o.threadCount = args.int("--threads") ?? ProcessInfo.processInfo.activeProcessorCount
        if let path = args.string("--labels") {
            guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure("cannot read the labels file \(path)") }
            o.labels = LabelFile.parseLines([UInt8](data))
        }
        if let c = args.string("--classifier") {
            o.shouldEnableClassification = true
            o.classifierModel = .file(c)
        } else if let stray = ["--classifier-max-results", "--classifier-score-threshold", "--classifier-logits"].first(where: args.given) {
            throw UsageError("\(stray) needs --classifier")
        }
        if let n = args.int("--classifier-max-results") { o.maxPerObjectLabelCount = n }
        o.classificationConfidenceThreshold = args.float("--classifier-score-threshold")
        if let l = args.string("--classifier-logits").flatMap(LogitHandling.init(rawValue:)) { o.classifierLogitHandling = l }
        return o
    }
}

/// The result destination and style shared by single and stream mode.
struct ResultOutputOptions {
    let format: String
    let pretty: Bool
    let quiet: Bool
    /// nil: results are discarded (standard output carries annotated frames).
    let channel: OutputChannel?

    init(_ args: ParsedOptions, format: String) throws {
        self.format = format
        pretty = args.flag("--pretty") || (format == "json" && isatty(STDOUT_FILENO) == 1)
        quiet = args.flag("--quiet")
        if let path = args.string("--output"), path != "-" {
            channel = try OutputChannel.create(path: path, what: "results")
        } else if args.string("--annotate") == "-" {
            if args.given("--format") || args.given("--json") || args.given("--output") {
                throw UsageError("with --annotate -, stdout carries the frames: write the results with --output FILE")
            }
            channel = nil
        } else {
            channel = .standardOutput
        }
    }
}
