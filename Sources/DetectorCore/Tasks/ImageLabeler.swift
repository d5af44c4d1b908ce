import Foundation

/// Where an image classifier comes from: a `.tflite` file (ML Kit's `LocalModel`), a model in
/// memory, or an AutoML Vision Edge export folder described by its `manifest.json`.
public enum ClassifierModel: Sendable, Equatable {
    case file(String)
    case data(Data)
    /// An AutoML Vision Edge manifest (`{"modelFile", "labelsFile", "modelType"}`).
    case autoMLManifest(String)

    /// ML Kit's `LocalModel(path:)`: a `.tflite`, or an AutoML manifest (a `.json` file).
    public static func localModel(path: String) -> ClassifierModel {
        (path as NSString).pathExtension.lowercased() == "json" ? .autoMLManifest(path) : .file(path)
    }
}

/// An AutoML Vision Edge export: the model file and the labels file (one label per line) named
/// by `manifest.json`, relative to the manifest's folder.
public struct AutoMLManifest: Sendable, Equatable {
    public var modelPath: String
    public var labelsPath: String?
    public var modelType: String?

    public init(contentsOfFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TaskError.invalidOption(name: "model", reason: "the AutoML manifest \(path) cannot be read")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data), let dict = object as? [String: Any] else {
            throw TaskError.invalidOption(name: "model", reason: "the AutoML manifest \(path) is not a JSON object")
        }
        guard let modelFile = dict["modelFile"] as? String, !modelFile.isEmpty else {
            throw TaskError.invalidOption(name: "model", reason: "the AutoML manifest \(path) has no \"modelFile\" string")
        }
        let folder = (path as NSString).deletingLastPathComponent
        func resolve(_ name: String) -> String { name.hasPrefix("/") ? name : (folder as NSString).appendingPathComponent(name) }
        modelPath = resolve(modelFile)
        guard FileManager.default.fileExists(atPath: modelPath) else {
            throw TaskError.invalidOption(name: "model", reason: "the AutoML manifest \(path) names model file \(modelFile), which does not exist")
        }
        if let labels = dict["labelsFile"] {
            guard let name = labels as? String, !name.isEmpty else {
                throw TaskError.invalidOption(name: "model", reason: "the AutoML manifest \(path) has a \"labelsFile\" that is not a string")
            }
            labelsPath = resolve(name)
            guard let p = labelsPath, FileManager.default.fileExists(atPath: p) else {
                throw TaskError.invalidOption(name: "model", reason: "the AutoML manifest \(path) names labels file \(name), which does not exist")
            }
        }
        modelType = dict["modelType"] as? String
    }
}

/// Options for `ImageLabeler`, with ML Kit's names and defaults (and MediaPipe's filter semantics).
public struct ImageLabelerOptions: Sendable {
    public var model: ClassifierModel
    /// Labels below this confidence are dropped; nil: the metadata's score threshold, else 0
    /// (a threshold only filters when it is > 0, inclusive: `score >= threshold` is kept).
    public var confidenceThreshold: Float? = nil
    /// The most labels to return (ML Kit default 10); nil or -1: all; 0 is an error.
    public var maxResultCount: Int? = 10
    /// Locale of display names from the metadata.
    public var displayNamesLocale: String = "en"
    /// Only these label names are kept (each maps to the first index with that name).
    public var categoryAllowlist: [String] = []
    /// These label names are dropped. Exclusive with the allowlist.
    public var categoryDenylist: [String] = []
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

    public init(model: ClassifierModel) { self.model = model }

    public func validate() throws {
        if !categoryAllowlist.isEmpty && !categoryDenylist.isEmpty {
            throw TaskError.conflictingOptions("`category_allowlist` and `category_denylist` are mutually exclusive options.")
        }
        if let m = maxResultCount, m == 0 || m < -1 {
            throw TaskError.invalidOption(name: "max_results", reason: "value must be != 0 (or -1 for all)")
        }
        if threadCount < 1 || threadCount > 256 {
            throw TaskError.invalidOption(name: "threadCount", reason: "value must be between 1 and 256")
        }
        try Interpreter.Options.validateLimits(maxArenaBytes: maxArenaBytes, maxMultiplyAccumulates: maxMultiplyAccumulates)
        if let t = confidenceThreshold, !t.isFinite {
            throw TaskError.invalidOption(name: "score_threshold", reason: "value must be a finite number")
        }
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
/// inputs take raw pixels. Not thread-safe: use one labeler per thread.
public final class ImageLabeler {
    public let options: ImageLabelerOptions
    let interpreter: Interpreter
    let tensorOptions: ImageToTensorOptions
    /// Label names by class index (empty when the model has none).
    public let labels: [String]
    let displayNames: [String]
    let threshold: Float
    let allowed: Set<Int>?
    let denied: Set<Int>
    let calibration: ScoreCalibration?

    public init(options: ImageLabelerOptions) throws {
        try options.validate()
        self.options = options
        let model: TFLiteModel
        var manifestLabels: [String]?
        switch options.model {
        case let .file(path):
            guard FileManager.default.fileExists(atPath: path) else { throw TaskError.invalidOption(name: "model", reason: "no file at \(path)") }
            model = try TFLiteModel(contentsOfFile: path)
        case let .data(data):
            model = try TFLiteModel(data: data)
        case let .autoMLManifest(path):
            let manifest = try AutoMLManifest(contentsOfFile: path)
            model = try TFLiteModel(contentsOfFile: manifest.modelPath)
            if let l = manifest.labelsPath, let data = FileManager.default.contents(atPath: l) {
                manifestLabels = String(decoding: data, as: UTF8.self).split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                while manifestLabels?.last == "" { manifestLabels?.removeLast() }
            }
        }
        let assets = try ModelAssets(model: model)
        let interpreter = try Interpreter(model: model, options: .init(threadCount: options.threadCount, maxArenaBytes: options.maxArenaBytes,
                                                                     maxMultiplyAccumulates: options.maxMultiplyAccumulates))
        guard let input = interpreter.inputs.first, input.shape.count == 4, input.shape[0] == 1, input.shape[3] == 3 else {
            throw TaskError.unsupportedModel("a classifier's first input must be an image tensor [1, height, width, 3]")
        }
        guard let output = interpreter.outputs.first, Shape.count(output.shape) >= 1 else {
            throw TaskError.unsupportedModel("the classifier has no output of class scores")
        }
        let normalization: TensorNormalization
        if let n = assets.metadata?.inputNormalization, let mean = n.mean.first, let std = n.std.first, std != 0 {
            normalization = .mediaPipe(mean: mean, std: std)
        } else {
            normalization = .range(min: -1, max: 1)
        }
        let inputType = try TensorInputType.forModelInput(input, normalization: normalization)
        tensorOptions = ImageToTensorOptions(width: input.shape[2], height: input.shape[1], resizeMode: .stretch,
                                             resampler: .mediaPipe, inputType: inputType)
        let names = try manifestLabels ?? assets.labels() ?? []
        var shown: [String] = []
        if assets.labelLocales(forOutput: 0).contains(options.displayNamesLocale),
           let file = assets.labelFile(forOutput: 0, locale: options.displayNamesLocale), let l = try assets.labels(in: file) {
            shown = l
        }
        if (!options.categoryAllowlist.isEmpty || !options.categoryDenylist.isEmpty) && names.isEmpty {
            throw TaskError.unsupportedModel("Using `category_allowlist` or `category_denylist` requires labels to be present in the TFLite Model Metadata but none was found.")
        }
        func indices(_ wanted: [String]) -> Set<Int> {
            Set(wanted.compactMap { w in names.firstIndex(of: w) })
        }
        let allow = indices(options.categoryAllowlist)
        allowed = allow.isEmpty ? nil : allow   // unknown names only: nothing is filtered (MediaPipe)
        denied = indices(options.categoryDenylist)
        threshold = options.confidenceThreshold ?? assets.scoreThreshold ?? 0
        calibration = try assets.scoreCalibration()?.calibration
        labels = names
        displayNames = shown
        self.interpreter = interpreter
    }

    /// Labels an image (orientation applied first), highest confidence first, ties by lower index.
    public func label(image: ImageBuffer, orientation: ImageOrientation = .up) throws -> [Label] {
        let upright = orientation == .up ? image : image.applyingOrientation(orientation)
        return try label(upright: upright, region: nil)
    }

    /// Labels a region (in upright-image pixels) of an upright image; used for detected objects.
    func label(upright: ImageBuffer, region: ImageRect?, maxResults: Int? = nil, threshold: Float? = nil) throws -> [Label] {
        var o = tensorOptions
        o.region = region
        let tensor = try ImageToTensor.convert(upright, options: o)
        try interpreter.copyInput(tensor.values, at: 0)
        try interpreter.invoke()
        let scores = try interpreter.dequantizedOutput(at: 0)
        return try rank(scores, maxResults: maxResults ?? options.maxResultCount, threshold: threshold ?? self.threshold)
    }

    /// MediaPipe's order: calibration, allowlist/denylist, threshold (> 0 only, inclusive), sort, max results.
    func rank(_ raw: [Float], maxResults: Int?, threshold: Float) throws -> [Label] {
        var result: [Label] = []
        result.reserveCapacity(raw.count)
        for (i, s) in raw.enumerated() {
            if let allowed, !allowed.contains(i) { continue }
            if denied.contains(i) { continue }
            let score = try calibration.map { try $0.calibrate(score: s, classIndex: i) } ?? s
            if threshold > 0 && !(score >= threshold) { continue }
            result.append(Label(text: i < labels.count ? labels[i] : "", index: i, confidence: score,
                                displayName: i < displayNames.count ? displayNames[i] : nil))
        }
        result.sort { $0.confidence != $1.confidence ? $0.confidence > $1.confidence : $0.index < $1.index }
        if let m = maxResults, m > 0, result.count > m { result.removeLast(result.count - m) }
        return result
    }
}
