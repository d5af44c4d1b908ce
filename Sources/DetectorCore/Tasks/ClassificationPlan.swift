import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
import Foundation

/// Who a classifier works for, and so how its errors name the model and the options: an
/// `ImageLabeler` of its own, or an `ObjectDetector` classifying the objects it detects.
struct ClassifierRole: Sendable, Equatable {
    /// What starts a mismatch sentence ("" for a labeler).
    let subject: OptionText
    /// The option that says what to do with logits.
    let logitOption: TaskOption
    /// What to do when the model is not a classifier.
    let notAClassifierFix: OptionText

    static let labeler = ClassifierRole(subject: "", logitOption: .logitHandling,
                                        notAClassifierFix: "detect with it instead (ObjectDetector), and label with an image-classification model")
    static let objectClassifier = ClassifierRole(subject: "the classifier model (\(option: .classifierModel)): ", logitOption: .classifierLogitHandling,
                                                 notAClassifierFix: "give \(option: .classifierModel) an image-classification model")
}

/// How one classifier model is run, decided once from its facts and the labeler's options:
/// the input conversion, the labels and category filter, and whether a softmax turns logits
/// into probabilities. A pure function of `ModelFacts`, like `DetectionPlan`.
struct ClassificationPlan: Sendable {
    let tensorOptions: ImageToTensorOptions
    let labels: [String]
    let categories: CategoryFilter
    let appliesSoftmax: Bool

    /// - Throws: `TaskError.modelMismatch` when the model is not a classifier (a detector, say),
    ///   outputs logits while `logitHandling` is `.reject`, or has fewer labels than classes;
    ///   `.unknownCategories` for allow/deny names the labels lack.
    static func make(facts: ModelFacts, options: ImageLabelerOptions, role: ClassifierRole = .labeler,
                     manifestLabels: [String]? = nil) throws -> ClassificationPlan {
        let input = facts.input
        guard input.shape.count == 4, input.shape[0] == 1, input.shape[3] == 3, input.shape[1] > 0, input.shape[2] > 0 else {
            throw TaskError.unsupportedModel("a classifier's first input must be an image tensor [1, height, width, 3], found \(input.shape)")
        }
        let shapes = facts.outputs.map(\.shape)
        guard facts.family.family == .classifier, let classCount = facts.family.classCount else {
            let kind: String
            switch facts.family.family {
            case .ssd, .anchors, .yolov5, .yolov8, .yolox, .endToEnd: kind = "a detector's (\(facts.family.family.rawValue))"
            default: kind = "not a classifier's"
            }
            throw TaskError.modelMismatch("\(role.subject)this model's outputs \(shapes) are \(kind), not one tensor of class scores [1, C]",
                                          fix: role.notAClassifierFix)
        }
        var softmax = false
        if !facts.outputIsProbability {
            switch options.logitHandling {
            case .reject:
                let producer = facts.scoringOperator.map { "its scores come from \($0.name)" } ?? "no softmax or logistic computes its scores"
                throw TaskError.modelMismatch("\(role.subject)the classifier's output holds logits, not probabilities (\(producer) and no metadata bounds them to 0…1)",
                                              fix: "\(set: role.logitOption, to: "softmax") for probabilities, or \(set: role.logitOption, to: "raw") to keep the model's own scores")
            case .softmax: softmax = true
            case .raw: break
            }
        }
        let given = options.labels.flatMap { $0.isEmpty ? nil : $0 }
        let names = given ?? manifestLabels ?? facts.labels ?? []
        if !names.isEmpty, names.count < classCount {
            if given != nil {
                throw TaskError.modelMismatch("\(role.subject)the model scores \(classCount) classes but only \(names.count) labels were given",
                                              fix: "\(set: .labels, to: "the model's \(classCount) class names")")
            }
            throw TaskError.modelMismatch("\(role.subject)the model scores \(classCount) classes but its labels name only \(names.count)",
                                          fix: "give the labels file made for this model")
        }
        if (!options.categoryAllowlist.isEmpty || !options.categoryDenylist.isEmpty) && names.isEmpty {
            throw TaskError.unsupportedModel("\(option: .categoryAllowlist) and \(option: .categoryDenylist) need labels, but the model has none")
        }
        let list = options.categoryAllowlist.isEmpty ? options.categoryDenylist : options.categoryAllowlist
        try LabelSuggestions.checkKnown(list, option: options.categoryAllowlist.isEmpty ? .categoryDenylist : .categoryAllowlist, labels: names)
        let categories = try CategoryFilter(allowlist: options.categoryAllowlist, denylist: options.categoryDenylist,
                                            labels: LabelMap(names: names))
        let normalization: TensorNormalization = facts.normalization.map { .mediaPipe(mean: $0.mean, std: $0.std) } ?? .range(min: -1, max: 1)
        let inputType = try TensorInputType.forModelInput(input, normalization: normalization)
        let tensorOptions = ImageToTensorOptions(width: input.shape[2], height: input.shape[1], resizeMode: .stretch,
                                                 resampler: .mediaPipe, inputType: inputType)
        return ClassificationPlan(tensorOptions: tensorOptions, labels: names, categories: categories, appliesSoftmax: softmax)
    }

    /// A numerically stable softmax (the maximum subtracted first); NaN inputs give NaN.
    static func softmax(_ x: [Float]) -> [Float] {
        guard let top = x.max(), top.isFinite else { return x }
        let e = x.map { Float(exp(Double($0 - top))) }
        let sum = e.reduce(0, +)
        return sum > 0 ? e.map { $0 / sum } : e
    }
}
