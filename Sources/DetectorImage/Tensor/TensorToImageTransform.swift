import DetectorZlib
import DetectorPlatform
/// Letterbox padding as fractions of the tensor's width (left, right) and height (top, bottom),
/// MediaPipe-style: the input to `DetectionLetterboxRemovalCalculator`; another name for
/// `LetterboxPadding`, which the detection layer's `LetterboxRemoval` takes.
///
/// A detection at normalized tensor x maps to normalized image x as
/// `(x − left) / (1 − left − right)`, likewise y with top and bottom.
public typealias TensorPadding = LetterboxPadding

extension LetterboxPadding: CustomStringConvertible {
    /// No padding (stretch).
    public static let zero = LetterboxPadding.none

    public var description: String { "(left: \(left), top: \(top), right: \(right), bottom: \(bottom))" }
}

/// Maps coordinates of a model's input tensor back to the original (upright) image, and back.
///
/// The mapping is affine per axis: `image = tensorPixel · scale + offset`, in continuous pixel
/// coordinates (see `ImagePoint`). Normalized tensor coordinates (0…1 across the tensor) are
/// accepted too, which is what detection models output.
///
/// ```swift
/// let t = converted.transform
/// let corner = t.imagePoint(fromNormalized: ImagePoint(x: 0.25, y: 0.5))   // in image pixels
/// ```
public struct TensorToImageTransform: Sendable, Equatable {
    public let imageWidth: Int
    public let imageHeight: Int
    public let tensorWidth: Int
    public let tensorHeight: Int
    /// Image pixels per tensor pixel, per axis.
    public let scaleX: Double
    public let scaleY: Double
    /// Image position of the tensor's (0, 0) corner.
    public let offsetX: Double
    public let offsetY: Double
    /// The letterbox padding as fractions of the tensor size (zero for stretch).
    public let padding: TensorPadding

    public init(imageWidth: Int, imageHeight: Int, tensorWidth: Int, tensorHeight: Int,
                scaleX: Double, scaleY: Double, offsetX: Double, offsetY: Double, padding: TensorPadding) {
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.tensorWidth = tensorWidth
        self.tensorHeight = tensorHeight
        self.scaleX = scaleX
        self.scaleY = scaleY
        self.offsetX = offsetX
        self.offsetY = offsetY
        self.padding = padding
    }

    /// Image point of a tensor point given in tensor pixels.
    public func imagePoint(fromTensorPixel p: ImagePoint) -> ImagePoint {
        ImagePoint(x: p.x * scaleX + offsetX, y: p.y * scaleY + offsetY)
    }

    /// Image point (pixels) of a tensor point given in normalized tensor coordinates (0…1).
    public func imagePoint(fromNormalized p: ImagePoint) -> ImagePoint {
        imagePoint(fromTensorPixel: ImagePoint(x: p.x * Double(tensorWidth), y: p.y * Double(tensorHeight)))
    }

    /// Image rectangle (pixels) of a rectangle in tensor pixels.
    public func imageRect(fromTensorPixel r: ImageRect) -> ImageRect {
        ImageRect(corner: imagePoint(fromTensorPixel: ImagePoint(x: r.minX, y: r.minY)),
                  corner: imagePoint(fromTensorPixel: ImagePoint(x: r.maxX, y: r.maxY)))
    }

    /// Image rectangle (pixels) of a rectangle in normalized tensor coordinates.
    public func imageRect(fromNormalized r: ImageRect) -> ImageRect {
        ImageRect(corner: imagePoint(fromNormalized: ImagePoint(x: r.minX, y: r.minY)),
                  corner: imagePoint(fromNormalized: ImagePoint(x: r.maxX, y: r.maxY)))
    }

    /// Tensor point (pixels) of an image point: the inverse mapping.
    public func tensorPoint(fromImage p: ImagePoint) -> ImagePoint {
        ImagePoint(x: scaleX != 0 ? (p.x - offsetX) / scaleX : 0,
                   y: scaleY != 0 ? (p.y - offsetY) / scaleY : 0)
    }
}
