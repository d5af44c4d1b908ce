import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
/// How one detector model is run, decided once from the model's facts and the options: the
/// input conversion, the family's output decoder, and the post-processing shared by every
/// family (`DetectionOutputMapping`: boxes to upright image pixels, then the filters).
///
/// `DetectionPlan.make(facts:options:)` is a pure function, so every family × resize mode ×
/// metadata case is unit-tested without a model file; `DetectorPipeline` runs the plan.
struct DetectionPlan: Sendable {
    /// The family's decoder and which outputs it reads.
    enum Decoding: Sendable {
        /// `TFLite_Detection_PostProcess` outputs: locations, classes, scores, count (output positions).
        case ssd(SsdPostProcessDecoder, outputs: [Int])
        /// MediaPipe raw anchors: the boxes and scores outputs.
        case anchors(AnchorPostProcessor, boxes: Int, scores: Int)
        /// YOLOv5/v8: the single output, dequantized when integer.
        case yolo(YoloDecoder, output: Int)
        /// YOLOX: the single output, grid-decoded.
        case yolox(YoloxDecoder, output: Int)
        /// End-to-end: the single output already holds the final detections.
        case endToEnd(EndToEndDecoder, output: Int)
    }

    let family: ModelFamily
    let tensorOptions: ImageToTensorOptions
    let labels: LabelMap
    let decoding: Decoding
    let mapping: DetectionOutputMapping

    /// Builds the plan.
    /// - Throws: `TaskError.unsupportedModel` / `.modelMismatch` when the model does not fit the
    ///   decoder it is given (with what to pass instead), `.unknownCategories` for an allow or
    ///   deny list naming labels the model does not have.
    static func make(facts: ModelFacts, options: ObjectDetectorOptions, presetName: String? = nil) throws -> DetectionPlan {
        let input = facts.input
        guard input.shape.count == 4, input.shape[0] == 1, input.shape[3] == 3, input.shape[1] > 0, input.shape[2] > 0 else {
            throw TaskError.unsupportedModel("the detector model's first input must be an image tensor [1, height, width, 3], found \(input.shape)")
        }
        let inputHeight = input.shape[1], inputWidth = input.shape[2]
        let outputShapes = facts.outputs.map(\.shape)

        // The decoder family and its configuration.
        var config = options.decoderConfig ?? presetName.flatMap(DetectorDecoderConfig.preset(named:))
        let family = try options.decoder ?? config?.family ?? detectedFamily(facts.family)
        guard family.isDetector else { throw notADecoder(family) }
        try checkLayout(family: family, facts: facts)
        if config?.family != family {
            config = try defaultConfig(family: family, inputWidth: inputWidth, inputHeight: inputHeight, inputShape: input.shape, outputShapes: outputShapes)
        }
        guard var config else { throw TaskError.unsupportedModel("no decoder configuration for this model") }
        if config.inputWidth != inputWidth || config.inputHeight != inputHeight {
            throw TaskError.unsupportedModel("the decoder config expects a \(config.inputWidth)x\(config.inputHeight) input but the model takes \(inputWidth)x\(inputHeight)")
        }
        try config.check(inputShape: input.shape, outputShapes: outputShapes)

        // Labels: the options', else the decoder config's, else the metadata's; COCO's 80 for
        // an 80-class YOLO model without labels (as ultralytics names them).
        var names = options.labels ?? config.labels ?? []
        if names.isEmpty, let fromMetadata = facts.labels { names = fromMetadata }
        let classCount = try classCount(family: family, facts: facts, config: config)
        // YOLOX's COCO_CLASSES are the same 80 names in the same order.
        if names.isEmpty, family == .yolov5 || family == .yolov8 || family == .yolox || family == .endToEnd, classCount == 80 {
            names = CocoClassNames.yolo80
        }
        try checkLabels(names, classCount: classCount, family: family, fromOptions: options.labels != nil)
        let labels = LabelMap(names: names, displayNames: facts.displayNames)
        let categoryFilter = try categoryFilter(options: options, labels: labels)
        // Explicit, else the model's (metadata; a given config's YOLO threshold), else the
        // caller's fallback, else none.
        let userConfigThreshold = options.decoderConfig?.yolo.map { Float($0.scoreThreshold) }
        let threshold = options.scoreThreshold ?? facts.scoreThreshold ?? userConfigThreshold ?? options.fallbackScoreThreshold
        let maxResults = options.maxResults.flatMap { $0 > 0 ? $0 : nil }

        // Input conversion: fit, resampler, letterbox colour and values.
        let resize = options.resizeMode ?? config.resize
        let resampler = options.resampler ?? defaultResampler(family: family, resize: resize)
        // MediaPipe pads with black (its image-to-tensor border is zero); ultralytics with 114 grey.
        let fill = UInt8(clamping: config.letterboxFill ?? (family.isYoloLike ? 114 : 0))
        let channelOrder = options.channelOrder ?? config.channelOrder ?? (family == .yolox ? .bgr : .rgb)
        let normalization = inputNormalization(family: family, config: config, facts: facts)
        let inputType = try TensorInputType.forModelInput(input, normalization: normalization)
        let tensorOptions = ImageToTensorOptions(width: inputWidth, height: inputHeight,
                                                 resizeMode: resize, letterboxFill: fill,
                                                 resampler: resampler, inputType: inputType, channelOrder: channelOrder)

        // The decoder. Score thresholds the reference applies inside decoding (anchors'
        // min_score_thresh, YOLO's conf) stay there; everything else is the shared filter.
        let decoding: Decoding
        var filterThreshold: Float? = nil
        switch family {
        case .ssd:
            var corner = BoxCornerIndices.tflitePostProcess
            if let index = facts.boxCornerIndex, let fromMetadata = BoxCornerIndices(metadataIndex: index) { corner = fromMetadata }
            decoding = .ssd(try SsdPostProcessDecoder(labels: labels, calibration: facts.calibration, cornerIndices: corner),
                            outputs: ssdOutputOrder(names: facts.outputNames, count: facts.outputs.count))
            filterThreshold = threshold
        case .anchors:
            // The preset's (graph's) min score is the model's threshold; else metadata, fallback.
            if let t = options.scoreThreshold {
                config.decoding?.minScoreThresh = t
            } else if config.decoding?.minScoreThresh == nil, let t = facts.scoreThreshold ?? options.fallbackScoreThreshold {
                config.decoding?.minScoreThresh = t
            }
            let pipeline = try config.makeAnchorPostProcessor()
            let coords = config.decoding?.numCoords ?? 0
            guard let boxes = outputShapes.firstIndex(where: { $0.last == coords }),
                  let scores = outputShapes.indices.first(where: { $0 != boxes }) else {
                throw TaskError.unsupportedModel("no output of this model has \(coords) values per anchor, as the decoder config says")
            }
            decoding = .anchors(pipeline, boxes: boxes, scores: scores)
        case .yolov5, .yolov8, .yolox:
            var yolo = config.yolo ?? YoloDecoderOptions()
            // No threshold: every candidate goes into the NMS (the best maxDetections are kept).
            yolo.scoreThreshold = threshold.map(Double.init) ?? -.infinity
            yolo.iouThreshold = Double(options.yoloIoUThreshold)
            if family == .yolox {
                decoding = .yolox(YoloxDecoder(numClasses: classCount, options: yolo), output: 0)
            } else {
                decoding = .yolo(YoloDecoder(layout: family == .yolov5 ? .yolov5 : .yolov8, numClasses: classCount, options: yolo), output: 0)
            }
        case .endToEnd:
            decoding = .endToEnd(EndToEndDecoder(scoreThreshold: threshold), output: 0)
        case .classifier, .unknown:
            throw notADecoder(family)
        }
        let mapping = DetectionOutputMapping(
            boxRounding: family == .ssd ? .mediaPipeTruncation : .none,
            clampsToImage: family != .anchors,
            filter: DetectionFilter(scoreThreshold: filterThreshold, maxResults: maxResults, categories: categoryFilter))
        return DetectionPlan(family: family, tensorOptions: tensorOptions, labels: labels, decoding: decoding, mapping: mapping)
    }

    static func notADecoder(_ family: ModelFamily) -> TaskError {
        .invalidOption(name: .decoder, reason: "\(family.rawValue) is not a detector's output decoder; use \(ModelFamily.detectorFamilyList)")
    }

    /// The family `ModelFamilyDetector` found, or an error saying which option to set.
    static func detectedFamily(_ info: ModelFamilyInfo) throws -> ModelFamily {
        switch info.family {
        case .ssd, .anchors, .yolov5, .yolov8, .yolox, .endToEnd: return info.family
        case .classifier:
            throw TaskError.modelMismatch("this model is an image classifier (\(info.reason)), not a detector", fix: "label with it instead (ImageLabeler, or as \(option: .classifierModel) to classify detected objects)")
        case .unknown:
            throw TaskError.modelMismatch("cannot tell how to decode this model's outputs (\(info.reason))",
                                          fix: "\(set: .decoder, to: ModelFamily.detectorFamilyList), or give a \(option: .decoderConfig)")
        }
    }

    /// Checks a chosen YOLO or SSD decoder against the model's output layout, naming the decoder
    /// that fits when the shapes decide it.
    static func checkLayout(family: ModelFamily, facts: ModelFacts) throws {
        let shapes = facts.outputs.map(\.shape)
        let fitting = facts.family.family.isDetector ? facts.family.family.rawValue : nil
        let fix: OptionText = fitting.map { "\(set: .decoder, to: $0)" } ?? "\(set: .decoder, to: "the model's family") or give a \(option: .decoderConfig)"
        switch family {
        case .yolov5, .yolov8:
            guard shapes.count == 1, let s = shapes.first, s.count == 3, s[0] == 1 else {
                throw TaskError.modelMismatch("a \(family.rawValue) decoder needs one output [1, a, b], but this model has outputs \(shapes)", fix: fix)
            }
            // v5: [1, N, 5 + C] with N candidates ≫ 5 + C; v8: [1, 4 + C, N].
            if family == .yolov5, !(s[1] > s[2]) {
                throw TaskError.modelMismatch("the output \(s) has YOLOv8's layout [1, 4 + C, N], not YOLOv5's [1, N, 5 + C]", fix: "\(set: .decoder, to: "yolov8")")
            }
            if family == .yolov8, !(s[2] > s[1]) {
                throw TaskError.modelMismatch("the output \(s) has YOLOv5's layout [1, N, 5 + C], not YOLOv8's [1, 4 + C, N]", fix: "\(set: .decoder, to: "yolov5")")
            }
        case .yolox:
            let input = facts.input.shape
            let cells = input.count == 4 ? ModelFamily.gridCellCount(inputWidth: input[2], inputHeight: input[1]) : nil
            guard shapes.count == 1, let s = shapes.first, s.count == 3, s[0] == 1, s[2] >= 6, let cells, s[1] == cells else {
                throw TaskError.modelMismatch("a yolox decoder needs one output [1, N, 5 + C] with one row per grid cell of strides 8, 16 and 32 (N = \(cells.map(String.init) ?? "none: the input is not a multiple of 32")), but this model has outputs \(shapes)", fix: fix)
            }
        case .endToEnd:
            guard shapes.count == 1, let s = shapes.first, s.count == 3, s[0] == 1, s[2] >= 5 else {
                throw TaskError.modelMismatch("an end2end decoder needs one output [1, N, 6] (x1, y1, x2, y2, score, class) or [1, N, 4 + C], but this model has outputs \(shapes)", fix: fix)
            }
        case .ssd:
            guard shapes.count == 4 else {
                throw TaskError.modelMismatch("the ssd decoder reads TFLite_Detection_PostProcess outputs (locations, classes, scores, count), but this model has outputs \(shapes)", fix: fix)
            }
        case .anchors:
            guard shapes.count == 2 else {
                throw TaskError.modelMismatch("the anchors decoder reads two outputs (boxes [1, N, K], scores [1, N, C]), but this model has outputs \(shapes)", fix: fix)
            }
        case .classifier, .unknown:
            throw notADecoder(family)
        }
    }

    /// The class count the decoder will read from the outputs.
    static func classCount(family: ModelFamily, facts: ModelFacts, config: DetectorDecoderConfig) throws -> Int {
        let shape = facts.outputs.first?.shape ?? []
        switch family {
        case .yolov5, .yolov8, .yolox:
            let count = shape.count == 3 ? (family == .yolov8 ? shape[1] - 4 : shape[2] - 5) : 0
            guard count >= 1 else { throw TaskError.unsupportedModel("the YOLO output shape \(shape) has no class columns") }
            return count
        case .endToEnd:
            // [1, N, 6] carries class indices (any count); [1, N, 4 + C] C scores.
            return shape.count == 3 ? EndToEndDecoder.classCount(columns: shape[2]) ?? 0 : 0
        case .anchors:
            return config.decoding?.numClasses ?? 0
        case .ssd:
            return facts.family.classCount ?? 0
        case .classifier, .unknown:
            throw notADecoder(family)
        }
    }

    /// Label count against class count: a label file for another model is an error, not names shifted onto the wrong classes.
    static func checkLabels(_ names: [String], classCount: Int, family: ModelFamily, fromOptions: Bool) throws {
        guard !names.isEmpty, classCount > 0 else { return }
        // SSD label maps often carry a leading background ("???") entry, so one extra is fine there;
        // MediaPipe's own label maps may hold more names than classes (unused ids).
        switch family {
        case .yolov5, .yolov8, .yolox, .endToEnd:
            if names.count != classCount {
                throw TaskError.modelMismatch("the model scores \(classCount) classes but \(names.count) labels were given",
                                              fix: "\(set: .labels, to: "the model's \(classCount) class names")\(fromOptions ? "" : " (its own labels do not match its output)")")
            }
        case .ssd, .anchors:
            if names.count < classCount {
                throw TaskError.modelMismatch("the model scores \(classCount) classes but only \(names.count) labels were given",
                                              fix: "\(set: .labels, to: "at least \(classCount) class names")")
            }
        case .classifier, .unknown:
            throw notADecoder(family)
        }
    }

    /// The allow/deny filter; a name the labels do not have is an error listing the closest known names.
    static func categoryFilter(options: ObjectDetectorOptions, labels: LabelMap) throws -> CategoryFilter {
        let list = options.categoryAllowlist.isEmpty ? options.categoryDenylist : options.categoryAllowlist
        let option: TaskOption = options.categoryAllowlist.isEmpty ? .categoryDenylist : .categoryAllowlist
        if !list.isEmpty && labels.isEmpty {
            throw TaskError.unsupportedModel("\(option: .categoryAllowlist) and \(option: .categoryDenylist) need labels, but the model has none; set \(option: .labels)")
        }
        try LabelSuggestions.checkKnown(list, option: option, labels: labels.names)
        return try CategoryFilter(allowlist: options.categoryAllowlist, denylist: options.categoryDenylist, labels: labels)
    }

    static func defaultConfig(family: ModelFamily, inputWidth: Int, inputHeight: Int, inputShape: [Int],
                              outputShapes: [[Int]]) throws -> DetectorDecoderConfig {
        switch family {
        case .anchors:
            // A MediaPipe preset whose input size and anchor count fit this model.
            let candidates = [DetectorDecoderConfig.faceFullRange, .faceShortRange, .palm]
            guard let found = candidates.first(where: { c in
                c.inputWidth == inputWidth && c.inputHeight == inputHeight
                    && (try? c.check(inputShape: inputShape, outputShapes: outputShapes)) != nil
            }) else {
                throw TaskError.modelMismatch("this raw-anchor model (input \(inputWidth)x\(inputHeight), outputs \(outputShapes)) matches no built-in anchor preset",
                                              fix: "give its anchor and decoding settings as a \(option: .decoderConfig)")
            }
            return found
        case .yolov5, .yolov8:
            return .yolo(family, inputWidth: inputWidth, inputHeight: inputHeight)
        case .yolox:
            return .yolox(inputWidth: inputWidth, inputHeight: inputHeight)
        case .endToEnd:
            return .endToEnd(inputWidth: inputWidth, inputHeight: inputHeight)
        case .ssd:
            return DetectorDecoderConfig(family: .ssd, inputWidth: inputWidth, inputHeight: inputHeight, resize: .stretch)
        case .classifier, .unknown:
            throw notADecoder(family)
        }
    }

    /// MediaPipe families use MediaPipe's resampler; YOLO Pillow's bilinear when stretching (its
    /// goldens' preprocessing) and half-pixel bilinear when letterboxing (OpenCV's, as ultralytics);
    /// YOLOX Pillow's bilinear (the YOLOX goldens'; at 320 × 320 most photos are shrunk, where
    /// Pillow's antialiasing and OpenCV's 2-tap bilinear differ a lot).
    static func defaultResampler(family: ModelFamily, resize: ResizeMode) -> Resampler {
        switch family {
        case .ssd, .anchors, .classifier, .unknown: return .mediaPipe
        case .yolox: return .pillowBilinear
        case .yolov5, .yolov8, .endToEnd: return resize == .stretch ? .pillowBilinear : .bilinear
        }
    }

    static func inputNormalization(family: ModelFamily, config: DetectorDecoderConfig, facts: ModelFacts) -> TensorNormalization {
        if let range = config.inputRange, family.isYoloLike, range.min == 0, range.max > 0 {
            // YOLO pipelines divide: x / 255 in float32 (multiplying by 1/255 differs by an ulp,
            // which hybrid models' on-the-fly input quantization can amplify).
            return .meanStd(mean: [0], std: [255 / range.max])
        }
        if let range = config.inputRange {
            // MediaPipe's form: x · (max − min) / 255 + min.
            return .range(min: range.min, max: range.max)
        }
        if let n = facts.normalization {
            return .mediaPipe(mean: n.mean, std: n.std)
        }
        return family == .ssd ? .range(min: -1, max: 1) : .range(min: 0, max: 1)
    }

    /// SSD outputs in the order locations, classes, scores, count: from the metadata's tensor
    /// names when present (EfficientDet-style exports reorder them), else the TFLite order.
    static func ssdOutputOrder(names: [String?], count: Int) -> [Int] {
        let wanted = [["location", "locations"], ["category", "classes", "class"], ["score", "scores"], ["number of detections", "num_detections", "count"]]
        var order: [Int] = []
        for accepted in wanted {
            guard let i = (0..<count).first(where: { i in
                guard i < names.count, let name = names[i]?.lowercased() else { return false }
                return accepted.contains(name)
            }) else { return [0, 1, 2, 3] }
            order.append(i)
        }
        return Set(order).count == 4 ? order : [0, 1, 2, 3]
    }
}
