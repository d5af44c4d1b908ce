import DetectorZlib
/// The kind of model, as far as decoding its outputs is concerned: the detector families
/// (each one output decoder) and image classifiers. The raw values are the names the CLI's
/// `--decoder` and `inspect --family` and the decoder-config JSON (`"family"`) use.
///
/// ```swift
/// var options = ObjectDetectorOptions(model: .file("yolov8n.tflite"))
/// options.decoder = .yolov8          // when the output shapes do not decide it
/// ```
public enum ModelFamily: String, Sendable, CaseIterable, Equatable, Codable {
    /// SSD with a `TFLite_Detection_PostProcess` op: 4 outputs (boxes, classes, scores, count).
    case ssd
    /// MediaPipe style raw SSD (BlazeFace, palm, pose detectors): box/keypoint regressors
    /// `[1, N, K]` and scores `[1, N, C]`, decoded with anchors.
    case anchors
    /// One output `[1, N, 5 + C]`: cx, cy, w, h, objectness, class scores per candidate.
    case yolov5
    /// One output `[1, 4 + C, N]`: cx, cy, w, h, class scores per candidate (transposed, no objectness).
    case yolov8
    /// YOLOX (anchor-free, grid decoding left out of the graph): one output `[1, N, 5 + C]` with
    /// one row per grid cell of strides 8, 16 and 32 (`N = (H/8)(W/8) + (H/16)(W/16) + (H/32)(W/32)`):
    /// tx, ty, tw, th, objectness, class probabilities. Box centre `(grid + t) · stride`, size
    /// `exp(t) · stride`; score objectness × class probability; class-aware NMS. Input: BGR,
    /// 0…255, letterboxed to the top-left corner with grey 114 (YOLOX's `preproc`).
    case yolox
    /// End-to-end (NMS-free) detectors whose output already is the final detections
    /// (YOLOv10, YOLO26 and RT-DETR-style exports): one output `[1, N, 6]` with rows
    /// x1, y1, x2, y2, score, class (input pixels, or normalized to 0…1 when no corner of any
    /// row exceeds 1.5), or `[1, N, 4 + C]` with corners and C class scores. No NMS is applied.
    case endToEnd = "end2end"
    /// One output of class scores `[1, C]` (or `[1, 1, 1, C]`).
    case classifier
    case unknown

    /// The families a detector decodes: ssd, anchors, yolov5, yolov8, yolox, end2end.
    public static let detectorFamilies: [ModelFamily] = [.ssd, .anchors, .yolov5, .yolov8, .yolox, .endToEnd]

    /// The detector families as the CLI and the messages list them ("ssd, anchors, … or end2end").
    public static var detectorFamilyList: String {
        let names = detectorFamilies.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    }

    /// Number of grid cells of strides 8, 16 and 32 over a `width × height` input — the rows of
    /// a YOLOX output (a YOLOv5 output has three per cell); nil when a side is not a multiple of 32.
    public static func gridCellCount(inputWidth: Int, inputHeight: Int) -> Int? {
        guard inputWidth > 0, inputHeight > 0, inputWidth % 32 == 0, inputHeight % 32 == 0,
              inputWidth <= 1 << 16, inputHeight <= 1 << 16 else { return nil }
        return [8, 16, 32].reduce(0) { $0 + (inputWidth / $1) * (inputHeight / $1) }
    }

    /// Whether this family has an output decoder (every case but `classifier` and `unknown`).
    public var isDetector: Bool { Self.detectorFamilies.contains(self) }

    /// The ultralytics-like families (YOLOv5, YOLOv8, YOLOX, end-to-end): boxes in input pixels,
    /// letterbox grey 114, pixel values divided by the config's range.
    public var isYoloLike: Bool { self == .yolov5 || self == .yolov8 || self == .yolox || self == .endToEnd }
}

/// A family decision and the facts it rests on.
public struct ModelFamilyInfo: Sendable, Equatable {
    public var family: ModelFamily
    /// One sentence saying why.
    public var reason: String
    /// Number of classes the outputs imply, when known.
    public var classCount: Int?
    /// Number of candidate boxes/anchors, when known.
    public var candidateCount: Int?
    /// Tensor index of the box (regressor) output, when the family has one.
    public var boxesTensor: Int?
    /// Tensor index of the score output, when the family has one.
    public var scoresTensor: Int?
    /// Whether the decision came from an override rather than the heuristics.
    public var overridden: Bool

    public init(family: ModelFamily, reason: String, classCount: Int? = nil, candidateCount: Int? = nil,
                boxesTensor: Int? = nil, scoresTensor: Int? = nil, overridden: Bool = false) {
        self.family = family
        self.reason = reason
        self.classCount = classCount
        self.candidateCount = candidateCount
        self.boxesTensor = boxesTensor
        self.scoresTensor = scoresTensor
        self.overridden = overridden
    }
}

/// Decides a model's family from subgraph 0. The heuristics, in order:
/// 1. an operator `TFLite_Detection_PostProcess` and 4 outputs → `ssd`;
/// 2. two outputs `[1, N, K]` and `[1, N, C]` with the same N → `anchors`; the regressor is
///    the one with K ≥ 4 (if both, the smaller last dimension), e.g. BlazeFace `[1,896,16]` + `[1,896,1]`;
/// 3. one output `[1, A, B]` with A > B and B ≥ 6, for an input of H × W (G grid cells of
///    strides 8/16/32, `gridCellCount`): A = G → `yolox` (one row per cell, no box decoding in the
///    graph); A = 3G → `yolov5` (three anchors per cell, decoded in the graph); B = 6 and A
///    neither, or any `[1, A, 6]` with A ≤ 6 → `end2end` (final detections x1, y1, x2, y2, score,
///    class); any other A → `yolov5`
///    (B = 5 + C), unless the metadata's name or description says YOLOX. B > A and A ≥ 5 →
///    `yolov8` (A = 4 + C);
/// 4. one output `[1, C]`, or `[1, 1, 1, C]` whose signature also has fixed 1×1 spatial size → `classifier`;
/// 5. otherwise `unknown`.
/// Pass `override` to force a family (e.g. from a command-line option); the tensors are then still
/// filled in where the shapes allow.
public enum ModelFamilyDetector {
    public static func detect(_ model: TFLiteModel, override: ModelFamily? = nil) -> ModelFamilyInfo {
        var info = heuristics(model)
        if let override, override != info.family {
            info = ModelFamilyInfo(family: override, reason: "family set by the caller (heuristics said \(info.family.rawValue): \(info.reason))",
                                   classCount: nil, candidateCount: nil, boxesTensor: nil, scoresTensor: nil, overridden: true)
        }
        return info
    }

    static func heuristics(_ model: TFLiteModel) -> ModelFamilyInfo {
        let g = model.mainSubgraph
        let outputs = g.outputs.filter { $0 >= 0 && $0 < g.tensors.count }.map { g.tensors[$0] }
        if g.operators.contains(where: { $0.code.isCustom && $0.code.customCode == DetectionPostProcessOptions.customCode }),
           outputs.count == 4 {
            var classes: Int?
            if let op = g.operators.first(where: { $0.code.customCode == DetectionPostProcessOptions.customCode }),
               let o = try? DetectionPostProcessOptions(model: model, operator: op) {
                classes = o.numClasses
            }
            return ModelFamilyInfo(family: .ssd, reason: "has a TFLite_Detection_PostProcess operator and 4 outputs",
                                   classCount: classes, boxesTensor: outputs[0].index, scoresTensor: outputs[2].index)
        }
        if outputs.count == 2 {
            let a = outputs[0], b = outputs[1]
            if a.shape.count == 3, b.shape.count == 3, a.shape[0] == 1, b.shape[0] == 1, a.shape[1] == b.shape[1], a.shape[1] > 1 {
                let ka = a.shape[2], kb = b.shape[2]
                var boxes = a, scores = b
                if ka < 4 { boxes = b; scores = a } else if kb >= 4 && kb < ka { boxes = b; scores = a }
                if boxes.shape[2] >= 4 {
                    return ModelFamilyInfo(family: .anchors,
                                           reason: "two outputs [1, \(a.shape[1]), K]: regressor \(boxes.shape) and scores \(scores.shape)",
                                           classCount: scores.shape[2], candidateCount: a.shape[1],
                                           boxesTensor: boxes.index, scoresTensor: scores.index)
                }
            }
        }
        if outputs.count == 1 {
            let s = outputs[0].shape
            if s.count == 3, s[0] == 1 {
                if (s[1] > s[2] && s[2] >= 6) || (s[2] == 6 && s[1] >= 1) {
                    return rowsFamily(model, shape: s, tensor: outputs[0].index)
                }
                if s[2] > s[1], s[1] >= 5 {
                    return ModelFamilyInfo(family: .yolov8, reason: "one output [1, 4+C, N] = \(s)", classCount: s[1] - 4,
                                           candidateCount: s[2], boxesTensor: outputs[0].index, scoresTensor: outputs[0].index)
                }
            }
            let sig = outputs[0].shapeSignature
            let flat4D = s.count == 4 && s[0] == 1 && s[1] == 1 && s[2] == 1 && s[3] > 1 && sig.count == 4 && sig[1] == 1 && sig[2] == 1
            if (s.count == 2 && s[0] == 1 && s[1] > 1) || flat4D {
                return ModelFamilyInfo(family: .classifier, reason: "one output of class scores \(s)", classCount: s[s.count - 1],
                                       scoresTensor: outputs[0].index)
            }
        }
        let shapes = outputs.map { "\($0.shape)" }.joined(separator: ", ")
        return ModelFamilyInfo(family: .unknown, reason: "outputs \(shapes) match no known detector or classifier layout")
    }

    /// One output `[1, A, B]`, A > B ≥ 6: YOLOX, YOLOv5 or end-to-end, told apart by how A
    /// relates to the input's grid cells, then by the metadata's words.
    static func rowsFamily(_ model: TFLiteModel, shape s: [Int], tensor: Int) -> ModelFamilyInfo {
        let graph = model.mainSubgraph
        let input = graph.inputs.first.flatMap { $0 >= 0 && $0 < graph.tensors.count ? graph.tensors[$0].shape : nil } ?? []
        var info = rowsFamily(inputShape: input, outputShape: s, metadataWords: metadataWords(model))
        info.boxesTensor = tensor
        info.scoresTensor = tensor
        return info
    }

    /// The decision of `rowsFamily` from the shapes alone: the input `[1, H, W, 3]`, the output
    /// `[1, A, B]` (A > B ≥ 6, or B = 6) and the metadata's name and description, lowercased.
    public static func rowsFamily(inputShape input: [Int], outputShape s: [Int], metadataWords words: String = "") -> ModelFamilyInfo {
        let cells = input.count == 4 ? ModelFamily.gridCellCount(inputWidth: input[2], inputHeight: input[1]) : nil
        func info(_ family: ModelFamily, _ reason: String, classes: Int?) -> ModelFamilyInfo {
            ModelFamilyInfo(family: family, reason: reason, classCount: classes, candidateCount: s.count == 3 ? s[1] : nil)
        }
        guard s.count == 3, s[0] == 1, s[1] >= 1, (s[1] > s[2] && s[2] >= 6) || s[2] == 6 else {
            return info(.unknown, "the output \(s) is no [1, N, K] with N > K ≥ 6 or K = 6", classes: nil)
        }
        if let cells, s[1] == cells, !words.contains("yolov5") {
            return info(.yolox, "one output [1, N, 5+C] = \(s) with one row per grid cell of strides 8/16/32 over the \(input[2])x\(input[1]) input (N = \(cells); YOLOv5 has three per cell)", classes: s[2] - 5)
        }
        if let cells, s[1] == 3 * cells {
            return info(.yolov5, "one output [1, N, 5+C] = \(s) with three rows per grid cell of strides 8/16/32 (N = 3 × \(cells))", classes: s[2] - 5)
        }
        if words.contains("yolox") {
            return info(.yolox, "one output [1, N, 5+C] = \(s) and the metadata names YOLOX", classes: s[2] - 5)
        }
        if s[2] == 6 {
            return info(.endToEnd, "one output [1, N, 6] = \(s) whose N fits no grid of the input: final detections x1, y1, x2, y2, score, class", classes: nil)
        }
        return info(.yolov5, "one output [1, N, 5+C] = \(s) (N fits no grid of the input: taken as YOLOv5; set the decoder to yolox or end2end if it is one of those)", classes: s[2] - 5)
    }

    /// The metadata's name and description, lowercased ("" without metadata).
    static func metadataWords(_ model: TFLiteModel) -> String {
        guard let metadata = (try? ModelMetadata(model: model)) ?? nil else { return "" }
        return [metadata.name, metadata.description].compactMap { $0 }.joined(separator: " ").lowercased()
    }
}
