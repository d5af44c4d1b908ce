import Foundation
import DetectorCore

/// `objdetect IMAGE --mode single …` and `objdetect FRAMES --mode stream …`: detection (and
/// tracking in stream mode) from the command line.
enum DetectCommand {
    static let summary = "IMAGE --mode single | FRAMES|- --mode stream: detect (and track) objects"

    static let valueOptions: Set<String> = [
        "--mode", "--model", "--decoder", "--decoder-config", "--max-results", "--score-threshold", "--allow", "--deny",
        "--orientation", "--resize", "--resample", "--format", "--annotate", "--fps", "--locale", "--iou-threshold", "--labels",
        "--classifier", "--max-labels", "--label-threshold",
    ]
    static let flagOptions: Set<String> = ["--multiple", "--single-object", "--ignore-exif"]

    static let subcommand = Subcommand(name: "detect", summary: summary, run: run)

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ArgumentReader(arguments, valueOptions: valueOptions, flagOptions: flagOptions)
        guard args.positional.count == 1, let target = args.positional.first else {
            throw UsageError("detection takes one IMAGE, frame directory or '-' (got \(args.positional.count) paths)")
        }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory)
        let mode = args.value("--mode") ?? ((target == "-" || isDirectory.boolValue) ? "stream" : "single")
        var options = try detectorOptions(args)
        switch mode {
        case "single", "image":
            guard exists, !isDirectory.boolValue else {
                throw CommandFailure(isDirectory.boolValue ? "\(target) is a directory: use --mode stream for frame directories" : "no file at \(target)")
            }
            options.runningMode = .image
            return try runSingle(path: target, options: options, args: args)
        case "stream", "video":
            guard target == "-" || exists else { throw CommandFailure("no file or directory at \(target)") }
            options.runningMode = .video
            return try StreamRunner.run(target: target, isDirectory: isDirectory.boolValue, options: options, args: args)
        default:
            throw UsageError("--mode must be single or stream, got '\(mode)'")
        }
    }

    /// Builds the detector options from the command line.
    static func detectorOptions(_ args: ArgumentReader) throws -> ObjectDetectorOptions {
        let modelName = args.value("--model") ?? ModelCatalog.defaultModelName
        let source: ModelSource = ModelCatalog.isEmbedded(modelName) ? .embedded(modelName) : .file(modelName)
        var o = ObjectDetectorOptions(model: source)
        if let d = args.value("--decoder") {
            guard let family = DecoderFamily(rawValue: d) else { throw UsageError("--decoder must be ssd, anchors, yolov5 or yolov8, got '\(d)'") }
            o.decoder = family
        }
        if let path = args.value("--decoder-config") {
            o.decoderConfig = try DetectorDecoderConfig.load(from: URL(fileURLWithPath: path))
        }
        if let m = try args.int("--max-results") {
            guard m != 0 else { throw UsageError("--max-results must be != 0 (or -1 for all)") }
            o.maxResults = m
        }
        if let t = try args.double("--score-threshold") { o.scoreThreshold = Float(t) }
        if let t = try args.double("--iou-threshold") { o.yoloIoUThreshold = Float(t) }
        let allow = args.value("--allow").map(splitList) ?? []
        let deny = args.value("--deny").map(splitList) ?? []
        if !allow.isEmpty && !deny.isEmpty { throw UsageError("--allow and --deny are mutually exclusive") }
        o.categoryAllowlist = allow
        o.categoryDenylist = deny
        if args.flag("--multiple") && args.flag("--single-object") { throw UsageError("--multiple and --single-object are mutually exclusive") }
        if args.flag("--single-object") { o.shouldEnableMultipleObjects = false }
        if let r = args.value("--resize") {
            guard let mode = InputResizeMode(rawValue: r) else { throw UsageError("--resize must be stretch or letterbox, got '\(r)'") }
            o.resizeMode = mode
        }
        if let r = args.value("--resample") {
            guard let method = ResizeMethod(name: r) else { throw UsageError("--resample must be mediapipe, pillow, bilinear or area, got '\(r)'") }
            o.resampler = method
        }
        if let l = args.value("--locale") { o.displayNamesLocale = l }
        if let path = args.value("--labels") {
            guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure("cannot read the labels file \(path)") }
            var lines = String(decoding: data, as: UTF8.self).split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
            while lines.last?.isEmpty == true { lines.removeLast() }
            o.labels = lines
        }
        if let c = args.value("--classifier") {
            o.shouldEnableClassification = true
            o.classifierModel = .file(c)
        }
        if let n = try args.int("--max-labels") { o.maxPerObjectLabelCount = n }
        if let t = try args.double("--label-threshold") { o.classificationConfidenceThreshold = Float(t) }
        return o
    }

    static func splitList(_ s: String) -> [String] {
        s.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The orientation to apply: `--orientation` overrides; else the file's EXIF unless `--ignore-exif`.
    static func orientation(_ args: ArgumentReader, decoded: DecodedImage) throws -> ImageOrientation {
        if let o = args.value("--orientation") {
            guard let value = ImageOrientation(name: o) else {
                throw UsageError("--orientation must be up, down, left, right, upMirrored, downMirrored, leftMirrored, rightMirrored or 1-8, got '\(o)'")
            }
            return value
        }
        if args.flag("--ignore-exif") { return .up }
        return decoded.orientation ?? .up
    }

    static func runSingle(path: String, options: ObjectDetectorOptions, args: ArgumentReader) throws -> Int32 {
        let format = args.value("--format") ?? "json"
        guard format == "json" || format == "text" else { throw UsageError("--format must be json or text in single mode, got '\(format)'") }
        let decoded = try ImageDecoder.decode(contentsOf: path)
        let orientation = try orientation(args, decoded: decoded)
        let detector = try ObjectDetector(options: options)
        let objects = try detector.detect(image: decoded.image, orientation: orientation)
        let upright = orientation == .up ? decoded.image : decoded.image.applyingOrientation(orientation)
        if format == "json" {
            try printJSON(["image": path, "width": upright.width, "height": upright.height,
                           "objects": objects.map { objectJSON($0, includeKeypoints: true) }] as [String: Any])
        } else {
            writeLine(textReport(objects))
        }
        if let out = args.value("--annotate") {
            try writeAnnotated(upright, objects: objects, to: out)
        }
        return 0
    }

    static func objectJSON(_ o: DetectedObject, includeKeypoints: Bool) -> [String: Any] {
        var d: [String: Any] = [
            "trackingID": o.trackingID.map { $0 as Any } ?? NSNull(),
            "frame": ["x": o.frame.x, "y": o.frame.y, "width": o.frame.width, "height": o.frame.height],
            "labels": o.labels.map { l -> [String: Any] in
                ["text": l.text, "index": l.index, "confidence": Double(l.confidence),
                 "displayName": l.displayName.map { $0 as Any } ?? NSNull()]
            },
        ]
        if includeKeypoints { d["keypoints"] = o.keypoints.map { ["x": $0.x, "y": $0.y] } }
        return d
    }

    /// MediaPipe's readable layout of a detection result.
    static func textReport(_ objects: [DetectedObject]) -> String {
        if objects.isEmpty { return "No objects detected." }
        var lines: [String] = []
        for (i, o) in objects.enumerated() {
            lines.append("Detection #\(i):")
            if let id = o.trackingID { lines.append("  Tracking ID: \(id)") }
            lines.append("  Box: (x: \(fmt(o.frame.x)), y: \(fmt(o.frame.y)), w: \(fmt(o.frame.width)), h: \(fmt(o.frame.height)))")
            for (j, l) in o.labels.enumerated() {
                lines.append("  Category #\(j):")
                lines.append("    index: \(l.index)")
                lines.append("    score: \(String(format: "%.6f", Double(l.confidence)))")
                lines.append("    category name: \"\(l.text)\"")
                if let d = l.displayName { lines.append("    display name: \"\(d)\"") }
            }
            for (j, k) in o.keypoints.enumerated() {
                lines.append("  Keypoint #\(j): (x: \(fmt(k.x)), y: \(fmt(k.y)))")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func fmt(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(format: "%.2f", v)
    }

    static func writeAnnotated(_ image: ImageBuffer, objects: [DetectedObject], to path: String) throws {
        let annotations = objects.map { o -> ImageAnnotation in
            let top = o.labels.first
            var text = top.map { ($0.displayName ?? ($0.text.isEmpty ? "#\($0.index)" : $0.text)) + String(format: " %.2f", Double($0.confidence)) } ?? ""
            if let id = o.trackingID { text = "[\(id)] " + text }
            return ImageAnnotation(rect: o.frame, label: text, classIndex: top?.index ?? 0, keypoints: o.keypoints)
        }
        let picture = ImageAnnotator.draw(annotations, on: image.format == .rgba16 ? image.converted(to: .rgba8) : image)
        let png = try PNGEncoder.encode(picture.format == .gray8 ? picture.converted(to: .rgb8) : picture)
        do {
            try Data(png).write(to: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure("cannot write \(path): \((error as NSError).localizedDescription)")
        }
    }
}
