import Foundation

/// One detector model made ready to run: its interpreter, how an image becomes its input
/// tensor, and how its outputs become `DetectedObject`s. Built once by `ObjectDetector` from the
/// options, the model's metadata and its family; not thread-safe (one per detector).
final class DetectorPipeline {
    enum Decoder {
        /// `TFLite_Detection_PostProcess` outputs: locations, classes, scores, count (output positions).
        case ssd(SsdPostProcessDecoder, outputs: [Int])
        /// MediaPipe raw anchors: the boxes and scores outputs.
        case anchors(AnchorDetectionPipeline, boxes: Int, scores: Int)
        /// YOLOv5/v8: the single output, dequantized when integer.
        case yolo(YoloDecoder, output: Int)
    }

    let interpreter: Interpreter
    let family: DecoderFamily
    let tensorOptions: ImageToTensorOptions
    let labels: LabelMap
    let decoder: Decoder
    /// Filters applied after decoding for families whose decoder does not filter (anchors, YOLO).
    let postFilter: DetectionFilterOptions
    let categoryFilter: CategoryFilter
    /// MediaPipe's SSD output truncates pixel boxes to integers.
    let truncatesPixelBoxes: Bool

    init(options: ObjectDetectorOptions) throws {
        let model = try DetectorPipeline.loadModel(options.model)
        let assets = try ModelAssets(model: model)
        let interpreter = try Interpreter(model: model, options: .init(threadCount: options.threadCount, maxArenaBytes: options.maxArenaBytes,
                                                                     maxMultiplyAccumulates: options.maxMultiplyAccumulates))
        guard let input = interpreter.inputs.first, input.shape.count == 4, input.shape[0] == 1, input.shape[3] == 3,
              input.shape[1] > 0, input.shape[2] > 0 else {
            throw TaskError.unsupportedModel("the detector model's first input must be an image tensor [1, height, width, 3], found \(interpreter.inputs.first.map { "\($0.shape)" } ?? "no input")")
        }
        let inputHeight = input.shape[1], inputWidth = input.shape[2]
        let outputShapes = interpreter.outputs.map(\.shape)

        // Which decoder family, and the decoder configuration for it.
        var config: DetectorDecoderConfig?
        if let c = options.decoderConfig {
            config = c
        } else if case let .embedded(name) = options.model {
            config = DetectorDecoderConfig.preset(named: name)
        }
        let family: DecoderFamily
        if let f = options.decoder {
            family = f
        } else if let c = config {
            family = c.family
        } else {
            let info = ModelFamilyDetector.detect(model)
            switch info.family {
            case .ssdPostprocess: family = .ssd
            case .rawAnchorSSD: family = .anchors
            case .yolov5: family = .yolov5
            case .yolov8: family = .yolov8
            default:
                throw TaskError.unsupportedModel("cannot tell how to decode this model's outputs (\(info.reason)); choose a decoder (--decoder ssd|anchors|yolov5|yolov8) or give a decoder config (--decoder-config FILE)")
            }
        }
        if config == nil || config?.family != family {
            switch family {
            case .anchors:
                // A MediaPipe preset whose input size and anchor count fit this model.
                let candidates = [DetectorDecoderConfig.faceFullRange, .faceShortRange, .palm]
                config = candidates.first { c in
                    c.inputWidth == inputWidth && c.inputHeight == inputHeight
                        && (try? c.check(inputShape: input.shape, outputShapes: outputShapes)) != nil
                }
                if config == nil {
                    throw TaskError.unsupportedModel("this raw-anchor model (input \(inputWidth)x\(inputHeight), outputs \(outputShapes)) matches no built-in anchor preset; give its anchor and decoding settings with a decoder config (--decoder-config FILE)")
                }
            case .yolov5, .yolov8:
                config = .yolo(family, inputWidth: inputWidth, inputHeight: inputHeight)
            case .ssd:
                config = DetectorDecoderConfig(family: .ssd, inputWidth: inputWidth, inputHeight: inputHeight, resize: .stretch)
            }
        }
        guard var config else { throw TaskError.unsupportedModel("no decoder configuration for this model") }
        if config.inputWidth != inputWidth || config.inputHeight != inputHeight {
            throw TaskError.unsupportedModel("the decoder config expects a \(config.inputWidth)x\(config.inputHeight) input but the model takes \(inputWidth)x\(inputHeight)")
        }
        try config.check(inputShape: input.shape, outputShapes: outputShapes)

        // Labels: the decoder config's, else the model metadata's for the locale.
        var names = options.labels ?? config.labels ?? []
        var displayNames: [String] = []
        if names.isEmpty, let fromMetadata = try assets.labels() { names = fromMetadata }
        if names.isEmpty, family == .yolov5 || family == .yolov8, DetectorPipeline.yoloClassCount(family, outputShapes.first ?? []) == 80 {
            names = CocoClassNames.yolo80
        }
        let locale = options.displayNamesLocale
        let outputCount = interpreter.outputs.count
        for i in 0..<outputCount where displayNames.isEmpty {
            if assets.labelLocales(forOutput: i).contains(locale), let file = assets.labelFile(forOutput: i, locale: locale),
               let shown = try assets.labels(in: file) {
                displayNames = shown
            }
        }
        let labels = LabelMap(names: names, displayNames: displayNames)
        if (!options.categoryAllowlist.isEmpty || !options.categoryDenylist.isEmpty) && labels.isEmpty {
            throw TaskError.unsupportedModel("Using `category_allowlist` or `category_denylist` requires labels to be present in the TFLite Model Metadata but none was found.")
        }
        let threshold = options.scoreThreshold ?? assets.scoreThreshold
        let maxResults = options.maxResults.flatMap { $0 > 0 ? $0 : nil }

        // Preprocessing: fit mode, resampler and value conversion.
        let resize = options.resizeMode ?? config.resize
        let resampler: ResizeMethod
        if let r = options.resampler {
            resampler = r
        } else {
            switch family {
            case .ssd, .anchors: resampler = .mediaPipe
            case .yolov5, .yolov8: resampler = resize == .stretch ? .pillowBilinear : .bilinear
            }
        }
        let fill = UInt8(clamping: config.letterboxFill ?? (family == .anchors ? 0 : 114))
        let normalization: TensorNormalization
        if let range = config.inputRange, family == .yolov5 || family == .yolov8, range.min == 0, range.max > 0 {
            // YOLO pipelines divide: x / 255 in float32 (multiplying by 1/255 differs by an ulp,
            // which hybrid models' on-the-fly input quantization can amplify).
            normalization = .meanStd(mean: [0], std: [255 / range.max])
        } else if let range = config.inputRange {
            // MediaPipe's form: x · (max − min) / 255 + min.
            normalization = .range(min: range.min, max: range.max)
        } else if let n = assets.metadata?.inputNormalization, let mean = n.mean.first, let std = n.std.first, std != 0 {
            normalization = .mediaPipe(mean: mean, std: std)
        } else {
            normalization = family == .ssd ? .range(min: -1, max: 1) : .range(min: 0, max: 1)
        }
        let inputType = try TensorInputType.forModelInput(input, normalization: normalization)
        let tensorOptions = ImageToTensorOptions(width: inputWidth, height: inputHeight,
                                                 resizeMode: resize == .letterbox ? .letterbox(fill: fill) : .stretch,
                                                 resampler: resampler, inputType: inputType)

        // The decoder.
        let filter = DetectionFilterOptions(scoreThreshold: threshold, maxResults: maxResults,
                                            categoryAllowlist: options.categoryAllowlist, categoryDenylist: options.categoryDenylist)
        let decoder: Decoder
        var postFilter = DetectionFilterOptions()
        switch family {
        case .ssd:
            var corner = BoxCornerIndices.tflitePostProcess
            if let index = (0..<outputCount).lazy.compactMap({ assets.outputMetadata($0)?.boundingBox?.index }).first,
               let fromMetadata = BoxCornerIndices(metadataIndex: index) {
                corner = fromMetadata
            }
            let calibration = try assets.scoreCalibration()?.calibration
            decoder = .ssd(try SsdPostProcessDecoder(labels: labels, filter: filter, calibration: calibration, cornerIndices: corner),
                           outputs: DetectorPipeline.ssdOutputOrder(assets: assets, count: outputCount))
        case .anchors:
            if let t = options.scoreThreshold { config.decoding?.minScoreThresh = t }
            let pipeline = try config.makeAnchorPipeline()
            let coords = config.decoding?.numCoords ?? 0
            guard let boxes = outputShapes.firstIndex(where: { $0.last == coords }),
                  let scores = outputShapes.indices.first(where: { $0 != boxes }) else {
                throw TaskError.unsupportedModel("no output of this model has \(coords) values per anchor, as the decoder config says")
            }
            decoder = .anchors(pipeline, boxes: boxes, scores: scores)
            postFilter = DetectionFilterOptions(scoreThreshold: nil, maxResults: maxResults,
                                                categoryAllowlist: options.categoryAllowlist, categoryDenylist: options.categoryDenylist)
        case .yolov5, .yolov8:
            guard outputCount == 1 else {
                throw TaskError.unsupportedModel("a \(family.rawValue) model has one output, this model has \(outputCount) (\(outputShapes)); choose another decoder")
            }
            var yolo = config.yolo ?? YoloDecoderOptions()
            if let t = options.scoreThreshold ?? assets.scoreThreshold { yolo.scoreThreshold = Double(t) }
            yolo.iouThreshold = Double(options.yoloIoUThreshold)
            let shape = outputShapes.first ?? []
            let classes = DetectorPipeline.yoloClassCount(family, shape)
            guard classes >= 1 else { throw TaskError.unsupportedModel("the YOLO output shape \(shape) has no class columns") }
            decoder = .yolo(YoloDecoder(layout: family == .yolov5 ? .yolov5 : .yolov8, numClasses: classes, options: yolo), output: 0)
            postFilter = DetectionFilterOptions(scoreThreshold: nil, maxResults: maxResults,
                                                categoryAllowlist: options.categoryAllowlist, categoryDenylist: options.categoryDenylist)
        }

        self.interpreter = interpreter
        self.family = family
        self.tensorOptions = tensorOptions
        self.labels = labels
        self.decoder = decoder
        self.postFilter = postFilter
        self.categoryFilter = try CategoryFilter(allowlist: options.categoryAllowlist, denylist: options.categoryDenylist, labels: labels)
        self.truncatesPixelBoxes = family == .ssd
    }

    /// The class count of a YOLO output: `[1, N, 5 + C]` (v5) or `[1, 4 + C, N]` (v8).
    static func yoloClassCount(_ family: DecoderFamily, _ shape: [Int]) -> Int {
        guard shape.count == 3 else { return 0 }
        return family == .yolov5 ? shape[2] - 5 : shape[1] - 4
    }

    /// Reads a model from its source.
    static func loadModel(_ source: ModelSource) throws -> TFLiteModel {
        switch source {
        case let .file(path):
            guard FileManager.default.fileExists(atPath: path) else {
                throw TaskError.invalidOption(name: "model", reason: "no file at \(path)")
            }
            return try TFLiteModel(contentsOfFile: path)
        case let .data(data):
            return try TFLiteModel(data: data)
        case let .embedded(name):
            return try TFLiteModel(contentsOfFile: try ModelCatalog.path(for: name))
        }
    }

    /// SSD outputs in the order locations, classes, scores, count: from the metadata's tensor
    /// names when present (EfficientDet-style exports reorder them), else the TFLite order.
    static func ssdOutputOrder(assets: ModelAssets, count: Int) -> [Int] {
        let wanted = [["location", "locations"], ["category", "classes", "class"], ["score", "scores"], ["number of detections", "num_detections", "count"]]
        var order: [Int] = []
        for names in wanted {
            guard let i = (0..<count).first(where: { i in
                guard let name = assets.outputMetadata(i)?.name?.lowercased() else { return false }
                return names.contains(name)
            }) else { return [0, 1, 2, 3] }
            order.append(i)
        }
        return Set(order).count == 4 ? order : [0, 1, 2, 3]
    }

    /// Runs the model on an upright image; results in that image's pixel coordinates, by descending score.
    func detect(_ image: ImageBuffer) throws -> [DetectedObject] {
        let tensor = try ImageToTensor.convert(image, options: tensorOptions)
        try interpreter.copyInput(tensor.values, at: 0)
        try interpreter.invoke()
        let width = Double(image.width), height = Double(image.height)

        switch decoder {
        case let .ssd(ssd, outputs):
            let detections = try ssd.decode(locations: try floats(outputs[0]), classes: try floats(outputs[1]),
                                            scores: try floats(outputs[2]), count: try floats(outputs[3]))
            return detections.map { d in
                // MediaPipe: truncate origin and size separately, clamp to the image.
                let r = PixelRect(truncating: d.box, imageWidth: image.width, imageHeight: image.height)
                return DetectedObject(frame: ImageRect(x: Double(r.x), y: Double(r.y), width: Double(r.width), height: Double(r.height)),
                                      labels: [label(for: d)])
            }
        case let .anchors(pipeline, boxes, scores):
            let detections = try pipeline.run(boxes: try floats(boxes), boxesShape: interpreter.outputs[boxes].shape,
                                              scores: try floats(scores), scoresShape: interpreter.outputs[scores].shape,
                                              padding: tensor.transform.padding)
            let objects = detections.filter { categoryFilter.allows($0.classIndex) }.map { d in
                DetectedObject(frame: ImageRect(x: Double(d.box.xmin) * width, y: Double(d.box.ymin) * height,
                                                width: Double(d.box.width) * width, height: Double(d.box.height) * height),
                               labels: [label(for: d)],
                               keypoints: d.keypoints.map { ImagePoint(x: Double($0.x) * width, y: Double($0.y) * height) })
            }
            return limit(objects)
        case let .yolo(yolo, output):
            let raw = try floats(output)
            let found = try yolo.decode(raw, shape: interpreter.outputs[output].shape,
                                        inputWidth: tensorOptions.width, inputHeight: tensorOptions.height)
            let objects = found.compactMap { y -> DetectedObject? in
                guard categoryFilter.allows(y.classIndex) else { return nil }
                let r = tensor.transform.imageRect(fromTensorPixel: ImageRect(x: y.x1, y: y.y1, width: y.x2 - y.x1, height: y.y2 - y.y1))
                let x1 = min(max(r.minX, 0), width), y1 = min(max(r.minY, 0), height)
                let x2 = min(max(r.maxX, 0), width), y2 = min(max(r.maxY, 0), height)
                let d = Detection(box: BoundingBox(xmin: 0, ymin: 0, width: 0, height: 0), score: Float(y.score), classIndex: y.classIndex,
                                  label: labels.name(at: y.classIndex), displayName: labels.displayName(at: y.classIndex))
                return DetectedObject(frame: ImageRect(x: x1, y: y1, width: x2 - x1, height: y2 - y1), labels: [label(for: d)])
            }
            return limit(objects)
        }
    }

    private func label(for d: Detection) -> Label {
        Label(text: d.label ?? labels.name(at: d.classIndex) ?? "", index: d.classIndex, confidence: d.score,
              displayName: d.displayName ?? labels.displayName(at: d.classIndex))
    }

    private func limit(_ objects: [DetectedObject]) -> [DetectedObject] {
        var kept = objects
        if let t = postFilter.scoreThreshold { kept = kept.filter { $0.score >= t } }
        if let m = postFilter.maxResults, kept.count > m { kept = Array(kept.prefix(m)) }
        return kept
    }

    private func floats(_ position: Int) throws -> [Float] { try interpreter.dequantizedOutput(at: position) }
}
