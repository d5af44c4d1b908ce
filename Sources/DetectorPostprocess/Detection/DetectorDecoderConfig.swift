import DetectorModelFile
import DetectorImage
import Foundation

/// The float range pixel values 0…255 are mapped to for float inputs
/// (`v · (max − min) / 255 + min`); integer inputs take raw pixels.
public struct InputRange: Sendable, Equatable, Codable {
    public var min: Float
    public var max: Float

    public init(min: Float, max: Float) {
        self.min = min
        self.max = max
    }

    /// [−1, 1] (BlazeFace).
    public static let minusOneToOne = InputRange(min: -1, max: 1)
    /// [0, 1] (palm detector, YOLO).
    public static let zeroToOne = InputRange(min: 0, max: 1)
}

/// NMS settings (MediaPipe's `NonMaxSuppressionCalculatorOptions` plus class awareness).
public struct NmsOptions: Sendable, Equatable, Codable {
    public enum Algorithm: String, Sendable, Codable {
        /// Greedy suppression (MediaPipe `DEFAULT`).
        case hard
        /// Score-weighted averaging of overlapping candidates (MediaPipe `WEIGHTED`).
        case weighted
    }

    public var algorithm: Algorithm
    /// Suppress when the overlap is greater than this (`min_suppression_threshold`).
    public var iouThreshold: Float
    public var overlapType: OverlapType
    /// Per-class suppression (hard NMS only).
    public var classAware: Bool
    /// Keep at most this many (nil or −1: all; ignored by weighted NMS, as in MediaPipe).
    public var maxDetections: Int?
    /// Stop at the first candidate below this (nil or ≤ 0: none).
    public var minScoreThreshold: Float?

    public init(algorithm: Algorithm, iouThreshold: Float, overlapType: OverlapType = .intersectionOverUnion,
                classAware: Bool = false, maxDetections: Int? = nil, minScoreThreshold: Float? = nil) {
        self.algorithm = algorithm
        self.iouThreshold = iouThreshold
        self.overlapType = overlapType
        self.classAware = classAware
        self.maxDetections = maxDetections
        self.minScoreThreshold = minScoreThreshold
    }

    enum CodingKeys: String, CodingKey {
        case algorithm, iouThreshold, overlapType, classAware, maxDetections, minScoreThreshold
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(algorithm: try c.decode(Algorithm.self, forKey: .algorithm),
                  iouThreshold: try c.decode(Float.self, forKey: .iouThreshold),
                  overlapType: try c.decodeIfPresent(OverlapType.self, forKey: .overlapType) ?? .intersectionOverUnion,
                  classAware: try c.decodeIfPresent(Bool.self, forKey: .classAware) ?? false,
                  maxDetections: try c.decodeIfPresent(Int.self, forKey: .maxDetections),
                  minScoreThreshold: try c.decodeIfPresent(Float.self, forKey: .minScoreThreshold))
    }

    /// Runs the configured NMS.
    public func apply(_ detections: [Detection]) -> [Detection] {
        switch algorithm {
        case .hard:
            return NonMaxSuppression.hard(detections, iouThreshold: iouThreshold, overlap: overlapType,
                                          classAware: classAware, maxDetections: maxDetections,
                                          minScoreThreshold: minScoreThreshold)
        case .weighted:
            return NonMaxSuppression.weighted(detections, iouThreshold: iouThreshold, overlap: overlapType,
                                              minScoreThreshold: minScoreThreshold)
        }
    }
}

/// Everything needed to decode one detector model's outputs: the family, the input
/// geometry and normalization, and the family's settings (anchors + raw decoding + NMS
/// for `.anchors`, YOLO options for `.yolov5`/`.yolov8`). Loadable from JSON
/// (`objdetect --decoder-config FILE`); presets ship for the embedded MediaPipe models.
///
/// JSON example (keys are the Swift property names; omitted optional keys take
/// MediaPipe's proto defaults):
/// ```json
/// {"family": "anchors", "inputWidth": 128, "inputHeight": 128, "resize": "letterbox",
///  "inputRange": {"min": -1, "max": 1},
///  "anchors": {"numLayers": 4, "minScale": 0.1484375, "maxScale": 0.75,
///              "inputSizeWidth": 128, "inputSizeHeight": 128, "strides": [8, 16, 16, 16],
///              "aspectRatios": [1.0], "fixedAnchorSize": true},
///  "decoding": {"numBoxes": 896, "numCoords": 16, "keypointCoordOffset": 4, "numKeypoints": 6,
///               "sigmoidScore": true, "scoreClippingThresh": 100, "reverseOutputOrder": true,
///               "xScale": 128, "yScale": 128, "wScale": 128, "hScale": 128, "minScoreThresh": 0.5},
///  "nms": {"algorithm": "weighted", "iouThreshold": 0.3},
///  "labels": ["face"]}
/// ```
///
/// ```swift
/// let config = try DetectorDecoderConfig.load(from: URL(fileURLWithPath: "face.json"))
/// let pipeline = try config.makeAnchorPostProcessor()
/// ```
public struct DetectorDecoderConfig: Sendable, Equatable, Codable {
    public var family: ModelFamily
    public var inputWidth: Int
    public var inputHeight: Int
    public var resize: ResizeMode
    /// Grey level of the letterbox padding, 0…255 (nil: 0, MediaPipe's `BORDER_ZERO`;
    /// YOLO users expect 114).
    public var letterboxFill: Int?
    /// Float-input normalization (nil: the model's metadata or raw pixels).
    public var inputRange: InputRange?
    /// Raw-anchor SSD: anchor generation.
    public var anchors: SsdAnchorOptions?
    /// Raw-anchor SSD: tensor decoding.
    public var decoding: RawAnchorDecoderOptions?
    /// NMS after decoding (raw-anchor SSD).
    public var nms: NmsOptions?
    /// Undo the letterbox on the decoded boxes (default: when `resize` is a letterbox).
    public var removeLetterbox: Bool?
    /// YOLO options (`.yolov5`, `.yolov8`, `.yolox`). Their `scoreThreshold` (0.25 when the key
    /// is absent from JSON) applies when neither `ObjectDetectorOptions.scoreThreshold` nor the
    /// model's metadata sets a threshold; without a config YOLO models get no threshold.
    public var yolo: YoloDecoderOptions?
    /// The channel order of the input tensor (nil: the family's, BGR for `.yolox`, else RGB).
    public var channelOrder: ChannelOrder?
    /// Class names when the model carries none (e.g. `["face"]`).
    public var labels: [String]?
    /// Names of the keypoints, in output order.
    public var keypointNames: [String]?

    public init(family: ModelFamily, inputWidth: Int, inputHeight: Int, resize: ResizeMode,
                letterboxFill: Int? = nil, inputRange: InputRange? = nil, anchors: SsdAnchorOptions? = nil, decoding: RawAnchorDecoderOptions? = nil,
                nms: NmsOptions? = nil, removeLetterbox: Bool? = nil, yolo: YoloDecoderOptions? = nil,
                labels: [String]? = nil, keypointNames: [String]? = nil, channelOrder: ChannelOrder? = nil) {
        self.channelOrder = channelOrder
        self.family = family
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
        self.resize = resize
        self.letterboxFill = letterboxFill
        self.inputRange = inputRange
        self.anchors = anchors
        self.decoding = decoding
        self.nms = nms
        self.removeLetterbox = removeLetterbox
        self.yolo = yolo
        self.labels = labels
        self.keypointNames = keypointNames
    }

    /// Whether decoded boxes are mapped back through the letterbox.
    public var appliesLetterboxRemoval: Bool { removeLetterbox ?? resize.isLetterbox }

    /// Largest decoder-config file accepted (1 MiB).
    public static let maxFileBytes = 1 << 20

    /// Parses a JSON config and validates it.
    /// - Throws: `DetectionError.invalidConfig` naming the offending key, or the validation error.
    public init(jsonData: Data) throws {
        guard jsonData.count <= Self.maxFileBytes else {
            throw DetectionError.invalidConfig(reason: "the file has \(jsonData.count) bytes, more than the limit of \(Self.maxFileBytes)")
        }
        do {
            self = try JSONDecoder().decode(DetectorDecoderConfig.self, from: jsonData)
        } catch let error as DecodingError {
            throw DetectionError.invalidConfig(reason: Self.describe(error))
        } catch {
            throw DetectionError.invalidConfig(reason: "the JSON could not be read (\(error))")
        }
        try validate()
    }

    /// Reads and parses a JSON config file.
    public static func load(from url: URL) throws -> DetectorDecoderConfig {
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            if let size = attributes[.size] as? Int, size > maxFileBytes {
                throw DetectionError.invalidConfig(reason: "\(url.path) has \(size) bytes, more than the limit of \(maxFileBytes)")
            }
            data = try Data(contentsOf: url)
        } catch let error as DetectionError {
            throw error
        } catch {
            throw DetectionError.invalidConfig(reason: "\(url.path) could not be read")
        }
        return try DetectorDecoderConfig(jsonData: data)
    }

    /// The config as pretty-printed JSON (sorted keys).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    package static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let p = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return p.isEmpty ? "the top level" : "key \"\(p)\""
        }
        switch error {
        case let .keyNotFound(key, context):
            let at = context.codingPath.isEmpty ? "" : " in \(path(context))"
            return "the required key \"\(key.stringValue)\" is missing\(at)"
        case let .typeMismatch(_, context), let .valueNotFound(_, context):
            return "\(path(context)) has the wrong type (\(context.debugDescription))"
        case let .dataCorrupted(context):
            return "\(path(context)) is not valid (\(context.debugDescription))"
        @unknown default:
            return "the JSON does not match the decoder config format"
        }
    }

    /// Checks that the parts needed by `family` are present and consistent.
    public func validate() throws {
        func bad(_ reason: String) -> DetectionError { .invalidConfig(reason: reason) }
        guard inputWidth > 0, inputHeight > 0, inputWidth <= 1 << 16, inputHeight <= 1 << 16 else {
            throw bad("inputWidth and inputHeight must be in 1…65536, got \(inputWidth)x\(inputHeight)")
        }
        if let f = letterboxFill, !(0...255).contains(f) {
            throw bad("letterboxFill must be in 0…255, got \(f)")
        }
        if let r = inputRange, !(r.min.isFinite && r.max.isFinite && r.min < r.max) {
            throw bad("inputRange must have finite min < max, got \(r.min)…\(r.max)")
        }
        switch family {
        case .anchors:
            guard let anchors else { throw bad("family \"anchors\" needs an \"anchors\" section") }
            guard let decoding else { throw bad("family \"anchors\" needs a \"decoding\" section") }
            guard nms != nil else { throw bad("family \"anchors\" needs an \"nms\" section") }
            try decoding.validate()
            let count = try SsdAnchorGenerator.generate(anchors).count
            guard count == decoding.numBoxes else {
                throw bad("the anchors give \(count) boxes but decoding.numBoxes is \(decoding.numBoxes)")
            }
        case .yolov5, .yolov8, .yolox:
            if let y = yolo, y.maxDetections <= 0 || y.iouThreshold.isNaN || y.scoreThreshold.isNaN {
                throw bad("yolo.maxDetections must be positive and the thresholds numbers")
            }
            if family == .yolox, ModelFamily.gridCellCount(inputWidth: inputWidth, inputHeight: inputHeight) == nil {
                throw bad("a yolox input must be a multiple of 32 on each side (strides 8, 16, 32), got \(inputWidth)x\(inputHeight)")
            }
        case .ssd, .endToEnd:
            break
        case .classifier, .unknown:
            throw bad("family must be \(ModelFamily.detectorFamilyList) (a detector's output decoder), got \"\(family.rawValue)\"")
        }
        if let nms, nms.iouThreshold.isNaN { throw bad("nms.iouThreshold must be a number") }
    }

    /// Checks the config against a model's output tensor shapes (in output order) and
    /// input shape `[1, H, W, C]`.
    /// - Throws: `DetectionError.tensorMismatch` naming the tensor that does not fit.
    public func check(inputShape: [Int], outputShapes: [[Int]]) throws {
        if inputShape.count == 4, inputShape[1] != inputHeight || inputShape[2] != inputWidth {
            throw DetectionError.tensorMismatch(tensor: "input 0", expected: "height \(inputHeight) and width \(inputWidth) (decoder config)",
                                                actual: shapeText(inputShape))
        }
        switch family {
        case .anchors:
            guard let d = decoding else { return }
            guard outputShapes.count >= 2 else {
                throw DetectionError.tensorMismatch(tensor: "outputs", expected: "2 tensors (boxes, scores)", actual: "\(outputShapes.count)")
            }
            let ok0 = elementCount(outputShapes[0]) == checkedProduct(d.numBoxes, d.numCoords) && outputShapes[0].last == d.numCoords
            let ok1 = elementCount(outputShapes[1]) == checkedProduct(d.numBoxes, d.numClasses) && outputShapes[1].last == d.numClasses
            if !ok0 {
                throw DetectionError.tensorMismatch(tensor: "output 0 (boxes)", expected: "[1, \(d.numBoxes), \(d.numCoords)]", actual: shapeText(outputShapes[0]))
            }
            if !ok1 {
                throw DetectionError.tensorMismatch(tensor: "output 1 (scores)", expected: "[1, \(d.numBoxes), \(d.numClasses)]", actual: shapeText(outputShapes[1]))
            }
        case .yolov5, .yolov8:
            guard let s = outputShapes.first, s.count == 3, s[0] == 1 else {
                throw DetectionError.tensorMismatch(tensor: "output 0", expected: "a [1, a, b] YOLO output", actual: outputShapes.first.map(shapeText) ?? "none")
            }
            if family == .yolov5, s[2] < 6 {
                throw DetectionError.tensorMismatch(tensor: "output 0", expected: "[1, N, 5 + C] with C ≥ 1", actual: shapeText(s))
            }
            if family == .yolov8, s[1] < 5 {
                throw DetectionError.tensorMismatch(tensor: "output 0", expected: "[1, 4 + C, N] with C ≥ 1", actual: shapeText(s))
            }
        case .yolox:
            let cells = ModelFamily.gridCellCount(inputWidth: inputWidth, inputHeight: inputHeight) ?? -1
            guard let s = outputShapes.first, s.count == 3, s[0] == 1, s[1] == cells, s[2] >= 6 else {
                throw DetectionError.tensorMismatch(tensor: "output 0", expected: "[1, \(cells), 5 + C] (a YOLOX row per grid cell of strides 8, 16, 32)",
                                                    actual: outputShapes.first.map(shapeText) ?? "none")
            }
        case .endToEnd:
            guard let s = outputShapes.first, s.count == 3, s[0] == 1, s[2] >= 5 else {
                throw DetectionError.tensorMismatch(tensor: "output 0", expected: "[1, N, 6] (x1, y1, x2, y2, score, class) or [1, N, 4 + C]",
                                                    actual: outputShapes.first.map(shapeText) ?? "none")
            }
        case .ssd:
            guard outputShapes.count == 4 else {
                throw DetectionError.tensorMismatch(tensor: "outputs", expected: "4 tensors (locations, classes, scores, count)", actual: "\(outputShapes.count)")
            }
        case .classifier, .unknown:
            return  // `validate` rejects these families
        }
    }

    /// The name this method had before 0.7.
    @available(*, deprecated, renamed: "makeAnchorPostProcessor()")
    public func makeAnchorPipeline() throws -> AnchorPostProcessor { try makeAnchorPostProcessor() }

    /// A ready decoder for `.anchors` configs (anchors generated once).
    public func makeAnchorPostProcessor() throws -> AnchorPostProcessor {
        try validate()
        guard family == .anchors, let anchors, let decoding, let nms else {
            throw DetectionError.invalidConfig(reason: "family \(family.rawValue) is not a raw-anchor config")
        }
        let decoder = try RawAnchorDecoder(options: decoding, anchors: SsdAnchorGenerator.generate(anchors))
        return AnchorPostProcessor(decoder: decoder, nms: nms, removeLetterbox: appliesLetterboxRemoval,
                                       labels: LabelMap(names: labels ?? []))
    }
}

/// The name this type had before 0.7 (it is a post-processor, not a pipeline with inference).
@available(*, deprecated, renamed: "AnchorPostProcessor")
public typealias AnchorDetectionPipeline = AnchorPostProcessor

/// Raw-anchor decoding, NMS and letterbox removal in MediaPipe's graph order.
public struct AnchorPostProcessor: Sendable {
    public let decoder: RawAnchorDecoder
    public let nms: NmsOptions
    public let removeLetterbox: Bool
    public let labels: LabelMap

    /// Decodes one inference's outputs (boxes tensor, scores tensor).
    /// - Parameter padding: the letterbox padding used for the input (ignored when the
    ///   config does not remove the letterbox).
    /// - Returns: detections normalized to the image inside the letterbox, by descending
    ///   score, labels filled from the config's labels.
    public func run(boxes: [Float], boxesShape: [Int], scores: [Float], scoresShape: [Int],
                    padding: LetterboxPadding = .none) throws -> [Detection] {
        let candidates = try decoder.decode(boxes: boxes, boxesShape: boxesShape, scores: scores, scoresShape: scoresShape)
        var kept = nms.apply(candidates)
        if removeLetterbox {
            kept = try LetterboxRemoval.apply(kept, padding: padding)
        }
        return kept.map { d in
            var d = d
            d.label = labels.name(at: d.classIndex)
            return d
        }
    }
}

extension DetectorDecoderConfig {
    static let faceKeypointNames = ["right_eye", "left_eye", "nose_tip", "mouth_center",
                                    "right_ear_tragion", "left_ear_tragion"]

    static func blazeFace(input: Int, numLayers: Int, strides: [Int], interpolated: Float,
                          numBoxes: Int, minScore: Float) -> DetectorDecoderConfig {
        let size = Float(input)
        return DetectorDecoderConfig(
            family: .anchors, inputWidth: input, inputHeight: input, resize: .letterbox,
            inputRange: .minusOneToOne,
            anchors: SsdAnchorOptions(inputSizeWidth: input, inputSizeHeight: input, minScale: 0.1484375, maxScale: 0.75,
                                      anchorOffsetX: 0.5, anchorOffsetY: 0.5, numLayers: numLayers, strides: strides,
                                      aspectRatios: [1.0], interpolatedScaleAspectRatio: interpolated, fixedAnchorSize: true),
            decoding: RawAnchorDecoderOptions(numClasses: 1, numBoxes: numBoxes, numCoords: 16, boxCoordOffset: 0,
                                              keypointCoordOffset: 4, numKeypoints: 6, numValuesPerKeypoint: 2,
                                              sigmoidScore: true, scoreClippingThresh: 100, reverseOutputOrder: true,
                                              xScale: size, yScale: size, wScale: size, hScale: size, minScoreThresh: minScore),
            nms: NmsOptions(algorithm: .weighted, iouThreshold: 0.3, overlapType: .intersectionOverUnion),
            labels: ["face"], keypointNames: faceKeypointNames)
    }

    /// MediaPipe's short-range face detector graph (`face_detection_short_range.pbtxt` +
    /// `face_detection.pbtxt`): 128×128 letterboxed, input [−1, 1], 4 layers, strides
    /// 8/16/16/16 (896 anchors), 16 coords with 6 keypoints, sigmoid clipped at 100,
    /// reversed (xywh) order, scales 128, min score 0.5, weighted NMS IoU 0.3.
    public static let faceShortRange = blazeFace(input: 128, numLayers: 4, strides: [8, 16, 16, 16],
                                                 interpolated: 1.0, numBoxes: 896, minScore: 0.5)

    /// MediaPipe's full-range face detector graph, for the dense
    /// `face_detection_full_range.tflite`: 192×192 letterboxed, 1 layer, stride 4,
    /// no interpolated anchor (2304 anchors), scales 192, min score 0.6 (MediaPipe's
    /// built-in value; the detection goldens use 0.5), otherwise as short range.
    public static let faceFullRange = blazeFace(input: 192, numLayers: 1, strides: [4],
                                                interpolated: 0.0, numBoxes: 2304, minScore: 0.6)

    /// MediaPipe's palm detector graph (`palm_detection_cpu.pbtxt`, lite model): 192×192
    /// letterboxed, input [0, 1], 4 layers, strides 8/16/16/16 (2016 anchors), 18 coords
    /// with 7 keypoints, sigmoid clipped at 100, reversed order, scales 192, min score 0.5,
    /// weighted NMS IoU 0.3.
    public static let palm = DetectorDecoderConfig(
        family: .anchors, inputWidth: 192, inputHeight: 192, resize: .letterbox, inputRange: .zeroToOne,
        anchors: SsdAnchorOptions(inputSizeWidth: 192, inputSizeHeight: 192, minScale: 0.1484375, maxScale: 0.75,
                                  anchorOffsetX: 0.5, anchorOffsetY: 0.5, numLayers: 4, strides: [8, 16, 16, 16],
                                  aspectRatios: [1.0], fixedAnchorSize: true),
        decoding: RawAnchorDecoderOptions(numClasses: 1, numBoxes: 2016, numCoords: 18, boxCoordOffset: 0,
                                          keypointCoordOffset: 4, numKeypoints: 7, numValuesPerKeypoint: 2,
                                          sigmoidScore: true, scoreClippingThresh: 100, reverseOutputOrder: true,
                                          xScale: 192, yScale: 192, wScale: 192, hScale: 192, minScoreThresh: 0.5),
        nms: NmsOptions(algorithm: .weighted, iouThreshold: 0.3, overlapType: .intersectionOverUnion),
        labels: ["palm"])

    /// The presets by embedded model name: `face` (full range, dense), `face-short`, `palm`.
    public static func preset(named name: String) -> DetectorDecoderConfig? {
        switch name {
        case "face": return faceFullRange
        case "face-short": return faceShortRange
        case "palm": return palm
        default: return nil
        }
    }

    /// YOLOX settings (YOLOX's `preproc` and demo): letterbox to the top-left corner with fill 114,
    /// BGR, values 0…255 (no normalization), Pillow's bilinear resize (the conformance goldens'), class-aware NMS IoU 0.45, max 100.
    public static func yolox(inputWidth: Int = 640, inputHeight: Int = 640) -> DetectorDecoderConfig {
        DetectorDecoderConfig(family: .yolox, inputWidth: inputWidth, inputHeight: inputHeight, resize: .letterboxTopLeft,
                              letterboxFill: 114, inputRange: InputRange(min: 0, max: 255),
                              yolo: YoloDecoderOptions(), channelOrder: .bgr)
    }

    /// End-to-end settings: letterbox with fill 114 (ultralytics' exports), input [0, 1], no NMS.
    public static func endToEnd(inputWidth: Int = 640, inputHeight: Int = 640) -> DetectorDecoderConfig {
        DetectorDecoderConfig(family: .endToEnd, inputWidth: inputWidth, inputHeight: inputHeight, resize: .letterbox,
                              letterboxFill: 114, inputRange: .zeroToOne)
    }

    /// YOLO settings: letterbox with fill 114 by default (stretch reproduces the goldens), input [0, 1], score ≥ 0.25, class-aware NMS IoU 0.45, max 100).
    public static func yolo(_ family: ModelFamily, inputWidth: Int = 640, inputHeight: Int = 640,
                            resize: ResizeMode = .letterbox) -> DetectorDecoderConfig {
        DetectorDecoderConfig(family: family, inputWidth: inputWidth, inputHeight: inputHeight, resize: resize,
                              letterboxFill: resize == .letterbox ? 114 : nil, inputRange: .zeroToOne,
                              yolo: YoloDecoderOptions())
    }
}
