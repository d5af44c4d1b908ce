import DetectorModelFile
import DetectorImage
/// Which ground-truth conventions a sequence follows.
public enum MOTGroundTruthProtocol: String, Sendable, Equatable, Codable {
    /// MOT16/17/20 ground truth with class columns: tracker boxes matched to distractors are
    /// removed, only pedestrians (class 1) with the 'consider' flag are scored.
    case mot17
    /// MOT15 ground truth (no classes): rows with a 'consider' flag below 1 are dropped, nothing else.
    case mot15

    /// `.mot17` when any ground-truth row has a class (8th column) of 1 or more, else `.mot15`.
    public static func detect(in groundTruth: [MOTBox]) -> MOTGroundTruthProtocol {
        groundTruth.contains { ($0.classID ?? 0) >= 1 } ? .mot17 : .mot15
    }
}

/// The boxes one evaluator scores, frame by frame, after the protocol's preprocessing.
package struct EvaluationFrames {
    /// Scored ground truth; element `k` is frame `k + 1`.
    package var groundTruth: [[MOTBox]]
    /// Tracker boxes left after removing those matched to distractors.
    package var results: [[MOTBox]]
    /// Tracker boxes removed because they matched a distractor.
    package var removedResults = 0
}

/// MOT17's preprocessing as the two references do it (the MOTChallenge devkit's
/// `preprocessResult`): in each frame the tracker boxes are matched one-to-one to all ground-truth
/// boxes by the Hungarian algorithm on IoU (pairs below 0.5 not allowed); a box matched to a
/// distractor (person on vehicle, static person, distractor, reflection) is removed. Then only
/// pedestrians with the 'consider' flag are kept. MOT15 only drops ground truth not to consider.
package enum EvaluationPreprocessing {
    /// person_on_vehicle, static_person, distractor, reflection.
    package static let distractorClasses: Set<Int> = [2, 7, 8, 12]
    package static let pedestrian = 1

    /// Whose rules: `mot17_eval.py`'s motmetrics part (frames shifted by -1, 'consider' != 0;
    /// MOT15: 'consider' >= 1) or TrackEval's `MotChallenge2DBox` (unshifted, 'consider' truncated
    /// to an integer != 0).
    package enum Flavour { case motmetrics, trackEval }

    /// Rows grouped by frame: element `k` holds frame `k + 1`'s rows in file order, for frames 1...length.
    package static func byFrame(_ rows: [MOTBox], length: Int) -> [[MOTBox]] {
        var frames = [[MOTBox]](repeating: [], count: length)
        for row in rows where row.frame >= 1 && row.frame <= length { frames[row.frame - 1].append(row) }
        return frames
    }

    package static func frames(groundTruth: [[MOTBox]], results: [[MOTBox]], protocol kind: MOTGroundTruthProtocol,
                               flavour: Flavour) -> EvaluationFrames {
        var prepared = EvaluationFrames(groundTruth: [], results: [])
        prepared.groundTruth.reserveCapacity(groundTruth.count)
        prepared.results.reserveCapacity(results.count)
        for frame in 0..<max(groundTruth.count, results.count) {
            let gt = frame < groundTruth.count ? groundTruth[frame] : []
            var res = frame < results.count ? results[frame] : []
            if kind == .mot17, !gt.isEmpty, !res.isEmpty {
                let removed = distractorMatches(gt, res, shift: flavour == .motmetrics ? 1 : 0)
                if !removed.isEmpty {
                    prepared.removedResults += removed.count
                    res = res.indices.filter { !removed.contains($0) }.map { res[$0] }
                }
            }
            prepared.groundTruth.append(gt.filter { keeps($0, kind, flavour) })
            prepared.results.append(res)
        }
        return prepared
    }

    /// Whether a ground-truth row is scored.
    package static func keeps(_ row: MOTBox, _ kind: MOTGroundTruthProtocol, _ flavour: Flavour) -> Bool {
        switch (kind, flavour) {
        case (.mot17, .motmetrics): return row.confidence != 0 && row.classID == pedestrian
        case (.mot17, .trackEval): return row.confidence.rounded(.towardZero) != 0 && row.classID == pedestrian
        case (.mot15, .motmetrics): return row.confidence >= 1
        case (.mot15, .trackEval): return row.confidence.rounded(.towardZero) != 0
        }
    }

    /// Indices of the tracker boxes that the Hungarian matching (IoU >= 0.5, total IoU maximal)
    /// pairs with a distractor-class ground-truth box.
    static func distractorMatches(_ gt: [MOTBox], _ res: [MOTBox], shift: Double) -> Set<Int> {
        let threshold = 0.5 - EvaluationOverlap.epsilon
        var similarity = [Double](repeating: 0, count: gt.count * res.count)
        var rowUsed = [Bool](repeating: false, count: gt.count)
        var columnUsed = [Bool](repeating: false, count: res.count)
        var anyDistractor = false
        for (i, g) in gt.enumerated() {
            for (j, r) in res.enumerated() {
                let iou = EvaluationOverlap.trackEvalIoU(g, r, shift: shift)
                guard iou >= threshold else { continue }
                similarity[i * res.count + j] = iou
                rowUsed[i] = true
                columnUsed[j] = true
                if distractorClasses.contains(g.classID ?? 0) { anyDistractor = true }
            }
        }
        guard anyDistractor else { return [] }
        // Rows and columns without an admissible pair cannot change the optimum: leave them out.
        let rows = gt.indices.filter { rowUsed[$0] }, columns = res.indices.filter { columnUsed[$0] }
        var costs = [Double]()
        costs.reserveCapacity(rows.count * columns.count)
        for i in rows { for j in columns { costs.append(-similarity[i * res.count + j]) } }
        guard let assignment = try? LinearAssignment.solve(costs: costs, rows: rows.count, columns: columns.count) else { return [] }
        var removed = Set<Int>()
        for (r, c) in assignment.enumerated() {
            guard let c else { continue }
            let i = rows[r], j = columns[c]
            if similarity[i * res.count + j] > EvaluationOverlap.epsilon, distractorClasses.contains(gt[i].classID ?? 0) {
                removed.insert(j)
            }
        }
        return removed
    }
}
