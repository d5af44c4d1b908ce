import DetectorModelFile
import DetectorImage
/// The two box overlaps the reference evaluators compute, each with its own arithmetic (they
/// differ only in the last bits, which decide matches that sit exactly on a threshold).
package enum EvaluationOverlap {
    /// `np.finfo(float).eps`, the slack TrackEval puts on its thresholds.
    package static let epsilon = Double.ulpOfOne

    /// py-motmetrics' `boxiou` on its frames (x and y shifted by -1 for the MATLAB convention):
    /// corners from x + w, sizes back from the corners, 0 when the intersection is empty.
    @inline(__always)
    package static func motmetricsIoU(_ a: MOTBox, _ b: MOTBox) -> Double {
        let ax0 = a.x - 1, ay0 = a.y - 1, bx0 = b.x - 1, by0 = b.y - 1
        let ax1 = ax0 + a.width, ay1 = ay0 + a.height, bx1 = bx0 + b.width, by1 = by0 + b.height
        let intersection = max(min(ax1, bx1) - max(ax0, bx0), 0) * max(min(ay1, by1) - max(ay0, by0), 0)
        guard intersection != 0 else { return 0 }
        let areaA = max(ax1 - ax0, 0) * max(ay1 - ay0, 0)
        let areaB = max(bx1 - bx0, 0) * max(by1 - by0, 0)
        return finite(intersection / (areaA + areaB - intersection))
    }

    /// TrackEval's `_calculate_box_ious` (xywh): intersection 0 when either area or the union is
    /// at most epsilon, union then 1. `shift` is subtracted from x and y first (1 reproduces
    /// `mot17_eval.py`'s distractor matching, which runs on motmetrics' shifted frames).
    @inline(__always)
    package static func trackEvalIoU(_ a: MOTBox, _ b: MOTBox, shift: Double = 0) -> Double {
        let ax0 = a.x - shift, ay0 = a.y - shift, bx0 = b.x - shift, by0 = b.y - shift
        let ax1 = ax0 + a.width, ay1 = ay0 + a.height, bx1 = bx0 + b.width, by1 = by0 + b.height
        var intersection = max(min(ax1, bx1) - max(ax0, bx0), 0) * max(min(ay1, by1) - max(ay0, by0), 0)
        let areaA = (ax1 - ax0) * (ay1 - ay0)
        let areaB = (bx1 - bx0) * (by1 - by0)
        var union = areaA + areaB - intersection
        if areaA <= epsilon || areaB <= epsilon || union <= epsilon { intersection = 0 }
        if union <= epsilon { union = 1 }
        return finite(intersection / union)
    }

    /// Boxes near the limits of `Double` (x + w overflowing) give NaN or infinity where the
    /// references' NumPy gives NaN, which never matches: 0 here, which never matches either.
    @inline(__always)
    private static func finite(_ iou: Double) -> Double { iou.isFinite ? iou : 0 }
}
