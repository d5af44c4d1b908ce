import Foundation
@testable import DetectorCore

/// A small CLEAR-MOT and identity-metrics evaluator for the tests, following the rules of
/// py-motmetrics as used by `reference/mot_eval.py`: per frame, last frame's correspondences
/// are kept while their IoU stays >= the threshold, the rest are assigned by minimum total
/// distance (1 - IoU) among admissible pairs; an ID switch is a ground-truth object matched to
/// a different hypothesis than at its last match. IDF1 uses the global one-to-one matching of
/// ground-truth and hypothesis identities that maximises the frames where both match.
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
        var metrics = MOTMetrics()
        let gtFrames = MOTFormat.groupByFrame(groundTruth.filter { $0.score >= minGroundTruthConfidence })
        let resFrames = MOTFormat.groupByFrame(results)
        var lastMatch: [Int: Int] = [:]                  // gt id -> hypothesis id at its last match
        var coMatched: [Int: [Int: Int]] = [:]           // gt id -> hyp id -> frames with IoU >= t
        var gtIDs = Set<Int>(), hypIDs = Set<Int>()
        // gt id -> (frame, hypothesis id, true box, hypothesis box) of its last match.
        var previousMatch: [Int: (frame: Int, hyp: Int, truth: TrackBox, box: TrackBox)] = [:]
        func recordMatch(frame: Int, _ g: MOTRow, _ h: MOTRow) {
            if let last = previousMatch[g.id], last.frame == frame - 1, last.hyp == h.id {
                let limit = 0.02 * Double(g.box.height)
                let t0 = last.truth, t1 = g.box
                let trueMove = hypot(Double(t1.x + t1.width / 2 - t0.x - t0.width / 2), Double(t1.y + t1.height / 2 - t0.y - t0.height / 2))
                if trueMove <= limit, Double(abs(t1.width - t0.width)) <= limit, Double(abs(t1.height - t0.height)) <= limit {
                    let b0 = last.box, b1 = h.box
                    metrics.jitterPairs += 1
                    metrics.jitterCentreSum += hypot(Double(b1.x + b1.width / 2 - b0.x - b0.width / 2), Double(b1.y + b1.height / 2 - b0.y - b0.height / 2))
                    metrics.jitterSizeSum += Double(abs(b1.width - b0.width) + abs(b1.height - b0.height)) / 2
                }
            }
            previousMatch[g.id] = (frame, h.id, g.box, h.box)
        }
        for frame in 0..<max(gtFrames.count, resFrames.count) {
            let gt = frame < gtFrames.count ? gtFrames[frame] : []
            let hyp = frame < resFrames.count ? resFrames[frame] : []
            metrics.objects += gt.count
            metrics.predictions += hyp.count
            gt.forEach { gtIDs.insert($0.id) }
            hyp.forEach { hypIDs.insert($0.id) }
            var iou = [[Float]](repeating: [Float](repeating: 0, count: hyp.count), count: gt.count)
            for (i, g) in gt.enumerated() {
                for (j, h) in hyp.enumerated() {
                    iou[i][j] = g.box.iou(h.box)
                    if iou[i][j] >= iouThreshold { coMatched[g.id, default: [:]][h.id, default: 0] += 1 }
                }
            }
            var gtMatched = [Bool](repeating: false, count: gt.count)
            var hypMatched = [Bool](repeating: false, count: hyp.count)
            // 1. Keep last frame's correspondences that are still valid.
            for (i, g) in gt.enumerated() {
                guard let h = lastMatch[g.id], let j = hyp.firstIndex(where: { $0.id == h }),
                      !hypMatched[j], iou[i][j] >= iouThreshold else { continue }
                gtMatched[i] = true
                hypMatched[j] = true
                metrics.matches += 1
                recordMatch(frame: frame, g, hyp[j])
            }
            // 2. Optimal assignment of the rest: admissible pairs cost 1 - IoU, others a large
            //    value, so the number of admissible matches is maximised first.
            let freeGT = gt.indices.filter { !gtMatched[$0] }
            let freeHyp = hyp.indices.filter { !hypMatched[$0] }
            if !freeGT.isEmpty && !freeHyp.isEmpty {
                var costs: [Double] = []
                for i in freeGT {
                    for j in freeHyp { costs.append(iou[i][j] >= iouThreshold ? 1 - Double(iou[i][j]) : 1e6) }
                }
                let assignment = try LinearAssignment.solve(costs: costs, rows: freeGT.count, columns: freeHyp.count)
                for (r, c) in assignment.enumerated() {
                    guard let c else { continue }
                    let i = freeGT[r], j = freeHyp[c]
                    guard iou[i][j] >= iouThreshold else { continue }
                    gtMatched[i] = true
                    hypMatched[j] = true
                    metrics.matches += 1
                    if let previous = lastMatch[gt[i].id], previous != hyp[j].id { metrics.switches += 1 }
                    lastMatch[gt[i].id] = hyp[j].id
                    recordMatch(frame: frame, gt[i], hyp[j])
                }
            }
            metrics.misses += gtMatched.filter { !$0 }.count
            metrics.falsePositives += hypMatched.filter { !$0 }.count
        }
        // Identity matching: maximise the summed co-matched frames over one-to-one pairs.
        let gtList = gtIDs.sorted(), hypList = hypIDs.sorted()
        if !gtList.isEmpty && !hypList.isEmpty {
            var costs: [Double] = []
            for g in gtList { for h in hypList { costs.append(-Double(coMatched[g]?[h] ?? 0)) } }
            let assignment = try LinearAssignment.solve(costs: costs, rows: gtList.count, columns: hypList.count)
            metrics.idTruePositives = Int(-LinearAssignment.totalCost(of: assignment, costs: costs, columns: hypList.count))
        }
        return metrics
    }
}
