import DetectorModelFile
import DetectorImage
/// An axis-aligned box given by its top-left corner and its size, in `Float`.
///
/// Coordinates conventions (the whole `Detection/` layer follows them):
/// * Inside a `Detection` the box is **normalized**: x and width are fractions of the
///   frame's width, y and height fractions of its height, (0, 0) is the top-left
///   corner and (1, 1) the bottom-right one — MediaPipe's `RelativeBoundingBox`.
///   Values outside 0…1 are allowed (boxes that stick out of the frame).
/// * `PixelRect` holds pixel boxes (integers, MediaPipe's truncation) once the
///   task layer knows the image size.
///
/// The box keeps `width` and `height` as given, so a box can be degenerate
/// (zero size) or even inverted (negative size); every measure below is safe for
/// those (an inverted or zero-size box has area 0 and overlaps nothing).
///
/// ```swift
/// let a = BoundingBox(xmin: 0, ymin: 0, width: 0.5, height: 0.5)
/// let b = BoundingBox(xmin: 0.25, ymin: 0.25, width: 0.5, height: 0.5)
/// a.intersectionOverUnion(with: b)   // 1/7
/// ```
public struct BoundingBox: Sendable, Equatable, Hashable, Codable {
    /// Left edge.
    public var xmin: Float
    /// Top edge.
    public var ymin: Float
    /// Width (may be zero or negative for degenerate boxes).
    public var width: Float
    /// Height (may be zero or negative for degenerate boxes).
    public var height: Float

    /// A box from its top-left corner and size.
    public init(xmin: Float, ymin: Float, width: Float, height: Float) {
        self.xmin = xmin
        self.ymin = ymin
        self.width = width
        self.height = height
    }

    /// A box from its corners; the size is `xmax − xmin` / `ymax − ymin` in `Float`
    /// (as MediaPipe's decoders compute it).
    public init(xmin: Float, ymin: Float, xmax: Float, ymax: Float) {
        self.init(xmin: xmin, ymin: ymin, width: xmax - xmin, height: ymax - ymin)
    }

    /// Right edge, `xmin + width` in `Float` (MediaPipe's `Rectangle_f` does the same).
    public var xmax: Float { xmin + width }
    /// Bottom edge, `ymin + height` in `Float`.
    public var ymax: Float { ymin + height }

    /// True when the box has no interior: NaN, zero or negative width or height.
    public var isDegenerate: Bool { !(width > 0) || !(height > 0) }

    /// The area, 0 for degenerate boxes (never negative, never NaN).
    public var area: Float {
        isDegenerate ? 0 : width * height
    }

    /// The overlapping part of two boxes, or nil when they do not overlap with a
    /// positive area.
    public func intersection(with other: BoundingBox) -> BoundingBox? {
        let x0 = max(xmin, other.xmin), y0 = max(ymin, other.ymin)
        let x1 = min(xmax, other.xmax), y1 = min(ymax, other.ymax)
        guard x1 > x0, y1 > y0 else { return nil }
        return BoundingBox(xmin: x0, ymin: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Area of the overlap (0 when the boxes do not overlap or either is degenerate).
    public func intersectionArea(with other: BoundingBox) -> Float {
        guard !isDegenerate, !other.isDegenerate, let i = intersection(with: other) else { return 0 }
        return i.area
    }

    /// Intersection over union, in 0…1; 0 when the union is empty (two zero-area
    /// boxes, even identical ones, have IoU 0).
    public func intersectionOverUnion(with other: BoundingBox) -> Float {
        let inter = intersectionArea(with: other)
        guard inter > 0 else { return 0 }
        let union = area + other.area - inter
        return union > 0 ? inter / union : 0
    }
}

/// How the overlap of two boxes is measured by MediaPipe's `NonMaxSuppressionCalculator`.
public enum OverlapType: String, Sendable, Codable, CaseIterable {
    /// Intersection over the area of the *bounding rectangle* of both boxes
    /// (MediaPipe's `JACCARD`, its proto default — not the true union).
    case jaccard
    /// Intersection over the area of the box being tested for suppression
    /// (MediaPipe's `MODIFIED_JACCARD`).
    case modifiedJaccard
    /// Intersection over union `a + b − i` (MediaPipe's `INTERSECTION_OVER_UNION`,
    /// used by all its detector graphs).
    case intersectionOverUnion
}

extension BoundingBox {
    /// MediaPipe's `OverlapSimilarity(type, rect1, rect2)`, computed the way its
    /// `Rectangle_f` does: edges `xmin … xmin + width`, boxes with a negative size
    /// are empty, touching boxes intersect with area 0. `self` is `rect1`, `other`
    /// is `rect2` (for `.modifiedJaccard` the normalization is `other`'s area).
    /// Returns 0 when the normalization is not positive.
    public func overlapSimilarity(with other: BoundingBox, type: OverlapType) -> Float {
        let ax0 = xmin, ay0 = ymin, ax1 = xmax, ay1 = ymax
        let bx0 = other.xmin, by0 = other.ymin, bx1 = other.xmax, by1 = other.ymax
        // Rectangle::IsEmpty: min > max on either axis. NaN compares false, so a NaN box is
        // not "empty" for MediaPipe; we treat it as empty to stay finite.
        func empty(_ x0: Float, _ y0: Float, _ x1: Float, _ y1: Float) -> Bool {
            !(x0 <= x1) || !(y0 <= y1)
        }
        if empty(ax0, ay0, ax1, ay1) || empty(bx0, by0, bx1, by1) { return 0 }
        if bx1 < ax0 || ax1 < bx0 || by1 < ay0 || ay1 < by0 { return 0 }
        let ix0 = max(ax0, bx0), iy0 = max(ay0, by0)
        let ix1 = min(ax1, bx1), iy1 = min(ay1, by1)
        let intersection = (ix1 - ix0) * (iy1 - iy0)
        let normalization: Float
        switch type {
        case .jaccard:
            normalization = (max(ax1, bx1) - min(ax0, bx0)) * (max(ay1, by1) - min(ay0, by0))
        case .modifiedJaccard:
            normalization = (bx1 - bx0) * (by1 - by0)
        case .intersectionOverUnion:
            normalization = (ax1 - ax0) * (ay1 - ay0) + (bx1 - bx0) * (by1 - by0) - intersection
        }
        return normalization > 0 ? intersection / normalization : 0
    }
}

/// A pixel box with integer origin and size, as MediaPipe Tasks returns it.
public struct PixelRect: Sendable, Equatable, Hashable, Codable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// MediaPipe's relative → pixel conversion (`DetectionTransformationCalculator`):
    /// each of origin and size separately is `Float(v) * Float(size)`, truncated toward
    /// zero, then clamped to `0…size`. NaN gives 0.
    public init(truncating box: BoundingBox, imageWidth: Int, imageHeight: Int) {
        x = PixelRect.bounded(box.xmin, imageWidth)
        y = PixelRect.bounded(box.ymin, imageHeight)
        width = PixelRect.bounded(box.width, imageWidth)
        height = PixelRect.bounded(box.height, imageHeight)
    }

    static func bounded(_ relative: Float, _ size: Int) -> Int {
        let upper = max(size, 0)
        let v = relative * Float(upper)
        guard v.isFinite else { return v.isNaN || v < 0 ? 0 : upper }
        if v <= 0 { return 0 }
        if v >= Float(upper) { return upper }
        return min(Int(v), upper)   // truncation toward zero; v is in (0, upper)
    }
}
