import DetectorModelFile
import DetectorImage
/// MediaPipe's `DetectionLetterboxRemovalCalculator`: maps detections normalized to a
/// letterboxed input back to the image inside the letterbox.
///
/// `x' = (x − left) / (1 − (left + right))`, sizes `w' = w / (1 − (left + right))`,
/// same for y with top/bottom, keypoints like positions; all in `Float`.
///
/// ```swift
/// let pad = LetterboxPadding.centered(imageWidth: 1200, imageHeight: 600, inputWidth: 128, inputHeight: 128)!
/// let inImage = LetterboxRemoval.apply(faces, padding: pad)
/// ```
public enum LetterboxRemoval {
    /// - Throws: `DetectionError.invalidOption` when the padding leaves no image
    ///   (`left + right ≥ 1` or `top + bottom ≥ 1`) or is not finite.
    public static func apply(_ detections: [Detection], padding: LetterboxPadding) throws -> [Detection] {
        let lr = padding.left + padding.right
        let tb = padding.top + padding.bottom
        guard lr.isFinite, tb.isFinite, lr < 1, tb < 1 else {
            throw DetectionError.invalidOption(name: "letterbox padding",
                                               reason: "left + right and top + bottom must be below 1, got \(lr) and \(tb)")
        }
        let sx: Float = 1.0 - lr, sy: Float = 1.0 - tb
        return detections.map { d in
            var out = d
            out.box = BoundingBox(xmin: (d.box.xmin - padding.left) / sx,
                                  ymin: (d.box.ymin - padding.top) / sy,
                                  width: d.box.width / sx,
                                  height: d.box.height / sy)
            out.keypoints = d.keypoints.map { Keypoint(x: ($0.x - padding.left) / sx, y: ($0.y - padding.top) / sy) }
            return out
        }
    }
}

/// MediaPipe's `DetectionProjectionCalculator`: projects detections through the affine
/// part of a 4×4 row-major matrix (`x' = x·m0 + y·m1 + m3`, `y' = x·m4 + y·m5 + m7`, in
/// `Float`). The box's four corners are projected and the new box is their bounding box,
/// so `width' = max(x') − min(x')` — with the identity matrix this is
/// `(xmin + width) − xmin`, which MediaPipe Tasks' SSD boxes go through before pixel
/// truncation.
public struct DetectionProjection: Sendable, Equatable {
    /// Row-major 4×4 matrix; only elements 0, 1, 3, 4, 5, 7 are used.
    public var matrix: [Float]

    public init(matrix: [Float]) throws {
        guard matrix.count == 16 else {
            throw DetectionError.invalidOption(name: "projection matrix", reason: "needs 16 values, got \(matrix.count)")
        }
        self.matrix = matrix
    }

    /// The identity projection (stretched input: model coordinates are image coordinates).
    public static let identity = DetectionProjection(unchecked: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])

    package init(unchecked matrix: [Float]) { self.matrix = matrix }

    @inline(__always)
    func project(_ x: Float, _ y: Float) -> (Float, Float) {
        let m = matrix
        let px = x * m[0] + y * m[1] + m[3]
        let py = x * m[4] + y * m[5] + m[7]
        return (px, py)
    }

    /// The projected detections.
    public func apply(_ detections: [Detection]) -> [Detection] {
        detections.map { d in
            var out = d
            out.keypoints = d.keypoints.map { k in
                let p = project(k.x, k.y)
                return Keypoint(x: p.0, y: p.1)
            }
            let b = d.box
            let corners = [project(b.xmin, b.ymin), project(b.xmin + b.width, b.ymin),
                           project(b.xmin + b.width, b.ymin + b.height), project(b.xmin, b.ymin + b.height)]
            var l = Float.greatestFiniteMagnitude, t = Float.greatestFiniteMagnitude
            var r = -Float.greatestFiniteMagnitude, btm = -Float.greatestFiniteMagnitude
            for c in corners {
                l = min(l, c.0); t = min(t, c.1)
                r = max(r, c.0); btm = max(btm, c.1)
            }
            out.box = BoundingBox(xmin: l, ymin: t, width: r - l, height: btm - t)
            return out
        }
    }
}
