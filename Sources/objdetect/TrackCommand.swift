import Foundation
import DetectorCore

/// `objdetect track --detections det.txt [--format mot] [tracker options]`: runs the IoU
/// tracker alone over a MOTChallenge detection file and writes MOTChallenge results.
enum TrackCommand {
    static let summary = "track a MOTChallenge detection file (det.txt) and write MOTChallenge results"

    static let usage = """
    usage: objdetect track --detections det.txt [--format mot] [--output FILE] [options]
      --detections FILE      MOTChallenge detections: frame,-1,x,y,w,h,score,... (frames from 1)
      --format mot           output format (MOTChallenge rows frame,id,x,y,w,h,score,-1,-1,-1)
      --output FILE          write results here instead of standard output
      --fps F                frame rate that times the frames (default: frameRate from the
                             seqinfo.ini next to det.txt or one folder up, else 30)
      --iou-threshold T      minimum IoU to match a track and a detection (default 0.2)
      --max-age-ms MS        milliseconds an unmatched track survives (default 1500)
      --max-age N            ... or a number of frames instead
      --min-hits N           matches before a track is reported (default 3)
      --hits-after-gap N     matches a re-found track needs before it is reported again (default 2)
      --no-warm-up           do not confirm tracks at once during the first min-hits frames
      --motion M             none | velocity | kalman (default kalman)
      --score-quantile Q     low-score detections: below the Q-quantile of recent scores; they
                             only continue confirmed tracks (default 0.15; 0: none are low)
      --score-split HIGH,LOW ... or fixed scores: low in [LOW, HIGH), below LOW ignored
      --low-score-weight W   factor on a low-score detection's matching score (default 0.5)
      --centre-weight W      weight of the centre distance in the matching score (default 4)
      --gate G               re-acquisition gate of a lost track, in box heights (default 0.25; 0: off)
      --gate-growth R        ... widening by R box heights per second lost (default 1)
      --gate-height-ratio R  ... and a height within a factor R of the track's (default 1.4; 0: off)
      --reupdate             re-run a re-found track's filter over its gap (OC-SORT's re-update)
      --first-frame          ML Kit's reporting: every detection gets an ID from its first frame
      --class-aware          only match detections of the same class (MOT files carry none)
      --label-history N      detections whose class votes give the label (default 30)
      --reported-box B       detection | filtered (default filtered)
      --benchmark N          time the tracker on a synthetic scene of N boxes per frame instead
    """

    static func run(_ arguments: [String]) throws -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        let args = try ArgumentReader(
            arguments,
            valueOptions: ["--detections", "--format", "--output", "--fps", "--iou-threshold", "--max-age",
                           "--max-age-ms", "--min-hits", "--motion", "--score-split", "--label-history", "--reported-box", "--benchmark",
                           "--score-quantile", "--low-score-weight", "--centre-weight", "--gate", "--gate-growth", "--hits-after-gap", "--gate-height-ratio"],
            flagOptions: ["--class-aware", "--no-warm-up", "--reupdate", "--first-frame"])
        guard args.positional.isEmpty else { throw UsageError("unexpected argument '\(args.positional[0])'") }
        if let boxes = try args.int("--benchmark") {
            return try TrackBenchmark.run(boxes: boxes, frames: 2000, configuration: try makeConfiguration(args))
        }
        guard let detectionsPath = args.value("--detections") else { throw UsageError("track needs --detections FILE") }
        let format = args.value("--format") ?? "mot"
        guard format == "mot" else { throw UsageError("track supports --format mot only, got '\(format)'") }
        let fps = try args.double("--fps") ?? frameRate(nextTo: detectionsPath) ?? 30
        guard fps >= 0.001, fps <= 10_000 else { throw UsageError("--fps must be in 0.001...10000, got \(fps)") }

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

        if let outputPath = args.value("--output") {
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

    /// `frameRate` from a MOTChallenge `seqinfo.ini` beside the detections or one folder up
    /// (`SEQ/det.txt` or `SEQ/det/det.txt`), if there is one with a usable value.
    static func frameRate(nextTo detectionsPath: String) -> Double? {
        let folder = URL(fileURLWithPath: detectionsPath).deletingLastPathComponent()
        for candidate in [folder, folder.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("seqinfo.ini")
            if let text = try? String(contentsOf: url, encoding: .utf8), let fps = MOTFormat.frameRate(seqinfo: text) { return fps }
        }
        return nil
    }

    static func makeConfiguration(_ args: ArgumentReader) throws -> TrackerConfiguration {
        var configuration = TrackerConfiguration()
        if let t = try args.double("--iou-threshold") { configuration.iouThreshold = Float(t) }
        if args.value("--max-age") != nil, args.value("--max-age-ms") != nil {
            throw UsageError("give --max-age or --max-age-ms, not both")
        }
        if let n = try args.int("--max-age") { configuration.maxAge = .frames(n) }
        if let ms = try args.int("--max-age-ms") { configuration.maxAge = .milliseconds(Int64(ms)) }
        if let n = try args.int("--min-hits") { configuration.minHits = n }
        if let n = try args.int("--hits-after-gap") { configuration.hitsAfterGap = n }
        if args.flag("--no-warm-up") { configuration.confirmImmediatelyAtStart = false }
        if args.flag("--class-aware") { configuration.classAware = true }
        if let n = try args.int("--label-history") { configuration.labelHistoryLength = n }
        if let motion = args.value("--motion") {
            switch motion {
            case "none": configuration.motion = .none
            case "velocity", "constant-velocity": configuration.motion = .constantVelocity
            case "kalman": configuration.motion = .kalman
            default: throw UsageError("--motion must be none, velocity or kalman, got '\(motion)'")
            }
        }
        if args.value("--score-split") != nil, args.value("--score-quantile") != nil {
            throw UsageError("give --score-split or --score-quantile, not both")
        }
        if let split = args.value("--score-split") {
            let parts = split.split(separator: ",").map { Float(String($0)) }
            guard parts.count == 2, let high = parts[0], let low = parts[1] else {
                throw UsageError("--score-split needs HIGH,LOW scores, got '\(split)'")
            }
            configuration.scoreSplit = .fixed(highScore: high, lowScore: low)
        }
        if let q = try args.double("--score-quantile") { configuration.scoreSplit = q > 0 ? .adaptive(quantile: Float(q)) : nil }
        if let w = try args.double("--low-score-weight") { configuration.lowScoreWeight = Float(w) }
        if let w = try args.double("--centre-weight") { configuration.centreDistanceWeight = Float(w) }
        if let g = try args.double("--gate") { configuration.reacquisitionGate = g > 0 ? Float(g) : nil }
        if let r = try args.double("--gate-growth") { configuration.reacquisitionGrowth = Float(r) }
        if let v = try args.double("--gate-height-ratio") { configuration.reacquisitionHeightRatio = v > 0 ? Float(v) : nil }
        if args.flag("--reupdate") { configuration.reupdateAfterGap = true }
        if args.flag("--first-frame") { configuration.reportsFromFirstFrame = true }
        if let box = args.value("--reported-box") {
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
