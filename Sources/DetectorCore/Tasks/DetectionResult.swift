/// A category given to an object or an image.
public struct Label: Sendable, Equatable {
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

/// One detected object, in upright-image pixel coordinates.
///
/// ```swift
/// for object in try detector.detect(image: image) {
///     print(object.frame, object.labels.first?.text ?? "?", object.trackingID as Any)
/// }
/// ```
public struct DetectedObject: Sendable, Equatable {
    /// The box in upright-image pixels.
    public var frame: ImageRect
    /// The tracking ID (stream modes only; nil in image mode).
    public var trackingID: Int?
    /// Labels, highest confidence first.
    public var labels: [Label]
    /// Keypoints in upright-image pixels (e.g. eyes, nose for faces).
    public var keypoints: [ImagePoint]
    public init(frame: ImageRect, trackingID: Int? = nil, labels: [Label], keypoints: [ImagePoint] = []) {
        self.frame = frame; self.trackingID = trackingID; self.labels = labels; self.keypoints = keypoints
    }
    /// The top label's confidence (0 when there is no label).
    public var score: Float { labels.first?.confidence ?? 0 }
}
