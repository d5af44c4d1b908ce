import DetectorZlib
import DetectorPlatform
/// The padding a letterbox added around the scaled image, as fractions of the
/// letterboxed (model input) size: MediaPipe's `LETTERBOX_PADDING` `[left, top, right, bottom]`.
public struct LetterboxPadding: Sendable, Equatable, Codable {
    public var left: Float
    public var top: Float
    public var right: Float
    public var bottom: Float

    public init(left: Float, top: Float, right: Float, bottom: Float) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }

    /// No padding (a stretched input).
    public static let none = LetterboxPadding(left: 0, top: 0, right: 0, bottom: 0)

    /// The padding MediaPipe's `ImageToTensorCalculator` reports when it fits an image of
    /// `imageWidth × imageHeight` into `inputWidth × inputHeight` keeping the aspect ratio
    /// (centred): the side with spare room gets `(1 − used) / 2` on each end.
    /// Returns nil for non-positive sizes.
    public static func centered(imageWidth: Int, imageHeight: Int, inputWidth: Int, inputHeight: Int) -> LetterboxPadding? {
        guard imageWidth > 0, imageHeight > 0, inputWidth > 0, inputHeight > 0 else { return nil }
        let imageAspect = Float(imageHeight) / Float(imageWidth)
        let inputAspect = Float(inputHeight) / Float(inputWidth)
        if inputAspect > imageAspect {
            // Image is wider: full width, padding top and bottom.
            let v = (1 - imageAspect / inputAspect) / 2
            return LetterboxPadding(left: 0, top: v, right: 0, bottom: v)
        } else {
            let h = (1 - inputAspect / imageAspect) / 2
            return LetterboxPadding(left: h, top: 0, right: h, bottom: 0)
        }
    }
}
