import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
import Foundation

/// Detects (and in stream modes tracks) objects in images, like ML Kit's `ObjectDetector` and
/// MediaPipe's Object Detector, with any supported `.tflite` detector.
///
/// ```swift
/// var options = ObjectDetectorOptions(model: .embedded("objects"))
/// options.scoreThreshold = 0.5
/// let detector = try ObjectDetector(options: options)
/// let image = try ImageDecoder.decode(contentsOf: "photo.png").image
/// for object in try detector.detect(image: image) {
///     print(object.frame, object.category.text, object.score)   // e.g. "… dog 0.84"
/// }
/// ```
///
/// Coordinates are pixels of the upright image (the raw buffer with `orientation` applied);
/// `rawFrame(of:uprightWidth:uprightHeight:orientation:)` maps a result back to the raw buffer.
///
/// Thread safety: every method may be called from any thread or task. One detector runs one
/// frame at a time (its interpreter owns one arena, its tracker one state): concurrent
/// `detect` calls wait for each other on a lock and each gets the result it would get alone.
/// Live-stream frames are processed on the detector's own serial queue.
public final class ObjectDetector: @unchecked Sendable {
    // `@unchecked`: `engine` and `gate` are only touched with `lock` held; `live` is set in `init`.
    public let options: ObjectDetectorOptions
    private let engine: DetectionEngine
    private let lock = NSLock()
    private var gate = TimestampGate()
    private let live: LiveStreamProcessor<(ImageBuffer, ImageOrientation), [DetectedObject]>?

    /// Creates a detector; every option and the model are checked here.
    /// - Parameter resultHandler: for `.liveStream`, receives each frame's result in order.
    public init(options: ObjectDetectorOptions,
                resultHandler: (@Sendable (LiveStreamResult<[DetectedObject]>) -> Void)? = nil) throws(TaskError) {
        try options.validate()
        self.options = options
        let engine = try TaskError.wrapping { try DetectionEngine(options: options) }
        self.engine = engine
        switch options.runningMode {
        case .liveStream:
            guard let resultHandler else {
                throw TaskError.missingOption(name: .resultHandler, neededBy: "\(option: .runningMode) liveStream")
            }
            // The processor's serial work queue is the only caller of the engine in this mode.
            live = LiveStreamProcessor(label: "objdetect.live-stream", process: { (input: (ImageBuffer, ImageOrientation), timestampMs: Int64) in
                try engine.process(input.0, orientation: input.1, timestampMs: timestampMs)
            }, onResult: resultHandler)
        case .image, .video:
            if resultHandler != nil {
                throw TaskError.invalidOption(name: .resultHandler, reason: "a result handler is only used in liveStream mode")
            }
            live = nil
        }
    }

    /// The labels of the model's classes (empty when the model has none).
    public var labels: [String] { engine.labelNames }

    /// Time spent per stage (preprocess, inference, postprocess), summed over every frame
    /// this detector has returned a result for, in any running mode; see `StageTimings`.
    public var timings: StageTimings { engine.timings.total }

    /// Detects objects in one image (running mode `.image`). No tracking IDs.
    public func detect(image: ImageBuffer, orientation: ImageOrientation = .up) throws(TaskError) -> [DetectedObject] {
        guard options.runningMode == .image else {
            throw TaskError.wrongRunningMode(expected: .image, actual: options.runningMode)
        }
        lock.lock()
        defer { lock.unlock() }
        return try TaskError.wrapping { try engine.process(image, orientation: orientation, timestampMs: nil) }
    }

    /// Detects and tracks objects in one video frame (running mode `.video`). Timestamps must
    /// increase strictly; objects carry tracking IDs that persist across frames.
    public func detect(videoFrame image: ImageBuffer, timestampMs: Int64,
                       orientation: ImageOrientation = .up) throws(TaskError) -> [DetectedObject] {
        guard options.runningMode == .video else {
            throw TaskError.wrongRunningMode(expected: .video, actual: options.runningMode)
        }
        lock.lock()
        defer { lock.unlock() }
        try gate.admit(timestampMs)
        return try TaskError.wrapping { try engine.process(image, orientation: orientation, timestampMs: timestampMs) }
    }

    /// Submits a live-stream frame (running mode `.liveStream`) and returns at once. The result
    /// reaches the handler given at creation, in order; a frame that arrives while the previous
    /// one is still being processed is dropped (`.dropped`) and counted in `droppedFrameCount`.
    /// `context`, any value of yours, comes back with the frame's result (`LiveStreamResult.context`),
    /// so the handler knows which frame it is about without a table of its own:
    ///
    /// ```swift
    /// struct Frame: Sendable { let number: Int; let picture: ImageBuffer }
    /// options.runningMode = .liveStream
    /// let detector = try ObjectDetector(options: options) { result in
    ///     guard let frame = result.context as? Frame, let objects = try? result.result.get() else { return }
    ///     print(frame.number, objects.count)   // draw `objects` on `frame.picture`, say
    /// }
    /// try detector.detectAsync(image: picture, timestampMs: 0, context: Frame(number: 1, picture: picture))
    /// ```
    @discardableResult
    public func detectAsync(image: ImageBuffer, timestampMs: Int64, orientation: ImageOrientation = .up,
                            context: (any Sendable)? = nil) throws(TaskError) -> LiveStreamSubmission {
        guard let live else {
            throw TaskError.wrongRunningMode(expected: .liveStream, actual: options.runningMode)
        }
        return try live.submit((image, orientation), timestampMs: timestampMs, context: context)
    }

    /// Live-stream frames dropped because the detector was busy.
    public var droppedFrameCount: Int { live?.droppedFrameCount ?? 0 }

    /// Waits until every accepted live-stream frame has been delivered (blocks the calling thread).
    public func waitUntilIdle() { live?.waitUntilIdle() }

    /// Waits, without blocking a thread, until every accepted live-stream frame has been delivered.
    public func waitUntilIdle() async { await live?.waitUntilIdle() }

    /// Live-stream results as an `AsyncStream`, in order, alongside the result handler. The stream
    /// finishes after `finish()` once the last accepted frame's result has been delivered.
    ///
    /// ```swift
    /// let results = try detector.liveStreamResults()
    /// Task { for await r in results { print(r.timestampMs, (try? r.result.get())?.count ?? 0) } }
    /// try detector.detectAsync(image: frame, timestampMs: 0)
    /// await detector.finish()
    /// ```
    public func liveStreamResults() throws(TaskError) -> AsyncStream<LiveStreamResult<[DetectedObject]>> {
        guard let live else { throw TaskError.wrongRunningMode(expected: .liveStream, actual: options.runningMode) }
        return live.makeResultStream()
    }

    /// Ends a live stream: refuses further frames, and returns once every accepted frame's result
    /// has been delivered and the result streams have finished. Does nothing in the other modes.
    public func finish() async { await live?.finish() }

    /// The stream tracker's state as a value (video and live-stream modes; nil in image mode),
    /// to save and give to `restoreTrackerState(_:)` later, in this process or another.
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(detector.trackerState())
    /// // next segment, maybe a new detector:
    /// try detector.restoreTrackerState(try JSONDecoder().decode(TrackerState.self, from: data))
    /// ```
    public func trackerState() -> TrackerState? { engine.trackerState() }

    /// Resumes the stream tracker from a saved state: tracks, clock and the next ID carry on, so
    /// no ID handed out before the snapshot is given again. Frames after it need timestamps
    /// later than the state's last one. Throws `TaskError.wrongRunningMode` in image mode and
    /// `TaskError.tracker` when the state is damaged.
    public func restoreTrackerState(_ state: TrackerState) throws(TaskError) {
        guard options.runningMode != .image else {
            throw TaskError.wrongRunningMode(expected: .video, actual: options.runningMode)
        }
        lock.lock()
        defer { lock.unlock() }
        try TaskError.wrapping { try engine.restoreTracker(state) }
        gate.reset()
        if let last = state.lastTimestampMs { try gate.admit(last) }
    }

    /// Forgets every track and the timestamps seen so far without reloading the model: the next
    /// frame starts a new stream (any timestamp), and new objects get IDs never given before.
    public func resetTracker() {
        lock.lock()
        defer { lock.unlock() }
        engine.resetTracker()
        gate.reset()
    }

    /// Maps an upright-image rectangle back to the raw buffer's coordinates.
    public static func rawFrame(of frame: ImageRect, uprightWidth: Int, uprightHeight: Int,
                                orientation: ImageOrientation) -> ImageRect {
        let swaps = orientation.swapsAxes
        let mapping = OrientationMapping(rawWidth: swaps ? uprightHeight : uprightWidth,
                                         rawHeight: swaps ? uprightWidth : uprightHeight, orientation: orientation)
        return mapping.rawRect(fromUpright: frame)
    }
}

/// The detector's work for one frame: orient, detect, pick the prominent object, classify, track.
/// Owned by one `ObjectDetector`, which calls it from one thread at a time (under its lock, or
/// on the live-stream processor's serial queue); hence `@unchecked Sendable`.
final class DetectionEngine: @unchecked Sendable {
    let pipeline: DetectorPipeline
    let labelNames: [String]
    let options: ObjectDetectorOptions
    private var tracker: IoUTracker?
    /// Guards `tracker` (state snapshots may be taken from any thread while a live stream runs).
    private let trackerLock = NSLock()
    /// Classifies each detected object when classification is enabled.
    private let classifier: ImageLabeler?
    /// The stage timings of every frame processed.
    let timings = StageTimingsRecord()

    init(options: ObjectDetectorOptions) throws {
        self.options = options
        pipeline = try DetectorPipeline(options: options)
        labelNames = pipeline.labels.names
        tracker = options.runningMode.assignsTrackingIDs ? try IoUTracker(configuration: options.tracker) : nil
        if options.shouldEnableClassification {
            let model: ModelSource
            switch options.classifierModel {
            case let .file(path)?: model = .localModel(path: path)
            case let .data(data)?: model = .data(data)
            case let .autoMLManifest(path)?: model = .autoMLManifest(path)
            case let .embedded(name)?:
                throw TaskError.invalidOption(name: .classifierModel, reason: "'\(name)' is an embedded detector, not a classifier; give a classifier .tflite or AutoML manifest.json")
            case nil:
                throw TaskError.missingOption(name: .classifierModel, neededBy: "\(option: .shouldEnableClassification)")
            }
            var labelerOptions = ImageLabelerOptions(model: model)
            labelerOptions.maxResults = options.maxPerObjectLabelCount
            labelerOptions.confidenceThreshold = options.classificationConfidenceThreshold
            labelerOptions.displayNamesLocale = options.displayNamesLocale
            labelerOptions.logitHandling = options.classifierLogitHandling
            labelerOptions.threadCount = options.threadCount
            labelerOptions.maxArenaBytes = options.maxArenaBytes
            labelerOptions.maxMultiplyAccumulates = options.maxMultiplyAccumulates
            classifier = try ImageLabeler(options: labelerOptions, role: .objectClassifier)
        } else {
            classifier = nil
        }
    }

    func process(_ image: ImageBuffer, orientation: ImageOrientation, timestampMs: Int64?) throws -> [DetectedObject] {
        var clock = StageClock()
        let upright = orientation == .up ? image : image.applyingOrientation(orientation)
        var objects = try pipeline.detect(upright, clock: &clock)
        if !options.shouldEnableMultipleObjects, let top = ProminenceRule.mostProminent(objects, imageWidth: upright.width, imageHeight: upright.height) {
            objects = [top]
        }
        if let classifier {
            // ML Kit's "classify objects": each object's labels come from the classifier run on
            // its box in the upright image (stretched to the classifier's input); the detector's
            // category and score stay as they are.
            for i in objects.indices where objects[i].frame.width >= 1 && objects[i].frame.height >= 1 {
                clock.close(.postprocess)
                objects[i].labels = try classifier.label(upright: upright, region: objects[i].frame, clock: &clock)
            }
        }
        trackerLock.lock()
        defer { trackerLock.unlock() }
        if tracker != nil {
            let input = objects.map { o in
                TrackerDetection(box: TrackBox(x: Float(o.frame.x), y: Float(o.frame.y), width: Float(o.frame.width), height: Float(o.frame.height)),
                                 score: o.score, classIndex: o.category.index)
            }
            // Updated in place (optional chaining), so the track array is not copied.
            guard let tracked = try tracker?.update(input, timestampMs: timestampMs) else { return objects }
            for tr in tracked where tr.detectionIndex >= 0 && tr.detectionIndex < objects.count {
                objects[tr.detectionIndex].trackingID = tr.trackID
                objects[tr.detectionIndex].trackedFrame = ImageRect(
                    x: Double(tr.box.x), y: Double(tr.box.y), width: Double(tr.box.width), height: Double(tr.box.height))
            }
        }
        clock.close(.postprocess)
        timings.add(clock.timings)
        return objects
    }

    func trackerState() -> TrackerState? {
        trackerLock.lock()
        defer { trackerLock.unlock() }
        return tracker?.state
    }

    func restoreTracker(_ state: TrackerState) throws {
        trackerLock.lock()
        defer { trackerLock.unlock() }
        guard tracker != nil else { return }
        tracker = try IoUTracker(state: state)
    }

    func resetTracker() {
        trackerLock.lock()
        defer { trackerLock.unlock() }
        tracker?.reset()
    }
}

/// ML Kit's single-object mode returns "the most prominent object". The rule used here: the
/// object whose box, clipped to the image, has the largest area weighted by its score
/// (`score × clipped area`); ties go to the higher score, then to the earlier (higher-ranked) one.
public enum ProminenceRule {
    public static func prominence(_ object: DetectedObject, imageWidth: Int, imageHeight: Int) -> Double {
        let x1 = min(max(object.frame.minX, 0), Double(imageWidth)), x2 = min(max(object.frame.maxX, 0), Double(imageWidth))
        let y1 = min(max(object.frame.minY, 0), Double(imageHeight)), y2 = min(max(object.frame.maxY, 0), Double(imageHeight))
        let area = max(0, x2 - x1) * max(0, y2 - y1)
        return area * Double(object.score)
    }

    public static func mostProminent(_ objects: [DetectedObject], imageWidth: Int, imageHeight: Int) -> DetectedObject? {
        var best: (DetectedObject, Double)?
        for o in objects {
            let p = prominence(o, imageWidth: imageWidth, imageHeight: imageHeight)
            if let b = best {
                if p > b.1 || (p == b.1 && o.score > b.0.score) { best = (o, p) }
            } else {
                best = (o, p)
            }
        }
        return best?.0
    }
}
