import Foundation
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The in-test view of the library's evaluator (`ClearMOTAccumulator`, py-motmetrics' rules as
/// used by `reference/mot_eval.py`: last frame's correspondences kept while their IoU stays
/// >= the threshold, the rest assigned by the Hungarian algorithm; IDF1 by the global one-to-one
/// identity matching), plus a measure the tests add on the matches it reports:
///
/// Jitter: over consecutive frames where a ground-truth object is matched to the same
/// hypothesis in both and its true box barely moves (centre and each side change by at most
/// 2 % of its height), the mean change of the hypothesis box's centre (Euclidean, pixels)
/// and size ((|Δw| + |Δh|) / 2, pixels). A still object drawn with a steady box scores 0.
struct MOTMetrics: Equatable {
    var objects = 0          // ground-truth boxes
    var predictions = 0      // tracker boxes
    var matches = 0
    var misses = 0
    var falsePositives = 0
    var switches = 0
    var idTruePositives = 0
    var jitterPairs = 0
    var jitterCentreSum = 0.0
    var jitterSizeSum = 0.0

    var jitterCentre: Double { jitterPairs > 0 ? jitterCentreSum / Double(jitterPairs) : .nan }
    var jitterSize: Double { jitterPairs > 0 ? jitterSizeSum / Double(jitterPairs) : .nan }
    var precision: Double { Double(matches) / Double(max(predictions, 1)) }
    var recall: Double { Double(matches) / Double(max(objects, 1)) }

    /// Counts of several sequences pooled (ratios are then recomputed from the sums).
    static func + (a: MOTMetrics, b: MOTMetrics) -> MOTMetrics {
        var m = MOTMetrics()
        m.objects = a.objects + b.objects
        m.predictions = a.predictions + b.predictions
        m.matches = a.matches + b.matches
        m.misses = a.misses + b.misses
        m.falsePositives = a.falsePositives + b.falsePositives
        m.switches = a.switches + b.switches
        m.idTruePositives = a.idTruePositives + b.idTruePositives
        m.jitterPairs = a.jitterPairs + b.jitterPairs
        m.jitterCentreSum = a.jitterCentreSum + b.jitterCentreSum
        m.jitterSizeSum = a.jitterSizeSum + b.jitterSizeSum
        return m
    }

    var mota: Double { 1 - Double(misses + falsePositives + switches) / Double(objects) }
    var idf1: Double { 2 * Double(idTruePositives) / Double(objects + predictions) }

    /// Ground-truth rows whose confidence column is below `minGroundTruthConfidence` are
    /// dropped first, as `mot_eval.py` does (some ETH and KITTI rows are marked 0).
    static func evaluate(groundTruth: [MOTRow], results: [MOTRow], iouThreshold: Float = 0.5,
                         minGroundTruthConfidence: Float = 1) throws -> MOTMetrics {
        func box(_ row: MOTRow) -> MOTBox {
            MOTBox(frame: row.frame, id: row.id, x: Double(row.box.x), y: Double(row.box.y),
                   width: Double(row.box.width), height: Double(row.box.height), confidence: Double(row.score))
        }
        let scored = groundTruth.filter { $0.score >= minGroundTruthConfidence }.map(box)
        let hypotheses = results.map(box)
        let length = max(scored.reduce(0) { max($0, $1.frame) }, hypotheses.reduce(0) { max($0, $1.frame) })
        var metrics = MOTMetrics()
        // gt id -> (frame, hypothesis id, true box, hypothesis box) of its last match.
        var previousMatch: [Int: (frame: Int, hyp: Int, truth: MOTBox, box: MOTBox)] = [:]
        let counts = ClearMOTAccumulator.evaluate(
            groundTruth: EvaluationPreprocessing.byFrame(scored, length: length),
            results: EvaluationPreprocessing.byFrame(hypotheses, length: length),
            iouThreshold: Double(iouThreshold)
        ) { match in
            let g = match.groundTruth, h = match.result
            if let last = previousMatch[g.id], last.frame == match.frame - 1, last.hyp == h.id {
                let limit = 0.02 * g.height
                let t0 = last.truth, t1 = g
                let trueMove = hypot(t1.x + t1.width / 2 - t0.x - t0.width / 2, t1.y + t1.height / 2 - t0.y - t0.height / 2)
                if trueMove <= limit, abs(t1.width - t0.width) <= limit, abs(t1.height - t0.height) <= limit {
                    let b0 = last.box, b1 = h
                    metrics.jitterPairs += 1
                    metrics.jitterCentreSum += hypot(b1.x + b1.width / 2 - b0.x - b0.width / 2, b1.y + b1.height / 2 - b0.y - b0.height / 2)
                    metrics.jitterSizeSum += (abs(b1.width - b0.width) + abs(b1.height - b0.height)) / 2
                }
            }
            previousMatch[g.id] = (match.frame, h.id, g, h)
        }
        metrics.objects = counts.objects
        metrics.predictions = counts.predictions
        metrics.matches = counts.matches + counts.switches
        metrics.misses = counts.misses
        metrics.falsePositives = counts.falsePositives
        metrics.switches = counts.switches
        metrics.idTruePositives = counts.idTruePositives
        return metrics
    }
}
