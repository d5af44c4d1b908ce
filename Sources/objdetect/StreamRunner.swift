import Foundation
import DetectorCore

/// Stream mode: the frames of one video (a folder, files, a path list or concatenated frames
/// on stdin) tracked with the detector's video mode, each frame's result written as it ends.
struct StreamRunner {
    let options: ObjectDetectorOptions
    let args: ParsedOptions
    let orientations: OrientationChoice
    let output: ResultOutputOptions
    let annotate: AnnotationTarget?

    func run(_ source: FrameSource) throws -> Int32 {
        let fps = args.double("--fps") ?? source.frameRate ?? 30
        let detector = try ObjectDetector(options: options)
        // A resumed tracker continues its clock: the first frame comes one frame after the
        // state's last update.
        var firstTimestamp: Int64 = 0
        if let path = args.string(TrackerStateFile.inOption) {
            let state = try TrackerStateFile.read(path)
            try detector.restoreTrackerState(state)
            if let last = state.lastTimestampMs { firstTimestamp = last + max(Int64((1000 / fps).rounded()), 1) }
        }
        try annotate?.prepare(frameRate: fps)
        defer { annotate?.stop() }
        let writer = ResultWriter(format: output.format, pretty: output.pretty, channel: output.channel, asArray: true)
        let progress = ProgressReporter(unit: "frames", quiet: output.quiet, total: source.count)
        writer.beforeWrite = progress.clearLine
        var index = 0
        var lastTimestamp: Int64 = firstTimestamp - 1
        var stages = StageSummary()
        while !Interruption.requested, let frame = try stages.decodingFrame({ try source.next() }) {
            index += 1
            // Frames closer than 1 ms apart (fps > 1000) still get increasing timestamps.
            let timestamp = max(firstTimestamp + Int64((Double(index - 1) * 1000 / fps).rounded()), lastTimestamp + 1)
            lastTimestamp = timestamp
            do {
                let decoded = try frame.result.get()
                let input = UprightInput(decoded, orientation: orientations.orientation(of: decoded), rendersUpright: annotate != nil)
                let objects = try detector.detect(videoFrame: input.image, timestampMs: timestamp, orientation: input.orientation)
                try writer.write(ImageResult(source: frame.name, frameIndex: index, timestampMs: timestamp,
                                             width: input.size.width, height: input.size.height, objects: objects))
                if let annotate, let upright = input.upright {
                    try annotate.write(upright, objects: objects, name: String(format: "frame_%06d.png", index))
                }
                progress.add(objects: objects.count)
            } catch {
                if error is OutputError { throw error }
                progress.clearLine()
                printError("objdetect: frame \(index) (\(frame.name)) skipped: \(oneLine(String(describing: error)))")
                progress.addFailure()
            }
        }
        try writer.finish()
        try annotate?.finish()
        stages.task = detector.timings
        progress.finish(interrupted: Interruption.requested, stages: stages)
        if Interruption.requested { return Interruption.exitStatus }
        if let path = args.string(TrackerStateFile.outOption), let state = detector.trackerState() {
            try TrackerStateFile.write(state, to: path)
        }
        return progress.failures > 0 ? 1 : 0
    }
}
