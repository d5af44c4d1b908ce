import Foundation
import DetectorCore

/// Stream mode with `--live`: frames are timed as they arrive and submitted to the detector's
/// live-stream mode, which drops a frame that comes while it is busy with the previous one (as
/// ML Kit's stream mode does with a camera). Results are written as they are delivered; the
/// progress line and the summary count the dropped frames.
struct LiveStreamRunner {
    let options: ObjectDetectorOptions
    let orientations: OrientationChoice
    let output: ResultOutputOptions
    let annotate: AnnotationTarget?

    /// Where results go, used from the reading thread and the detector's delivery queue (the
    /// first failed write is guarded by a lock). Each frame's number, name and upright size
    /// (and picture, when annotating) travel with it as its live-stream context.
    final class Delivery: @unchecked Sendable {
        struct Frame: Sendable {
            let index: Int
            let name: String
            let input: UprightInput
        }
        private let lock = NSLock()
        /// The first failed write: the reading loop stops and the run ends with it.
        private var writeError: OutputError?
        let writer: ResultWriter
        let progress: ProgressReporter
        let annotate: AnnotationTarget?

        init(writer: ResultWriter, progress: ProgressReporter, annotate: AnnotationTarget?) {
            self.writer = writer
            self.progress = progress
            self.annotate = annotate
        }

        var failedWrite: OutputError? { lock.withLock { writeError } }

        /// Called on the detector's delivery queue, one result at a time, in order.
        func deliver(_ result: LiveStreamResult<[DetectedObject]>) {
            guard let frame = result.context as? Frame, failedWrite == nil else { return }
            do {
                let objects = try result.result.get()
                try writer.write(ImageResult(source: frame.name, frameIndex: frame.index, timestampMs: result.timestampMs,
                                             width: frame.input.size.width, height: frame.input.size.height, objects: objects))
                if let annotate, let upright = frame.input.upright {
                    try annotate.write(upright, objects: objects, name: String(format: "frame_%06d.png", frame.index))
                }
                progress.add(objects: objects.count)
            } catch let error as OutputError {
                lock.withLock { if writeError == nil { writeError = error } }
            } catch {
                progress.clearLine()
                printError("objdetect: frame \(frame.index) (\(frame.name)) skipped: \(oneLine(String(describing: error)))")
                progress.addFailure()
            }
        }
    }

    func run(_ source: FrameSource) throws -> Int32 {
        try annotate?.prepare(frameRate: source.frameRate ?? 30)
        defer { annotate?.stop() }
        let writer = ResultWriter(format: output.format, pretty: output.pretty, channel: output.channel, asArray: true)
        let progress = ProgressReporter(unit: "frames", quiet: output.quiet, total: source.count)
        writer.beforeWrite = progress.clearLine
        let delivery = Delivery(writer: writer, progress: progress, annotate: annotate)
        var liveOptions = options
        liveOptions.runningMode = .liveStream
        let detector = try ObjectDetector(options: liveOptions, resultHandler: { delivery.deliver($0) })
        let started = DispatchTime.now().uptimeNanoseconds
        var index = 0
        var lastTimestamp: Int64 = -1
        var stages = StageSummary()
        while !Interruption.requested, delivery.failedWrite == nil, let frame = try stages.decodingFrame({ try source.next() }) {
            index += 1
            let decoded: DecodedImage
            do {
                decoded = try frame.result.get()
            } catch {
                progress.clearLine()
                printError("objdetect: frame \(index) (\(frame.name)) skipped: \(oneLine(String(describing: error)))")
                progress.addFailure()
                continue
            }
            let timestamp = max(Int64((DispatchTime.now().uptimeNanoseconds - started) / 1_000_000), lastTimestamp + 1)
            lastTimestamp = timestamp
            let input = UprightInput(decoded, orientation: orientations.orientation(of: decoded), rendersUpright: annotate != nil)
            let context = Delivery.Frame(index: index, name: frame.name, input: input)
            if try detector.detectAsync(image: input.image, timestampMs: timestamp, orientation: input.orientation, context: context) == .dropped {
                progress.addDropped()
            }
        }
        detector.waitUntilIdle()
        if let error = delivery.failedWrite { throw error }
        try writer.finish()
        try annotate?.finish()
        stages.task = detector.timings
        progress.finish(interrupted: Interruption.requested, stages: stages)
        if Interruption.requested { return Interruption.exitStatus }
        return progress.failures > 0 ? 1 : 0
    }
}
