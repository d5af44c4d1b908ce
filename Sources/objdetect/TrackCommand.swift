import Foundation
import DetectorCore

/// `objdetect track --detections det.txt [--format mot] [tracker options]`: runs the IoU
/// tracker alone over a MOTChallenge detection file and writes MOTChallenge results.
enum TrackCommand {
    static let summary = "track a MOTChallenge detection file (det.txt) and write MOTChallenge results"

    static let spec = CommandSpec(
        name: "track", usage: "objdetect track --detections det.txt [options]", summary: summary,
        options: [
            OptionSpec("--detections", .text, value: "FILE", help: "MOTChallenge detections: frame,-1,x,y,w,h,score,... (frames from 1; required)"),
            CommonOptions.format(["mot"], default: "mot", help: "output format (MOTChallenge rows frame,id,x,y,w,h,score,-1,-1,-1)"),
            OptionSpec("--output", .text, value: "FILE", default: "stdout", help: "write the results to FILE"),
            OptionSpec("--fps", .number(min: 0.001, max: 10_000), value: "F", default: "30", help: "frame rate that times the frames for --max-age-ms"),
            OptionSpec("--track-iou", .number(min: 0, max: 1, minExcluded: true), value: "T", default: "0.25",
                       help: "IoU needed to match a track and a detection", aliases: ["--iou-threshold"]),
            OptionSpec("--max-age", .int(0...1_000_000), value: "N", default: "30", help: "frames an unmatched track survives"),
            OptionSpec("--max-age-ms", .int(0...86_400_000), value: "MS", help: "... or milliseconds instead of frames"),
            OptionSpec("--min-hits", .int(1...1000), value: "N", default: "3", help: "matches before a track is reported"),
            OptionSpec("--no-reconfirm", .flag, help: "report a re-found track at once instead of after min-hits matches"),
            OptionSpec("--no-warm-up", .flag, help: "do not confirm tracks at once during the first min-hits frames"),
            OptionSpec("--motion", .choice(["none", "velocity", "constant-velocity", "kalman"]), default: "kalman",
                       help: "motion model (velocity = constant-velocity)"),
            OptionSpec("--two-stage", .text, value: "HIGH,LOW", default: "off", help: "match detections >= HIGH first, then [LOW, HIGH)"),
            OptionSpec("--class-aware", .flag, help: "only match detections of the same class (MOT files carry none)"),
            OptionSpec("--label-history", .int(1...10_000), value: "N", default: "30", help: "detections whose class votes give the label"),
            OptionSpec("--reported-box", .choice(["detection", "filtered"]), default: "filtered", help: "which box is reported"),
            OptionSpec("--benchmark", .int(1...10_000), value: "N", help: "time the tracker on a synthetic scene of N boxes per frame instead"),
        ])

    static let subcommand = Subcommand(spec: spec, handler: run)

    static func run(_ args: ParsedOptions) throws -> Int32 {
        guard args.positional.isEmpty else { throw UsageError("unexpected argument '\(args.positional[0])'") }
        if let boxes = args.int("--benchmark") {
            return try TrackBenchmark.run(boxes: boxes, frames: 2000, configuration: try makeConfiguration(args))
        }
        guard let detectionsPath = args.string("--detections") else { throw UsageError("track needs --detections FILE") }
        let fps = args.double("--fps") ?? 30

        let configuration = try makeConfiguration(args)
        var tracker: IoUTracker
        do {
            tracker = try IoUTracker(configuration: configuration)
        } catch let error as TrackerError {
            throw UsageError(error.description)
        }

        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: detectionsPath))
        } catch {
            throw CommandFailure("cannot read detections file '\(detectionsPath)': \(error.localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure("detections file '\(detectionsPath)' is not UTF-8 text")
        }
        let rows = try MOTFormat.parse(text)
        let frames = MOTFormat.groupByFrame(rows)

        var output = ""
        output.reserveCapacity(rows.count * 48)
        for (offset, frameRows) in frames.enumerated() {
            let frame = offset + 1
            let detections = frameRows.map { TrackerDetection(box: $0.box, score: $0.score, classIndex: nil) }
            let timestamp = Int64((Double(offset) * 1000 / fps).rounded())
            // Frames closer than 1 ms apart (fps > 1000) still need increasing timestamps.
            let objects = try tracker.update(detections, timestampMs: max(timestamp, Int64(offset)))
            output += MOTFormat.resultLines(frame: frame, objects: objects)
        }

        if let outputPath = args.string("--output") {
            do {
                try Data(output.utf8).write(to: URL(fileURLWithPath: outputPath))
            } catch {
                throw CommandFailure("cannot write '\(outputPath)': \(error.localizedDescription)")
            }
        } else {
            FileHandle.standardOutput.write(Data(output.utf8))
        }
        return 0
    }

    static func makeConfiguration(_ args: ParsedOptions) throws -> TrackerConfiguration {
        var configuration = TrackerConfiguration()
        if let t = args.float("--track-iou") { configuration.iouThreshold = t }
        try args.rejectBoth("--max-age", "--max-age-ms")
        if let n = args.int("--max-age") { configuration.maxAge = .frames(n) }
        if let ms = args.int("--max-age-ms") { configuration.maxAge = .milliseconds(Int64(ms)) }
        if let n = args.int("--min-hits") { configuration.minHits = n }
        if args.flag("--no-reconfirm") { configuration.reconfirmAfterGap = false }
        if args.flag("--no-warm-up") { configuration.confirmImmediatelyAtStart = false }
        if args.flag("--class-aware") { configuration.classAware = true }
        if let n = args.int("--label-history") { configuration.labelHistoryLength = n }
        if let motion = args.string("--motion") {
            switch motion {
            case "none": configuration.motion = .none
            case "velocity", "constant-velocity": configuration.motion = .constantVelocity
            case "kalman": configuration.motion = .kalman
            default: throw UsageError("--motion must be none, velocity or kalman, got '\(motion)'")
            }
        }
        if let stages = args.string("--two-stage") {
            let parts = stages.split(separator: ",").map { Float(String($0)) }
            guard parts.count == 2, let high = parts[0], let low = parts[1] else {
                throw UsageError("--two-stage needs HIGH,LOW scores, got '\(stages)'")
            }
            configuration.twoStage = .init(highScore: high, lowScore: low)
        }
        if let box = args.string("--reported-box") {
            guard let choice = TrackerConfiguration.ReportedBox(rawValue: box) else {
                throw UsageError("--reported-box must be detection or filtered, got '\(box)'")
            }
            configuration.reportedBox = choice
        }
        do {
            try configuration.validate()
        } catch let error as TrackerError {
            throw UsageError(error.description)
        }
        return configuration
    }
}
