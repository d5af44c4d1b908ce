import DetectorZlib
import DetectorPlatform
/// The eight orientations as the dihedral group D4 of the square.
///
/// Each orientation is the transform that takes the stored (raw) pixels to the upright
/// picture. In coordinates centred on the image, that transform is a signed permutation
/// matrix `M` (`upright = M · raw`):
///
/// | orientation | EXIF | upright pixel (ux, uy) of raw pixel (sx, sy) in a W x H buffer |
/// |---|---|---|
/// | `up` | 1 | (sx, sy) |
/// | `upMirrored` | 2 | (W-1-sx, sy) |
/// | `down` | 3 | (W-1-sx, H-1-sy) |
/// | `downMirrored` | 4 | (sx, H-1-sy) |
/// | `leftMirrored` | 5 | (sy, sx) — transpose |
/// | `right` | 6 | (H-1-sy, sx) — rotate 90° clockwise |
/// | `rightMirrored` | 7 | (H-1-sy, W-1-sx) — transverse |
/// | `left` | 8 | (sy, W-1-sx) — rotate 90° counter-clockwise |
///
/// Composition (`then`) and `inverse` make the eight values a group:
/// ```swift
/// let o = ImageOrientation.right.then(.right)   // .down (two quarter turns)
/// ImageOrientation.right.inverse                // .left
/// ```
extension ImageOrientation {
    /// The 2 x 2 matrix `[[a, b], [c, d]]` with `upright = M · raw` on centred coordinates.
    /// Entries are -1, 0 or 1.
    public var matrix: (a: Int, b: Int, c: Int, d: Int) {
        switch self {
        case .up: return (1, 0, 0, 1)
        case .upMirrored: return (-1, 0, 0, 1)
        case .down: return (-1, 0, 0, -1)
        case .downMirrored: return (1, 0, 0, -1)
        case .leftMirrored: return (0, 1, 1, 0)
        case .right: return (0, -1, 1, 0)
        case .rightMirrored: return (0, -1, -1, 0)
        case .left: return (0, 1, -1, 0)
        }
    }

    /// The orientation whose matrix is `[[a, b], [c, d]]`, or nil if it is not one of the eight.
    public init?(matrix a: Int, _ b: Int, _ c: Int, _ d: Int) {
        guard let o = ImageOrientation.allCases.first(where: {
            let m = $0.matrix
            return m.a == a && m.b == b && m.c == c && m.d == d
        }) else { return nil }
        self = o
    }

    /// True when the transform exchanges the axes (EXIF 5–8): the upright image is H x W.
    public var swapsAxes: Bool { matrix.a == 0 }

    /// True for the four mirrored orientations (determinant -1).
    public var isMirrored: Bool {
        let m = matrix
        return m.a * m.d - m.b * m.c == -1
    }

    /// The transform "first `self`, then `next`".
    ///
    /// If a buffer's upright picture is obtained with `self`, and that picture is then
    /// turned by `next`, the result is the buffer turned by `self.then(next)`.
    public func then(_ next: ImageOrientation) -> ImageOrientation {
        let p = matrix, q = next.matrix
        // q · p
        let a = q.a * p.a + q.b * p.c
        let b = q.a * p.b + q.b * p.d
        let c = q.c * p.a + q.d * p.c
        let d = q.c * p.b + q.d * p.d
        // The product of two signed permutation matrices is one: the lookup always succeeds.
        return ImageOrientation(matrix: a, b, c, d) ?? .up
    }

    /// The transform that undoes `self` (`self.then(self.inverse) == .up`).
    /// Rotations by a quarter turn swap with each other; the other six are their own inverse.
    public var inverse: ImageOrientation {
        let m = matrix
        // Orthogonal matrix: inverse = transpose.
        return ImageOrientation(matrix: m.a, m.c, m.b, m.d) ?? .up
    }

    /// Size of the upright picture for a raw buffer of `width x height`.
    public func uprightSize(rawWidth width: Int, rawHeight height: Int) -> ImageSize {
        swapsAxes ? ImageSize(width: height, height: width) : ImageSize(width: width, height: height)
    }
}
