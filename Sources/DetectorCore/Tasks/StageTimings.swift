import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
import Foundation

/// Where the time of a task's calls went, stage by stage, summed over the calls — what
/// `yolo predict` prints as "Speed: … preprocess, … inference, … postprocess per image".
///
/// `ObjectDetector.timings` and `ImageLabeler.timings` hold the sums over every call that
/// returned a result since the task was created; the difference of two readings covers the
/// calls in between:
///
/// ```swift
/// let before = detector.timings
/// let objects = try detector.detect(image: image)
/// let call = detector.timings - before            // this call alone (when no other thread detects)
/// print(call.inferenceSeconds * 1000, "ms inference")
/// ```
///
/// The stages: **preprocess** is turning the image upright, resizing and normalizing it into
/// the input tensor; **inference** is the interpreter running the model; **postprocess** is
/// everything after (reading the outputs, decoding boxes, suppression, filters, the most
/// prominent object, tracking). A per-object classifier's own preprocessing and inference are
/// counted in those two stages, its ranking in postprocess. Decoding the image file is the
/// caller's and is not included. Recording costs a few clock reads and one lock per call.
public struct StageTimings: Sendable, Equatable {
    /// Seconds spent preparing the input tensor.
    public var preprocessSeconds: Double
    /// Seconds spent running the model.
    public var inferenceSeconds: Double
    /// Seconds spent from the model's outputs to the returned result.
    public var postprocessSeconds: Double
    /// The calls (images or frames) these sums cover.
    public var count: Int

    public init(preprocessSeconds: Double = 0, inferenceSeconds: Double = 0, postprocessSeconds: Double = 0, count: Int = 0) {
        self.preprocessSeconds = preprocessSeconds
        self.inferenceSeconds = inferenceSeconds
        self.postprocessSeconds = postprocessSeconds
        self.count = count
    }

    /// The three stages together.
    public var totalSeconds: Double { preprocessSeconds + inferenceSeconds + postprocessSeconds }

    public static func + (a: StageTimings, b: StageTimings) -> StageTimings {
        StageTimings(preprocessSeconds: a.preprocessSeconds + b.preprocessSeconds, inferenceSeconds: a.inferenceSeconds + b.inferenceSeconds,
                     postprocessSeconds: a.postprocessSeconds + b.postprocessSeconds, count: a.count + b.count)
    }

    /// The calls made between two readings (`later - earlier`).
    public static func - (a: StageTimings, b: StageTimings) -> StageTimings {
        StageTimings(preprocessSeconds: a.preprocessSeconds - b.preprocessSeconds, inferenceSeconds: a.inferenceSeconds - b.inferenceSeconds,
                     postprocessSeconds: a.postprocessSeconds - b.postprocessSeconds, count: a.count - b.count)
    }
}

/// Times one call: each `close` adds the time since the previous one (or since `init`) to a stage.
struct StageClock {
    private var last = DispatchTime.now().uptimeNanoseconds
    private(set) var timings = StageTimings(count: 1)

    enum Stage { case preprocess, inference, postprocess }

    mutating func close(_ stage: Stage) {
        let now = DispatchTime.now().uptimeNanoseconds
        let seconds = Double(now &- last) / 1e9
        last = now
        switch stage {
        case .preprocess: timings.preprocessSeconds += seconds
        case .inference: timings.inferenceSeconds += seconds
        case .postprocess: timings.postprocessSeconds += seconds
        }
    }
}

/// The running sums of a task's timings; read from any thread while a stream adds to them.
final class StageTimingsRecord: @unchecked Sendable {
    // `@unchecked`: `sums` is only touched with `lock` held.
    private let lock = NSLock()
    private var sums = StageTimings()

    func add(_ call: StageTimings) { lock.withLock { sums = sums + call } }
    var total: StageTimings { lock.withLock { sums } }
}
