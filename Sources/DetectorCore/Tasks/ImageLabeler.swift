import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
import Foundation

/// The name the classifier's model source had before 0.7: classifiers and detectors now take the
/// one `ModelSource` (a `.tflite` file, a model in memory, an AutoML manifest, an embedded model).
@available(*, deprecated, renamed: "ModelSource")
public typealias ClassifierModel = ModelSource

/// What a labeler does with a model whose output holds logits (any real number) instead of
/// probabilities — a model whose scores no softmax or logistic computes and whose metadata does
/// not bound them to 0…1 (e.g. `mobilenet_v2_1.0_224_quant`).
///
/// ```swift
/// var options = ImageLabelerOptions(model: .file("mobilenet_v2_1.0_224_quant.tflite"))
/// options.logitHandling = .softmax     // confidences are then probabilities
/// ```
public enum LogitHandling: String, Sendable, Equatable, CaseIterable {
    /// Creating the labeler fails, naming the two other choices (the default: a logit is never
    /// reported as if it were a probability).
    case reject
    /// A softmax over the model's outputs turns them into probabilities before calibration,
    /// filters and ranking.
    case softmax
    /// The raw outputs are reported as they are, as MediaPipe's ImageClassifier does; `confidence`
    /// then holds a score on the model's own scale, not a probability.
    case raw
}

/// Options for `ImageLabeler`, with ML Kit's names and defaults (and MediaPipe's filter semantics).
public struct ImageLabelerOptions: Sendable {
    public var model: ModelSource
    /// Labels below this confidence are dropped; nil: the metadata's score threshold, else 0
    /// (a threshold only filters when it is > 0, inclusive: `score >= threshold` is kept).
    public var confidenceThreshold: Float? = nil
    /// The most labels to return (ML Kit default 10); nil: no limit. Below 1 is an error.
    public var maxResults: Int? = 10
    /// The old name of `maxResults`.
    @available(*, deprecated, renamed: "maxResults")
    public var maxResultCount: Int? {
        get { maxResults }
        set { maxResults = newValue }
    }
    /// Locale of display names from the metadata.
    public var displayNamesLocale: String = "en"
    /// Only these label names are kept (each maps to the first index with that name); a name
    /// the model does not have is an error listing the closest known names.
    public var categoryAllowlist: [String] = []
    /// These label names are dropped. Exclusive with the allowlist.
    public var categoryDenylist: [String] = []
    /// What to do when the model outputs logits rather than probabilities.
    public var logitHandling: LogitHandling = .reject
    /// Label names by class index, one per class (a labels file's lines), in place of the
    /// model's own (its metadata, or an AutoML manifest's labels file): for a classifier
    /// without metadata, whose results would otherwise carry only an index. Nil or empty: the
    /// model's. Fewer names than the model has classes is an error.
    ///
    /// ```swift
    /// options.labels = try String(contentsOfFile: "labels.txt", encoding: .utf8).split(separator: "\n").map(String.init)
    /// ```
    public var labels: [String]? = nil
    /// Threads the model's heavy kernels may use; the CPU's core count by default.
    public var threadCount: Int = ProcessInfo.processInfo.activeProcessorCount

    /// Upper bound of the memory the model may take beyond its file, in bytes (its arena and
    /// the constants folded at prepare): `Interpreter.Options.maxArenaBytes`, 1 GiB by
    /// default. A model that needs more fails to load with `InterpreterError.limitExceeded`.
    ///
    /// ```swift
    /// options.maxArenaBytes = 64 << 20   // a model from an untrusted source gets 64 MiB
    /// ```
    public var maxArenaBytes: Int = Interpreter.Options.defaultMaxArenaBytes
    /// Upper bound of the multiply-accumulates one inference may do:
    /// `Interpreter.Options.maxMultiplyAccumulates`, 10^11 by default. A model that needs
    /// more fails to load with `InterpreterError.limitExceeded`.
    ///
    /// ```swift
    /// options.maxMultiplyAccumulates = 1_000_000_000
    /// ```
    public var maxMultiplyAccumulates: Int = Interpreter.Options.defaultMaxMultiplyAccumulates

    public init(model: ModelSource) { self.model = model }

    public func validate() throws(TaskError) {
        try TaskOptionChecks.checkCommon(allowlist: categoryAllowlist, denylist: categoryDenylist,
                                         maxResults: maxResults,
                                         threadCount: threadCount, threshold: confidenceThreshold, thresholdName: .confidenceThreshold)
        try Interpreter.Options.validateLimits(maxArenaBytes: maxArenaBytes, maxMultiplyAccumulates: maxMultiplyAccumulates)
    }
}

/// Labels whole images (or regions) with an image-classification model, like ML Kit's image
/// labeling with a custom model and MediaPipe's ImageClassifier.
///
/// ```swift
/// let labeler = try ImageLabeler(options: ImageLabelerOptions(model: .localModel(path: "flowers/manifest.json")))
/// for label in try labeler.label(image: image) { print(label.text, label.confidence) }
/// ```
///
/// Preprocessing follows MediaPipe: the whole image (or region) stretched to the input size with
/// MediaPipe's fixed-point bilinear; float inputs normalized by the metadata's mean/std, integer
/// inputs take raw pixels.
///
/// Thread safety: every method may be called from any thread or task; calls run one at a time
/// (the interpreter owns one arena), each getting the result it would get alone.
public final class ImageLabeler: @unchecked Sendable {
    // `@unchecked`: the interpreter is only used with `lock` held; everything else is immutable.
    public let options: ImageLabelerOptions
    private let interpreter: Interpreter
    private let lock = NSLock()
    let tensorOptions: ImageToTensorOptions
    /// Label names by class index (empty when the model has none).
    public let labels: [String]
    let displayNames: [String]
    let threshold: Float
    let categories: CategoryFilter
    let calibration: ScoreCalibration?
    let appliesSoftmax: Bool
    private let timingRecord = StageTimingsRecord()

    /// Time spent per stage (preprocess, inference, postprocess), summed over every image this
    /// labeler has returned labels for with `label(image:orientation:)`; see `StageTimings`.
    public var timings: StageTimings { timingRecord.total }

    /// Creates a labeler; every option and the model are checked here.
    public convenience init(options: ImageLabelerOptions) throws(TaskError) {
        do {
            try self.init(options: options, role: .labeler)
        } catch {
            throw TaskError(wrapping: error)
        }
    }

    /// - Parameter role: who the labeler works for, which names the options in error messages
    ///   (`ObjectDetector` runs one per detector to classify detected objects).
    init(options: ImageLabelerOptions, role: ClassifierRole) throws {
        try options.validate()
        self.options = options
        let model: TFLiteModel
        var manifestLabels: [String]?
        switch options.model {
        case let .file(path):
            model = try ModelLoading.load(.file(path))
        case let .data(data):
            model = try ModelLoading.load(.data(data))
        case let .embedded(name):
            throw TaskError.invalidOption(name: .model, reason: "'\(name)' is an embedded detector, not a classifier; give a classifier .tflite or AutoML manifest.json")
        case let .autoMLManifest(path):
            let manifest = try AutoMLManifest(contentsOfFile: path)
            model = try ModelLoading.load(.file(manifest.modelPath))
            if let l = manifest.labelsPath, let data = FileManager.default.contents(atPath: l) {
                manifestLabels = LabelFile.parseLines([UInt8](data))
            }
        }
        let assets = try ModelAssets(model: model)
        let interpreter = try Interpreter(model: model, options: .init(threadCount: options.threadCount, maxArenaBytes: options.maxArenaBytes,
                                                                     maxMultiplyAccumulates: options.maxMultiplyAccumulates))
        let facts = try ModelFacts(model: model, assets: assets, interpreter: interpreter, locale: options.displayNamesLocale)
        let plan = try ClassificationPlan.make(facts: facts, options: options, role: role, manifestLabels: manifestLabels)
        tensorOptions = plan.tensorOptions
        labels = plan.labels
        displayNames = facts.displayNames
        categories = plan.categories
        threshold = options.confidenceThreshold ?? facts.scoreThreshold ?? 0
        calibration = facts.calibration
        appliesSoftmax = plan.appliesSoftmax
        self.interpreter = interpreter
    }

    /// Labels an image (orientation applied first), highest confidence first, ties by lower index.
    public func label(image: ImageBuffer, orientation: ImageOrientation = .up) throws(TaskError) -> [Category] {
        var clock = StageClock()
        let upright = orientation == .up ? image : image.applyingOrientation(orientation)
        let labels = try TaskError.wrapping { try label(upright: upright, region: nil, clock: &clock) }
        timingRecord.add(clock.timings)
        return labels
    }

    /// Labels a region (in upright-image pixels) of an upright image; used for detected objects.
    func label(upright: ImageBuffer, region: ImageRect?, maxResults: Int? = nil, threshold: Float? = nil) throws -> [Category] {
        var clock = StageClock()
        return try label(upright: upright, region: region, maxResults: maxResults, threshold: threshold, clock: &clock)
    }

    /// `label(upright:region:…)`, adding its stages to `clock` (it closes each of them).
    func label(upright: ImageBuffer, region: ImageRect?, maxResults: Int? = nil, threshold: Float? = nil,
               clock: inout StageClock) throws -> [Category] {
        var o = tensorOptions
        o.region = region
        let tensor = try ImageToTensor.convert(upright, options: o)
        clock.close(.preprocess)
        lock.lock()
        let scores: [Float]
        do {
            defer { lock.unlock() }
            try interpreter.copyInput(tensor.values, at: 0)
            try interpreter.invoke()
            clock.close(.inference)
            scores = try interpreter.dequantizedOutput(at: 0)
        }
        let result = try rank(appliesSoftmax ? ClassificationPlan.softmax(scores) : scores,
                              maxResults: maxResults ?? options.maxResults, threshold: threshold ?? self.threshold)
        clock.close(.postprocess)
        return result
    }

    /// MediaPipe's order: calibration, allowlist/denylist, threshold (> 0 only, inclusive), sort, max results.
    func rank(_ raw: [Float], maxResults: Int?, threshold: Float) throws -> [Category] {
        var result: [Category] = []
        result.reserveCapacity(raw.count)
        for (i, s) in raw.enumerated() {
            guard categories.allows(i) else { continue }
            let score = try calibration.map { try $0.calibrate(score: s, classIndex: i) } ?? s
            if threshold > 0 && !(score >= threshold) { continue }
            result.append(Category(text: i < labels.count ? labels[i] : "", index: i, confidence: score,
                                displayName: i < displayNames.count ? displayNames[i] : nil))
        }
        result.sort { $0.confidence != $1.confidence ? $0.confidence > $1.confidence : $0.index < $1.index }
        if let m = maxResults, m > 0, result.count > m { result.removeLast(result.count - m) }
        return result
    }
}
