import DetectorModelFile
import DetectorImage
/// A point in normalized coordinates (x as a fraction of the frame width, y of its height).
public struct Keypoint: Sendable, Equatable, Hashable, Codable {
    public var x: Float
    public var y: Float

    public init(x: Float, y: Float) {
        self.x = x
        self.y = y
    }
}

/// One detected object, before the task layer turns it into a user-facing result.
///
/// * `box` and `keypoints` are **normalized** to the frame they were decoded in
///   (the model input for raw decoders; the original image after letterbox removal
///   or projection) — see `BoundingBox` for the convention.
/// * `classIndex` is the model's class index (row of the label map), `score` its
///   confidence (after sigmoid / calibration where the decoder applies them).
/// * `label` / `displayName` are filled from a `LabelMap` by the decoders that have
///   one (SSD post-process) or later by the task layer; nil when unknown.
///
/// ```swift
/// let face = Detection(box: BoundingBox(xmin: 0.3, ymin: 0.2, width: 0.2, height: 0.2),
///                      score: 0.93, classIndex: 0)
/// ```
public struct Detection: Sendable, Equatable, Codable {
    public var box: BoundingBox
    public var score: Float
    public var classIndex: Int
    public var keypoints: [Keypoint]
    public var label: String?
    public var displayName: String?

    public init(box: BoundingBox, score: Float, classIndex: Int, keypoints: [Keypoint] = [],
                label: String? = nil, displayName: String? = nil) {
        self.box = box
        self.score = score
        self.classIndex = classIndex
        self.keypoints = keypoints
        self.label = label
        self.displayName = displayName
    }
}

/// Why decoding or post-processing detections failed. Every case describes the
/// problem in one sentence naming the option, tensor or value involved.
public enum DetectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An option has a value the algorithm cannot use.
    case invalidOption(name: String, reason: String)
    /// A tensor has the wrong shape or element count.
    case tensorMismatch(tensor: String, expected: String, actual: String)
    /// The configured sizes would need more memory than allowed.
    case tooLarge(what: String, count: Int, limit: Int)
    /// `categoryAllowlist` and `categoryDenylist` were both given (MediaPipe's wording).
    case allowlistAndDenylist
    /// A category filter was given but the model has no labels.
    case categoryFilterWithoutLabels
    /// The score-calibration file or parameters are malformed.
    case invalidScoreCalibration(line: Int?, reason: String)
    /// A class index outside the score-calibration table.
    case calibrationIndexOutOfRange(index: Int, count: Int)
    /// A decoder configuration file could not be read or parsed.
    case invalidConfig(reason: String)

    public var description: String {
        switch self {
        case let .invalidOption(name, reason):
            return "detection option \(name) is invalid: \(reason)"
        case let .tensorMismatch(tensor, expected, actual):
            return "tensor \(tensor) does not fit the decoder: expected \(expected), got \(actual)"
        case let .tooLarge(what, count, limit):
            return "\(what) would be \(count), more than the limit of \(limit)"
        case .allowlistAndDenylist:
            return "`categoryAllowlist` and `categoryDenylist` are mutually exclusive options."
        case .categoryFilterWithoutLabels:
            return "using a category allowlist or denylist requires labels, but the model has none"
        case let .invalidScoreCalibration(line, reason):
            if let line { return "score calibration line \(line) is invalid: \(reason)" }
            return "score calibration is invalid: \(reason)"
        case let .calibrationIndexOutOfRange(index, count):
            return "class index \(index) has no score-calibration parameters (the table has \(count) entries)"
        case let .invalidConfig(reason):
            return "decoder configuration is invalid: \(reason)"
        }
    }
}

/// Limits checked before the detection layer allocates anything sized by options or tensors.
public enum DetectionLimits {
    /// Largest number of anchors / candidate boxes a decoder accepts (10 million).
    public static let maxBoxes = 10_000_000
    /// Largest number of values per box (coordinates, keypoints or classes).
    public static let maxValuesPerBox = 100_000
}
