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
            OptionSpec("--fps", .number(min: 0.001, max: 10_000), value: "F", default: "frameRate of a seqinfo.ini next to det.txt or one folder up, else 30",
                       help: "frame rate that times the frames"),
            OptionSpec("--track-iou", .number(min: 0, max: 1, minExcluded: true), value: "T", default: "0.2",
                       help: "IoU needed to match a track and a detection", aliases: ["--iou-threshold"]),
            OptionSpec("--max-age-ms", .int(0...86_400_000), value: "MS", default: "1000", help: "milliseconds an unmatched track survives"),
            OptionSpec("--max-age", .int(0...1_000_000), value: "N", help: "... or a number of frames instead"),
            OptionSpec("--min-hits", .int(1...1000), value: "N", default: "3", help: "matches before a track is reported"),
            OptionSpec("--hits-after-gap", .int(1...1000), value: "N", default: "1", help: "matches a re-found track needs before it is reported again"),
            OptionSpec("--no-warm-up", .flag, help: "do not confirm tracks at once during the first min-hits frames"),
            OptionSpec("--motion", .choice(["none", "velocity", "constant-velocity", "kalman"]), default: "kalman",
                       help: "motion model (velocity = constant-velocity)"),
            OptionSpec("--score-relative", .text, value: "HIGH,LOW,NEW", default: "0.65,0.1,0.85",
                       help: "score split as fractions of the 0.95-quantile of recent scores: high, low (below: ignored), new track"),
            OptionSpec("--score-quantile", .number(min: 0, max: 1), value: "Q",
                       help: "... or low-score detections below the Q-quantile of recent scores (0: none are low)"),
            OptionSpec("--score-split", .text, value: "HIGH,LOW", help: "... or fixed scores: low in [LOW, HIGH), below LOW ignored"),
            OptionSpec("--low-score-weight", .number(min: 0, max: 1), value: "W", default: "0.2", help: "factor on a low-score detection's matching score"),
            OptionSpec("--low-score-iou", .number(min: 0, max: 1, minExcluded: true), value: "T", default: "0.5",
                       help: "IoU a low-score detection needs to continue a track"),
            OptionSpec("--no-score-weighting", .flag, help: "do not multiply the matching score by the detection's score"),
            OptionSpec("--no-hold-size", .flag, help: "let a lost track's box keep growing or shrinking at its last rate"),
            OptionSpec("--centre-weight", .number(min: 0, max: 1000), value: "W", default: "0", help: "weight of the centre distance (DIoU) in the matching score"),
            OptionSpec("--foot-weight", .number(min: 0, max: 1000), value: "W", default: "3",
                       help: "weight of the bottom-centre distance, in track heights, in the matching score"),
            OptionSpec("--gate", .number(min: 0, max: 1000), value: "G", default: "0.25", help: "re-acquisition gate of a lost track, in box heights (0: off)"),
            OptionSpec("--gate-growth", .number(min: 0, max: 1000), value: "R", default: "1", help: "... widening by R box heights per second lost"),
            OptionSpec("--gate-height-ratio", .number(min: 0, max: 1000), value: "R", default: "1.4", help: "... and a height within a factor R of the track's (0: off)"),
            OptionSpec("--ground-gate", .number(min: 0, max: 1000), value: "G", default: "12",
                       help: "ground-plane gate: largest squared Mahalanobis distance of the foot points (0: off)"),
            OptionSpec("--frame-width", .number(min: 1, max: 1_000_000), value: "W", default: "imWidth of the seqinfo.ini, else none (no ground-plane gate)",
                       help: "width in pixels of the frames the detections come from"),
            OptionSpec("--reupdate", .flag, help: "re-run a re-found track's filter over its gap (OC-SORT's re-update)"),
            OptionSpec("--first-frame", .flag, help: "ML Kit's reporting: every detection gets an ID from its first frame"),
            OptionSpec("--class-aware", .flag, help: "only match detections of the same class (MOT files carry none)"),
            OptionSpec("--label-history", .int(1...10_000), value: "N", default: "30", help: "detections whose class votes give the label"),
            OptionSpec("--reported-box", .choice(["detection", "filtered"]), default: "filtered", help: "which box is reported"),
            OptionSpec("--benchmark", .int(1...10_000), value: "N", help: "time the tracker on a synthetic scene of N boxes per frame instead"),
            OptionSpec(TrackerStateFile.inOption, .text, value: "FILE",
                       help: "resume from a saved tracker state (its settings, tracks and IDs); frames up to its last one are skipped"),
            OptionSpec(TrackerStateFile.outOption, .text, value: "FILE", help: "save the tracker state after the last frame, to resume with --state-in"),
        ])

    /// Options that set the tracker's configuration (a resumed state carries its own).
    static let configurationOptions = [
        "--track-iou", "--max-age-ms", "--max-age", "--min-hits", "--hits-after-gap", "--no-warm-up", "--motion",
        "--score-relative", "--score-quantile", "--score-split", "--low-score-weight", "--low-score-iou", "--no-score-weighting",
        "--no-hold-size", "--centre-weight", "--foot-weight", "--gate", "--gate-growth", "--gate-height-ratio", "--ground-gate", "--reupdate", "--first-frame",
        "--class-aware", "--label-history", "--reported-box",
    ]

    static let subcommand = Subcommand(spec: spec, handler: run)

    static func run(_ args: ParsedOptions) throws -> Int32 {
        guard args.positional.isEmpty else { throw UsageError("unexpected argument '\(args.positional[0])'") }
        if let boxes = args.int("--benchmark") {
            return try TrackBenchmark.run(boxes: boxes, frames: 2000, configuration: try makeConfiguration(args))
        }
        guard let detectionsPath = args.string("--detections") else { throw UsageError("track needs --detections FILE") }
        let seqinfo = sequenceInfo(nextTo: detectionsPath)
        let fps = args.double("--fps") ?? seqinfo.flatMap(MOTFormat.frameRate(seqinfo:)) ?? 30

        var tracker: IoUTracker
        if let path = args.string(TrackerStateFile.inOption) {
            if let option = configurationOptions.first(where: args.given) {
                throw UsageError("\(option) cannot be combined with \(TrackerStateFile.inOption): the saved state carries the tracker's settings")
            }
            do {
                tracker = try IoUTracker(state: try TrackerStateFile.read(path))
            } catch let error as TrackerError {
                throw CommandFailure(error.description)
            }
        } else {
            do {
                tracker = try IoUTracker(configuration: try makeConfiguration(args))
            } catch let error as TrackerError {
                throw UsageError(error.description)
            }
        }
        if let width = args.double("--frame-width") ?? seqinfo.flatMap(MOTFormat.imageWidth(seqinfo:)) {
            tracker.frameWidth = width
        }
        // A resumed tracker continues its clock: frames up to its last update are the earlier
        // segment's and are skipped.
        let resumedAfterMs = tracker.lastUpdateTimestampMs

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
        guard !rows.isEmpty else {
            throw CommandFailure("detections file '\(detectionsPath)' holds no detection rows: nothing to track")
        }
        let frames = MOTFormat.groupByFrame(rows)

        var output = ""
        output.reserveCapacity(rows.count * 48)
        var tracked = 0
        for (offset, frameRows) in frames.enumerated() {
            if Interruption.requested { break }
            tracked += 1
            let frame = offset + 1
            let detections = frameRows.map { TrackerDetection(box: $0.box, score: $0.score, classIndex: nil) }
            // Frames closer than 1 ms apart (fps > 1000) still need increasing timestamps.
            let timestamp = max(Int64((Double(offset) * 1000 / fps).rounded()), Int64(offset))
            if let resumedAfterMs, timestamp <= resumedAfterMs { continue }
            let objects = try tracker.update(detections, timestampMs: timestamp)
            output += MOTFormat.resultLines(frame: frame, objects: objects)
        }

        let channel = try args.string("--output").map { try OutputChannel.create(path: $0, what: "results") } ?? .standardOutput
        try channel.write(output)
        try channel.close()
        if Interruption.requested {
            printError("objdetect: \(tracked) of \(frames.count) frames tracked; interrupted")
            return Interruption.exitStatus
        }
        if let path = args.string(TrackerStateFile.outOption) { try TrackerStateFile.write(tracker.state, to: path) }
        return 0
    }

    /// The text of a MOTChallenge `seqinfo.ini` beside the detections or one folder up
    /// (`SEQ/det.txt` or `SEQ/det/det.txt`), if there is one.
    static func sequenceInfo(nextTo detectionsPath: String) -> String? {
        let folder = URL(fileURLWithPath: detectionsPath).deletingLastPathComponent()
        for candidate in [folder, folder.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("seqinfo.ini")
            if let text = try? String(contentsOf: url, encoding: .utf8) { return text }
        }
        return nil
    }

    static func makeConfiguration(_ args: ParsedOptions) throws -> TrackerConfiguration {
        var configuration = TrackerConfiguration()
        if let t = args.float("--track-iou") { configuration.iouThreshold = t }
        try args.rejectBoth("--max-age", "--max-age-ms")
        if let n = args.int("--max-age") { configuration.maxAge = .frames(n) }
        if let ms = args.int("--max-age-ms") { configuration.maxAge = .milliseconds(Int64(ms)) }
        if let n = args.int("--min-hits") { configuration.minHits = n }
        if let n = args.int("--hits-after-gap") { configuration.hitsAfterGap = n }
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
        try args.rejectBoth("--score-split", "--score-quantile")
        try args.rejectBoth("--score-relative", "--score-quantile")
        try args.rejectBoth("--score-relative", "--score-split")
        if let text = args.string("--score-relative") {
            let parts = text.split(separator: ",").map { Float(String($0)) }
            guard parts.count == 3, let high = parts[0], let low = parts[1], let newTrack = parts[2] else {
                throw UsageError("--score-relative needs HIGH,LOW,NEW fractions, got '\(text)'")
            }
            configuration.scoreSplit = .relative(high: high, low: low, newTrack: newTrack)
        }
        if let split = args.string("--score-split") {
            let parts = split.split(separator: ",").map { Float(String($0)) }
            guard parts.count == 2, let high = parts[0], let low = parts[1] else {
                throw UsageError("--score-split needs HIGH,LOW scores, got '\(split)'")
            }
            configuration.scoreSplit = .fixed(highScore: high, lowScore: low)
        }
        if let q = args.double("--score-quantile") { configuration.scoreSplit = q > 0 ? .adaptive(quantile: Float(q)) : nil }
        if let w = args.double("--low-score-weight") { configuration.lowScoreWeight = Float(w) }
        if let t = args.float("--low-score-iou") { configuration.lowScoreIoUThreshold = t }
        if args.flag("--no-score-weighting") { configuration.scoreWeightedMatching = false }
        if args.flag("--no-hold-size") { configuration.holdsSizeWhileLost = false }
        if let w = args.double("--centre-weight") { configuration.centreDistanceWeight = Float(w) }
        if let w = args.double("--foot-weight") { configuration.footDistanceWeight = Float(w) }
        if let g = args.double("--gate") { configuration.reacquisitionGate = g > 0 ? Float(g) : nil }
        if let r = args.double("--gate-growth") { configuration.reacquisitionGrowth = Float(r) }
        if let v = args.double("--gate-height-ratio") { configuration.reacquisitionHeightRatio = v > 0 ? Float(v) : nil }
        if let g = args.double("--ground-gate") {
            if g > 0 {
                var ground = configuration.groundPlane ?? TrackerConfiguration.GroundPlane()
                ground.gate = Float(g)
                configuration.groundPlane = ground
            } else {
                configuration.groundPlane = nil
            }
        }
        if args.flag("--reupdate") { configuration.reupdateAfterGap = true }
        if args.flag("--first-frame") { configuration.reportsFromFirstFrame = true }
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
