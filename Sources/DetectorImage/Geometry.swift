import DetectorZlib
import DetectorPlatform
/// A point in image coordinates, in pixels.
///
/// Continuous coordinates: the top-left corner of the image is (0, 0), the bottom-right
/// corner of a `W x H` image is (W, H), and the centre of pixel (i, j) is (i + 0.5, j + 0.5).
public struct ImagePoint: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public var description: String { "(\(x), \(y))" }
}

/// An axis-aligned rectangle in image coordinates, in pixels (origin = top-left corner).
///
/// Uses the same continuous convention as `ImagePoint`: a rectangle covering exactly the
/// pixels with columns `x0..<x1` has `x = x0` and `width = x1 - x0`.
public struct ImageRect: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The smallest rectangle containing both corner points (in any order).
    public init(corner a: ImagePoint, corner b: ImagePoint) {
        x = Swift.min(a.x, b.x)
        y = Swift.min(a.y, b.y)
        width = Swift.abs(a.x - b.x)
        height = Swift.abs(a.y - b.y)
    }

    public var minX: Double { x }
    public var minY: Double { y }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }

    public var description: String { "(x: \(x), y: \(y), width: \(width), height: \(height))" }
}

/// A width and height in pixels.
public struct ImageSize: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)" }
}
