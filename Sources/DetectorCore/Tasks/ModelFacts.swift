import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
/// What a task's plan builder needs to know about a model, read once from the model file, its
/// metadata and the prepared interpreter. Plans are pure functions of these facts and the
/// options, so they can be tested for every family, resize mode and metadata case without a
/// model file.
struct ModelFacts: Sendable {
    /// The model's first input (an image tensor for every task).
    var input: TensorDescription
    /// The model's outputs, in the model's order, with their prepared shapes.
    var outputs: [TensorDescription]
    /// `ModelFamilyDetector`'s verdict on the output layout.
    var family: ModelFamilyInfo
    /// The label names from the metadata (the first label file of the first output that has one).
    var labels: [String]?
    /// Display names in the requested locale, when the metadata has them.
    var displayNames: [String] = []
    /// The metadata's score threshold.
    var scoreThreshold: Float?
    /// The metadata's input normalization (first channel), when its std is non-zero.
    var normalization: (mean: Float, std: Float)?
    /// The metadata's score calibration.
    var calibration: ScoreCalibration?
    /// The metadata's tensor name of each output (nil where there is none).
    var outputNames: [String?] = []
    /// The metadata's bounding-box corner order (`BoundingBoxProperties.index`), when given.
    var boxCornerIndex: [Int]?
    /// The builtin operator that computes output 0's values, looking through the ops that only
    /// reshape or (de)quantize them (e.g. `SOFTMAX` before a `RESHAPE`); nil for a custom op.
    var scoringOperator: BuiltinOperator?
    /// Output 0's value range from the metadata's statistics, when given.
    var outputStats: ClosedRange<Float>?

    /// Whether output 0 holds probabilities: a softmax or logistic computes it, or the
    /// metadata's statistics keep it within 0…1. Otherwise its values are logits (any real).
    var outputIsProbability: Bool {
        if scoringOperator == .softmax || scoringOperator == .logistic { return true }
        if let r = outputStats { return r.lowerBound >= 0 && r.upperBound <= 1 }
        return false
    }

    init(input: TensorDescription, outputs: [TensorDescription], family: ModelFamilyInfo) {
        self.input = input
        self.outputs = outputs
        self.family = family
    }

    /// Reads the facts from a loaded model and its interpreter.
    /// - Parameter locale: the display-names locale wanted (e.g. "en").
    init(model: TFLiteModel, assets: ModelAssets, interpreter: Interpreter, locale: String) throws {
        guard let input = interpreter.inputs.first else {
            throw TaskError.unsupportedModel("the model has no input tensor")
        }
        self.init(input: input, outputs: interpreter.outputs, family: ModelFamilyDetector.detect(model))
        labels = try assets.labels()
        for i in outputs.indices where displayNames.isEmpty {
            if assets.labelLocales(forOutput: i).contains(locale), let file = assets.labelFile(forOutput: i, locale: locale),
               let shown = try assets.labels(in: file) {
                displayNames = shown
            }
        }
        scoreThreshold = assets.scoreThreshold
        if let n = assets.metadata?.inputNormalization, let mean = n.mean.first, let std = n.std.first, std != 0 {
            normalization = (mean, std)
        }
        calibration = try assets.scoreCalibration()?.calibration
        outputNames = outputs.indices.map { assets.outputMetadata($0)?.name }
        boxCornerIndex = outputs.indices.lazy.compactMap { assets.outputMetadata($0)?.boundingBox?.index }.first
        scoringOperator = ModelFacts.scoringOperator(of: model)
        if let stats = assets.outputMetadata(0)?.stats, let lo = stats.min.min(), let hi = stats.max.max(), lo <= hi {
            outputStats = lo...hi
        }
    }

    /// The operator computing output 0, through at most 8 reshape / squeeze / (de)quantize steps.
    static func scoringOperator(of model: TFLiteModel) -> BuiltinOperator? {
        let graph = model.mainSubgraph
        guard var tensor = graph.outputs.first else { return nil }
        let passThrough: Set<BuiltinOperator> = [.reshape, .squeeze, .dequantize, .quantize]
        for _ in 0..<8 {
            guard let op = graph.operators.last(where: { $0.outputs.contains(tensor) }), !op.code.isCustom else { return nil }
            let code = op.code.builtinCode
            guard passThrough.contains(code), let next = op.inputs.first, next >= 0 else { return code }
            tensor = next
        }
        return nil
    }
}
