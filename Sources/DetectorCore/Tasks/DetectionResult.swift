import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
/// A category given to an object or an image.
public struct Category: Sendable, Equatable {
    /// The label text from the model's label map (empty when the model has none).
    public var text: String
    /// The class index in the model's output.
    public var index: Int
    /// The score, 0…1 for probabilities (dequantized logits for models that output logits).
    public var confidence: Float
    /// The display name in the requested locale, when the model has a display-name file.
    public var displayName: String?
    public init(text: String, index: Int, confidence: Float, displayName: String? = nil) {
        self.text = text; self.index = index; self.confidence = confidence; self.displayName = displayName
    }
}

/// One detected object, in upright-image pixel coordinates: the detector's box, category and
/// score, and — when classification is enabled — the classifier's labels for the box, kept
/// apart so neither overwrites the other.
///
/// ```swift
/// for object in try detector.detect(image: image) {
///     print(object.frame, object.category.text, object.score, object.trackingID as Any)
///     if let top = object.labels.first { print("  classified as", top.text, top.confidence) }
/// }
/// ```
public struct DetectedObject: Sendable, Equatable {
    /// The box in upright-image pixels, as the detector gave it.
    public var frame: ImageRect
    /// The tracking ID (stream modes only; nil in image mode).
    public var trackingID: Int?
    /// The tracker's filtered estimate of the object's box (stream modes, for objects with a
    /// tracking ID; nil otherwise): steadier than `frame`, which stays the detector's raw box.
    public var trackedFrame: ImageRect?
    /// The detector's class for this box and its detection score.
    public var category: Category
    /// The classifier's labels for this box, highest confidence first (empty unless
    /// `shouldEnableClassification` is on).
    public var labels: [Category]
    /// Keypoints in upright-image pixels (e.g. eyes, nose for faces).
    public var keypoints: [ImagePoint]
    public init(frame: ImageRect, trackingID: Int? = nil, category: Category, labels: [Category] = [], keypoints: [ImagePoint] = [],
                trackedFrame: ImageRect? = nil) {
        self.frame = frame; self.trackingID = trackingID; self.category = category; self.labels = labels; self.keypoints = keypoints
        self.trackedFrame = trackedFrame
    }
    /// The detection score (the detector's, also when the object is classified).
    public var score: Float { category.confidence }
    /// What to show for the object: the classifier's top label when classified, else the detector's category.
    public var displayedLabel: Category { labels.first ?? category }
}
