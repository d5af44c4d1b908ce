import DetectorZlib
import DetectorPlatform
/// Maps points and rectangles between a raw buffer and its upright picture.
///
/// Coordinates are continuous pixels (see `ImagePoint`): the raw buffer spans
/// `[0, rawWidth] x [0, rawHeight]`, the upright picture `[0, uprightSize.width] x [0, uprightSize.height]`.
/// Pixel centres map to pixel centres, exactly as `ImageBuffer.applyingOrientation(_:)` moves pixels.
///
/// ```swift
/// let map = OrientationMapping(rawWidth: 640, rawHeight: 480, orientation: .right)
/// let box = map.rawRect(fromUpright: ImageRect(x: 10, y: 20, width: 30, height: 40))
/// ```
public struct OrientationMapping: Sendable, Equatable {
    public let rawWidth: Int
    public let rawHeight: Int
    public let orientation: ImageOrientation

    public init(rawWidth: Int, rawHeight: Int, orientation: ImageOrientation) {
        self.rawWidth = rawWidth
        self.rawHeight = rawHeight
        self.orientation = orientation
    }

    /// Size of the upright picture.
    public var uprightSize: ImageSize {
        orientation.uprightSize(rawWidth: rawWidth, rawHeight: rawHeight)
    }

    /// Where a raw-buffer point appears in the upright picture.
    public func uprightPoint(fromRaw p: ImagePoint) -> ImagePoint {
        let m = orientation.matrix
        let up = uprightSize
        let rx = p.x - Double(rawWidth) / 2, ry = p.y - Double(rawHeight) / 2
        return ImagePoint(x: Double(m.a) * rx + Double(m.b) * ry + Double(up.width) / 2,
                          y: Double(m.c) * rx + Double(m.d) * ry + Double(up.height) / 2)
    }

    /// Where an upright-picture point lies in the raw buffer.
    public func rawPoint(fromUpright p: ImagePoint) -> ImagePoint {
        let m = orientation.matrix
        let up = uprightSize
        let ux = p.x - Double(up.width) / 2, uy = p.y - Double(up.height) / 2
        // Inverse of an orthogonal matrix is its transpose.
        return ImagePoint(x: Double(m.a) * ux + Double(m.c) * uy + Double(rawWidth) / 2,
                          y: Double(m.b) * ux + Double(m.d) * uy + Double(rawHeight) / 2)
    }

    /// The upright rectangle covering a raw-buffer rectangle (exact: the transforms keep rectangles axis-aligned).
    public func uprightRect(fromRaw r: ImageRect) -> ImageRect {
        ImageRect(corner: uprightPoint(fromRaw: ImagePoint(x: r.minX, y: r.minY)),
                  corner: uprightPoint(fromRaw: ImagePoint(x: r.maxX, y: r.maxY)))
    }

    /// The raw-buffer rectangle covering an upright rectangle.
    public func rawRect(fromUpright r: ImageRect) -> ImageRect {
        ImageRect(corner: rawPoint(fromUpright: ImagePoint(x: r.minX, y: r.minY)),
                  corner: rawPoint(fromUpright: ImagePoint(x: r.maxX, y: r.maxY)))
    }

    /// The upright pixel index holding raw pixel (`x`, `y`) (integer indices, 0-based).
    public func uprightPixel(fromRawX x: Int, y: Int) -> (x: Int, y: Int) {
        let m = orientation.matrix
        let up = uprightSize
        // 2u + 1 - U = M (2r + 1 - R): centred coordinates doubled to stay integer.
        let rx = 2 * x + 1 - rawWidth, ry = 2 * y + 1 - rawHeight
        let ux = (m.a * rx + m.b * ry + up.width - 1) / 2
        let uy = (m.c * rx + m.d * ry + up.height - 1) / 2
        return (ux, uy)
    }

    /// The raw pixel index shown at upright pixel (`x`, `y`).
    public func rawPixel(fromUprightX x: Int, y: Int) -> (x: Int, y: Int) {
        let m = orientation.matrix
        let up = uprightSize
        let ux = 2 * x + 1 - up.width, uy = 2 * y + 1 - up.height
        let rx = (m.a * ux + m.c * uy + rawWidth - 1) / 2
        let ry = (m.b * ux + m.d * uy + rawHeight - 1) / 2
        return (rx, ry)
    }
}
