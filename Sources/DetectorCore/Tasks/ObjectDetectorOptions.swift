import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
import Foundation

/// Options for `ObjectDetector`, with MediaPipe's and ML Kit's names, meanings and defaults.
///
/// ```swift
/// var options = ObjectDetectorOptions(model: .file("ssd_mobilenet.tflite"))
/// options.scoreThreshold = 0.3
/// options.maxResults = 5
/// options.categoryAllowlist = ["cat", "dog"]
/// let detector = try ObjectDetector(options: options)
/// ```
public struct ObjectDetectorOptions: Sendable {
    /// The detection model.
    public var model: ModelSource
    /// How frames are fed (image, video, live stream).
    public var runningMode: RunningMode = .image
    /// The most objects to return; nil: no limit. Below 1 is an error.
    public var maxResults: Int? = nil
    /// Objects below this score are dropped. nil: the model's threshold (its metadata's, or the
    /// graph setting of an embedded face/palm preset or a `decoderConfig`), else
    /// `fallbackScoreThreshold`, else none (MediaPipe's semantics: every detection the model
    /// gives, e.g. all 10 of an SSD model, or a YOLO model's best 100 after NMS).
    public var scoreThreshold: Float? = nil
    /// The threshold used when neither `scoreThreshold` nor the model sets one; nil (the
    /// default): none. `objdetect` sets `ModelCatalog.suggestedScoreThreshold(for:)` for an
    /// embedded model that has one (0.5 for `objects`), else `ModelCatalog.genericScoreThreshold`
    /// (0.25, ultralytics' `conf`); set the same to get its results:
    ///
    /// ```swift
    /// var options = ObjectDetectorOptions(model: .file("yolov8n.tflite"))
    /// options.fallbackScoreThreshold = ModelCatalog.genericScoreThreshold   // as objdetect
    /// ```
    public var fallbackScoreThreshold: Float? = nil
    /// Only these category names are kept (a name maps to the first label with that name).
    public var categoryAllowlist: [String] = []
    /// These category names are dropped. Exclusive with `categoryAllowlist`.
    public var categoryDenylist: [String] = []
    /// Label names by class index, overriding the model's own label map (e.g. read from a
    /// labels file for a model without metadata).
    public var labels: [String]? = nil
    /// Locale of display names taken from the model metadata.
    public var displayNamesLocale: String = "en"
    /// ML Kit's "detect multiple objects": false returns only the most prominent object.
    public var shouldEnableMultipleObjects: Bool = true
    /// ML Kit's "classify objects": classify each detected object with `classifierModel`.
    public var shouldEnableClassification: Bool = false
    /// The image classifier used when classification is enabled.
    public var classifierModel: ModelSource? = nil
    /// Labels kept per object when classifying (ML Kit default 10).
    public var maxPerObjectLabelCount: Int = 10
    /// Labels below this confidence are dropped when classifying. nil: the classifier's metadata threshold, else 0.
    public var classificationConfidenceThreshold: Float? = nil
    /// What the classifier does when its model outputs logits rather than probabilities.
    public var classifierLogitHandling: LogitHandling = .reject
    /// The decoder family; nil: detected from the model.
    public var decoder: ModelFamily? = nil
    /// A full decoder configuration (anchors, decoding, NMS, input size and normalization),
    /// e.g. loaded from JSON with `DetectorDecoderConfig.load(from:)`; nil: the preset of an
    /// embedded model, or one derived from the model and its family.
    public var decoderConfig: DetectorDecoderConfig? = nil
    /// How the image is fitted to the model input; nil: the family's default (SSD: stretch,
    /// MediaPipe anchors and YOLO: letterbox).
    public var resizeMode: ResizeMode? = nil
    /// The resampler; nil: MediaPipe's (SSD, anchors), Pillow's bilinear (YOLO stretched,
    /// YOLOX), half-pixel bilinear (YOLO and end-to-end letterboxed).
    public var resampler: Resampler? = nil
    /// The channel order of the input tensor; nil: the decoder config's, else the family's
    /// (BGR for YOLOX, whose models are trained on OpenCV's BGR images; RGB otherwise). Set it
    /// for an export that differs, e.g. a YOLOX model retrained on RGB.
    public var channelOrder: ChannelOrder? = nil
    /// The IoU above which same-class YOLO and YOLOX candidates are suppressed (end-to-end models get no NMS).
    public var yoloIoUThreshold: Float = 0.45
    /// The tracker used in video and live-stream modes.
    public var tracker: TrackerConfiguration = ObjectDetectorOptions.streamTrackerDefaults
    /// Threads the model's heavy kernels may use; the CPU's core count by default (as
    /// XNNPACK's users set it). 1 runs everything on the calling thread.
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

    /// The tracker settings the detector uses in stream modes: the tracker's defaults (the same
    /// as `objdetect track`) with ML Kit's reporting, every detection with an ID from its first
    /// frame (`reportsFromFirstFrame`).
    public static var streamTrackerDefaults: TrackerConfiguration {
        var c = TrackerConfiguration()
        c.reportsFromFirstFrame = true
        return c
    }

    public init(model: ModelSource = .embedded(ModelCatalog.defaultModelName)) {
        self.model = model
    }

    /// ML Kit's object detector defaults: stream mode off, one prominent object, no classification.
    /// With `multipleObjects` on, up to 5 objects are returned, as in ML Kit.
    public static func mlKit(model: ModelSource, mode: RunningMode.MLKitDetectorMode = .singleImage,
                             multipleObjects: Bool = false, classifyObjects: Bool = false,
                             classifierModel: ModelSource? = nil) -> ObjectDetectorOptions {
        var o = ObjectDetectorOptions(model: model)
        o.runningMode = RunningMode(mode)
        o.shouldEnableMultipleObjects = multipleObjects
        o.maxResults = multipleObjects ? 5 : 1
        o.shouldEnableClassification = classifyObjects
        o.classifierModel = classifierModel
        return o
    }

    /// Checks the options on their own (what can be checked before the model is read).
    public func validate() throws(TaskError) {
        try TaskOptionChecks.checkCommon(allowlist: categoryAllowlist, denylist: categoryDenylist,
                                         maxResults: maxResults,
                                         threadCount: threadCount, threshold: scoreThreshold, thresholdName: .scoreThreshold)
        try TaskOptionChecks.checkFinite(fallbackScoreThreshold, name: .fallbackScoreThreshold)
        try Interpreter.Options.validateLimits(maxArenaBytes: maxArenaBytes, maxMultiplyAccumulates: maxMultiplyAccumulates)
        if shouldEnableClassification && classifierModel == nil {
            throw TaskError.missingOption(name: .classifierModel, neededBy: "\(option: .shouldEnableClassification)")
        }
        if maxPerObjectLabelCount < 1 {
            throw TaskError.invalidOption(name: .maxPerObjectLabelCount, reason: "value must be at least 1")
        }
        try TaskOptionChecks.checkFinite(classificationConfidenceThreshold, name: .classificationConfidenceThreshold)
        if !(yoloIoUThreshold > 0 && yoloIoUThreshold <= 1) {
            throw TaskError.invalidOption(name: .yoloIoUThreshold, reason: "value must be in (0, 1]")
        }
    }
}
