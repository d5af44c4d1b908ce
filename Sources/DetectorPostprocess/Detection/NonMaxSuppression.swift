import DetectorModelFile
import DetectorImage
/// Non-maximum suppression over `Detection`s, following MediaPipe's
/// `NonMaxSuppressionCalculator` (hard = `DEFAULT`, and `WEIGHTED`).
///
/// Common rules (MediaPipe's):
/// * Candidates are visited by descending score. MediaPipe uses `std::sort`, whose
///   order among equal scores is unspecified; here equal scores keep their input
///   order (a stable sort), which is what MediaPipe's libstdc++ build does for up to
///   16 candidates.
/// * A candidate is suppressed when its overlap with a kept box is **strictly greater**
///   than the threshold (`overlapSimilarity(kept, candidate) > threshold`).
/// * `minScoreThreshold` (> 0 to take effect) stops the scan at the first candidate
///   scoring below it.
/// * Zero-area boxes overlap nothing (similarity 0), so they are never suppressed and
///   never suppress.
///
/// ```swift
/// let kept = NonMaxSuppression.hard(candidates, iouThreshold: 0.45, classAware: true)
/// let faces = NonMaxSuppression.weighted(candidates, iouThreshold: 0.3)
/// ```
public enum NonMaxSuppression {
    /// Indices of `detections` by descending score; equal scores keep their order, NaN
    /// scores sort last (so the comparison is a strict weak order).
    static func orderByScore(_ detections: [Detection]) -> [Int] {
        func key(_ s: Float) -> Float { s.isNaN ? -.infinity : s }
        return detections.indices.sorted { a, b in
            let sa = key(detections[a].score), sb = key(detections[b].score)
            if sa != sb { return sa > sb }
            return a < b
        }
    }

    /// Hard (greedy) NMS.
    /// - Parameters:
    ///   - iouThreshold: MediaPipe's `min_suppression_threshold`.
    ///   - overlap: the similarity measure (MediaPipe graphs use `.intersectionOverUnion`).
    ///   - classAware: suppress only within the same `classIndex` (MediaPipe's
    ///     `multiclass_nms`: per-class NMS, then all kept boxes sorted by score and
    ///     cut to `maxDetections`); otherwise class-agnostic.
    ///   - maxDetections: keep at most this many (nil or −1: all).
    ///   - minScoreThreshold: see the type's notes (nil or ≤ 0: none).
    /// - Returns: kept detections in descending score order.
    public static func hard(_ detections: [Detection], iouThreshold: Float,
                            overlap: OverlapType = .intersectionOverUnion, classAware: Bool = false,
                            maxDetections: Int? = nil, minScoreThreshold: Float? = nil) -> [Detection] {
        let limit = maxDetections.flatMap { $0 > -1 ? $0 : nil } ?? detections.count
        guard limit > 0, !detections.isEmpty else { return [] }
        if classAware {
            var byClass: [Int: [Detection]] = [:]
            var classOrder: [Int] = []
            for d in detections {
                if byClass[d.classIndex] == nil { classOrder.append(d.classIndex) }
                byClass[d.classIndex, default: []].append(d)
            }
            var merged: [Detection] = []
            for c in classOrder {
                merged += greedy(byClass[c] ?? [], iouThreshold: iouThreshold, overlap: overlap,
                                 limit: limit, minScoreThreshold: minScoreThreshold)
            }
            return Array(orderByScore(merged).prefix(limit).map { merged[$0] })
        }
        return greedy(detections, iouThreshold: iouThreshold, overlap: overlap, limit: limit,
                      minScoreThreshold: minScoreThreshold)
    }

    static func greedy(_ detections: [Detection], iouThreshold: Float, overlap: OverlapType,
                       limit: Int, minScoreThreshold: Float?) -> [Detection] {
        var kept: [Detection] = []
        guard limit > 0 else { return kept }
        for index in orderByScore(detections) {
            let candidate = detections[index]
            if let t = minScoreThreshold, t > 0, candidate.score < t { break }
            var suppressed = false
            for k in kept where k.box.overlapSimilarity(with: candidate.box, type: overlap) > iouThreshold {
                suppressed = true
                break
            }
            if !suppressed { kept.append(candidate) }
            if kept.count >= limit { break }
        }
        return kept
    }

    /// MediaPipe's weighted NMS (`algorithm: WEIGHTED`), class-agnostic.
    ///
    /// Repeatedly takes the best remaining detection; every remaining detection whose
    /// overlap with it (`overlapSimilarity(rest, top)`) is greater than the threshold —
    /// the top one included — is a candidate. The output keeps the top detection's score
    /// and class, with its box corners and keypoints replaced by the score-weighted means
    /// over the candidates (sums in `Float`, in descending-score order, as MediaPipe).
    /// Candidates are removed and the loop repeats. A lone candidate is still "averaged"
    /// with itself, so its box can move by a Float rounding step, exactly as in MediaPipe.
    ///
    /// MediaPipe's quirks, kept on purpose: `maxDetections` is not applied by the
    /// weighted algorithm (MediaPipe ignores it too; cut the result yourself); and when a
    /// round removes nothing — the top box has zero area, so it does not even overlap
    /// itself — the top detection is output unchanged and the loop **stops**.
    public static func weighted(_ detections: [Detection], iouThreshold: Float,
                                overlap: OverlapType = .intersectionOverUnion,
                                minScoreThreshold: Float? = nil) -> [Detection] {
        var remaining = orderByScore(detections)
        var output: [Detection] = []
        var rest: [Int] = []
        var candidates: [Int] = []
        while !remaining.isEmpty {
            let top = detections[remaining[0]]
            if let t = minScoreThreshold, t > 0, top.score < t { break }
            rest.removeAll(keepingCapacity: true)
            candidates.removeAll(keepingCapacity: true)
            for i in remaining {
                if detections[i].box.overlapSimilarity(with: top.box, type: overlap) > iouThreshold {
                    candidates.append(i)
                } else {
                    rest.append(i)
                }
            }
            var merged = top
            if !candidates.isEmpty {
                let kpCount = top.keypoints.count
                var sums = [Float](repeating: 0, count: kpCount * 2)
                var wxmin: Float = 0, wymin: Float = 0, wxmax: Float = 0, wymax: Float = 0
                var total: Float = 0
                for c in candidates {
                    let d = detections[c]
                    let s = d.score
                    total += s
                    wxmin += d.box.xmin * s
                    wymin += d.box.ymin * s
                    wxmax += (d.box.xmin + d.box.width) * s
                    wymax += (d.box.ymin + d.box.height) * s
                    // MediaPipe reads keypoint i of every candidate; a candidate with fewer
                    // keypoints than the top one contributes nothing for the missing ones.
                    for k in 0..<min(kpCount, d.keypoints.count) {
                        sums[2 * k] += d.keypoints[k].x * s
                        sums[2 * k + 1] += d.keypoints[k].y * s
                    }
                }
                let xmin = wxmin / total, ymin = wymin / total
                merged.box = BoundingBox(xmin: xmin, ymin: ymin, width: wxmax / total - xmin, height: wymax / total - ymin)
                for k in 0..<kpCount {
                    merged.keypoints[k] = Keypoint(x: sums[2 * k] / total, y: sums[2 * k + 1] / total)
                }
            }
            output.append(merged)
            if rest.count == remaining.count { break }
            swap(&remaining, &rest)
        }
        return output
    }
}
