import DetectorModelFile
import DetectorImage
/// An axis-aligned box in pixels as the tracker sees it: top-left corner plus size.
public struct TrackBox: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public var x: Float
    public var y: Float
    public var width: Float
    public var height: Float

    public init(x: Float, y: Float, width: Float, height: Float) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The box's area, or 0 when a side is not positive.
    public var area: Float { width > 0 && height > 0 ? width * height : 0 }

    /// True when every coordinate is finite and both sides are positive: the only boxes the
    /// tracker accepts (others are ignored rather than allowed to poison the IoU matrix).
    public var isUsable: Bool {
        x.isFinite && y.isFinite && width.isFinite && height.isFinite && width > 0 && height > 0
    }

    /// Intersection over union with `other`, in [0, 1]; 0 when either box has no area.
    public func iou(_ other: TrackBox) -> Float {
        let left = max(x, other.x)
        let top = max(y, other.y)
        let right = min(x + width, other.x + other.width)
        let bottom = min(y + height, other.y + other.height)
        guard right > left, bottom > top else { return 0 }
        let intersection = (right - left) * (bottom - top)
        let union = area + other.area - intersection
        guard union > 0, union.isFinite else { return 0 }
        return min(1, intersection / union)
    }

    public var description: String { "(\(x), \(y), \(width)×\(height))" }
}
