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
    /// One output of class scores `[1, C]` (or `[1, 1, 1, C]`).
    case classifier
    case unknown

    /// The families a detector decodes: ssd, anchors, yolov5, yolov8.
    public static let detectorFamilies: [ModelFamily] = [.ssd, .anchors, .yolov5, .yolov8]

    /// Whether this family has an output decoder (every case but `classifier` and `unknown`).
    public var isDetector: Bool { Self.detectorFamilies.contains(self) }
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
/// 3. one output `[1, A, B]`: A > B and B ≥ 6 → `yolov5` (B = 5 + C); B > A and A ≥ 5 → `yolov8` (A = 4 + C);
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
                if s[1] > s[2], s[2] >= 6 {
                    return ModelFamilyInfo(family: .yolov5, reason: "one output [1, N, 5+C] = \(s)", classCount: s[2] - 5,
                                           candidateCount: s[1], boxesTensor: outputs[0].index, scoresTensor: outputs[0].index)
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
}
