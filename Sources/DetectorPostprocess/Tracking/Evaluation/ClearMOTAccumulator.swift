import DetectorModelFile
import DetectorImage
/// CLEAR-MOT and identity counts of one sequence, with py-motmetrics' rules (`MOTAccumulator.update`,
/// `metrics.py`): a pair may match when its IoU distance 1 - IoU is at most `1 - threshold`. In each
/// frame a ground-truth object keeps last frame's hypothesis while that pair is still admissible;
/// the rest are assigned by the Hungarian algorithm (most admissible pairs, then least total
/// distance). A ground-truth object matched to another hypothesis than at its previous match is an
/// ID switch. IDF1 pairs ground-truth and hypothesis identities one-to-one (optimally, over the
/// whole sequence) to maximise the frames in which they are admissible together.
package struct ClearMOTCounts: Sendable, Equatable {
    package var objects = 0            // scored ground-truth boxes
    package var predictions = 0        // tracker boxes
    package var matches = 0            // 'MATCH' events (switches not included)
    package var switches = 0
    package var misses = 0
    package var falsePositives = 0
    package var distanceSum = 0.0      // 1 - IoU over matches and switches
    package var fragmentations = 0
    package var uniqueObjects = 0
    package var mostlyTracked = 0
    package var partiallyTracked = 0
    package var mostlyLost = 0
    package var idTruePositives = 0

    /// Counts of several sequences pooled.
    package static func + (a: ClearMOTCounts, b: ClearMOTCounts) -> ClearMOTCounts {
        var m = a
        m.objects += b.objects
        m.predictions += b.predictions
        m.matches += b.matches
        m.switches += b.switches
        m.misses += b.misses
        m.falsePositives += b.falsePositives
        m.distanceSum += b.distanceSum
        m.fragmentations += b.fragmentations
        m.uniqueObjects += b.uniqueObjects
        m.mostlyTracked += b.mostlyTracked
        m.partiallyTracked += b.partiallyTracked
        m.mostlyLost += b.mostlyLost
        m.idTruePositives += b.idTruePositives
        return m
    }
}

package enum ClearMOTAccumulator {
    /// One frame's correspondence, for callers that measure more than the counts.
    package struct Match {
        package var frame: Int
        package var groundTruth: MOTBox
        package var result: MOTBox
        package var isSwitch: Bool
    }

    /// Scores one sequence's preprocessed frames (element `k` is frame `k + 1`).
    /// `onMatch` sees every match and switch, frame by frame.
    package static func evaluate(groundTruth: [[MOTBox]], results: [[MOTBox]], iouThreshold: Double = 0.5,
                                 onMatch: ((Match) -> Void)? = nil) -> ClearMOTCounts {
        let maxDistance = 1 - iouThreshold
        var counts = ClearMOTCounts()
        var objectIndex: [Int: Int] = [:], hypothesisIndex: [Int: Int] = [:]
        var lastHypothesis: [Int] = []        // per object: hypothesis id of its last match, or Int.min
        var appearances: [Int] = [], tracked: [Int] = []
        var matchedBefore: [Bool] = [], inMissRun: [Bool] = []
        var coOccurrence: [Int: Int] = [:]    // object index << 32 | hypothesis index -> admissible frames

        for frame in 0..<max(groundTruth.count, results.count) {
            let gt = frame < groundTruth.count ? groundTruth[frame] : []
            let hyp = frame < results.count ? results[frame] : []
            counts.objects += gt.count
            counts.predictions += hyp.count
            let objects = gt.map { g -> Int in
                if let k = objectIndex[g.id] { return k }
                let k = lastHypothesis.count
                objectIndex[g.id] = k
                lastHypothesis.append(Int.min)
                appearances.append(0); tracked.append(0); matchedBefore.append(false); inMissRun.append(false)
                return k
            }
            let hypotheses = hyp.map { h -> Int in
                if let k = hypothesisIndex[h.id] { return k }
                let k = hypothesisIndex.count
                hypothesisIndex[h.id] = k
                return k
            }
            for k in objects { appearances[k] += 1 }
            var distance = [Double](repeating: .nan, count: gt.count * hyp.count)
            for i in gt.indices {
                for j in hyp.indices {
                    let d = 1 - EvaluationOverlap.motmetricsIoU(gt[i], hyp[j])
                    guard d <= maxDistance else { continue }
                    distance[i * hyp.count + j] = d
                    coOccurrence[objects[i] << 32 | hypotheses[j], default: 0] += 1
                }
            }
            var gtMatched = [Bool](repeating: false, count: gt.count)
            var hypMatched = [Bool](repeating: false, count: hyp.count)
            func record(_ i: Int, _ j: Int, isSwitch: Bool) {
                gtMatched[i] = true
                hypMatched[j] = true
                let k = objects[i]
                if isSwitch { counts.switches += 1 } else { counts.matches += 1 }
                counts.distanceSum += distance[i * hyp.count + j]
                lastHypothesis[k] = hyp[j].id
                tracked[k] += 1
                if inMissRun[k] { counts.fragmentations += 1; inMissRun[k] = false }
                matchedBefore[k] = true
                onMatch?(Match(frame: frame + 1, groundTruth: gt[i], result: hyp[j], isSwitch: isSwitch))
            }
            if !gt.isEmpty && !hyp.isEmpty {
                // 1. Last frame's correspondences that are still admissible.
                for i in gt.indices {
                    let previous = lastHypothesis[objects[i]]
                    guard previous != Int.min,
                          let j = hyp.indices.first(where: { !hypMatched[$0] && hyp[$0].id == previous }),
                          !distance[i * hyp.count + j].isNaN else { continue }
                    record(i, j, isSwitch: false)
                }
                // 2. The rest: most admissible pairs, then least total distance.
                let freeGT = gt.indices.filter { !gtMatched[$0] }
                let freeHyp = hyp.indices.filter { !hypMatched[$0] }
                var largest = 0.0, anyAdmissible = false
                for i in freeGT { for j in freeHyp where !distance[i * hyp.count + j].isNaN {
                    anyAdmissible = true
                    largest = max(largest, abs(distance[i * hyp.count + j]))
                } }
                if anyAdmissible {
                    // py-motmetrics' stand-in for a missing edge: 2·r·c + 1 with c = max |cost| + 1.
                    let missing = 2 * Double(min(freeGT.count, freeHyp.count)) * (largest + 1) + 1
                    var costs = [Double]()
                    costs.reserveCapacity(freeGT.count * freeHyp.count)
                    for i in freeGT { for j in freeHyp {
                        let d = distance[i * hyp.count + j]
                        costs.append(d.isNaN ? missing : d)
                    } }
                    if let assignment = try? LinearAssignment.solve(costs: costs, rows: freeGT.count, columns: freeHyp.count) {
                        for (r, c) in assignment.enumerated() {
                            guard let c else { continue }
                            let i = freeGT[r], j = freeHyp[c]
                            guard !distance[i * hyp.count + j].isNaN else { continue }
                            let previous = lastHypothesis[objects[i]]
                            record(i, j, isSwitch: previous != Int.min && previous != hyp[j].id)
                        }
                    }
                }
            }
            for i in gt.indices where !gtMatched[i] {
                counts.misses += 1
                if matchedBefore[objects[i]] { inMissRun[objects[i]] = true }
            }
            counts.falsePositives += hypMatched.lazy.filter { !$0 }.count
        }

        counts.uniqueObjects = appearances.count
        for k in appearances.indices {
            let ratio = Double(tracked[k]) / Double(appearances[k])
            if ratio >= 0.8 { counts.mostlyTracked += 1 } else if ratio >= 0.2 { counts.partiallyTracked += 1 } else { counts.mostlyLost += 1 }
        }
        counts.idTruePositives = identityTruePositives(coOccurrence, objects: appearances.count, hypotheses: hypothesisIndex.count)
        return counts
    }

    /// The largest total of admissible frames over one-to-one pairings of identities.
    static func identityTruePositives(_ coOccurrence: [Int: Int], objects: Int, hypotheses: Int) -> Int {
        guard objects > 0, hypotheses > 0, !coOccurrence.isEmpty else { return 0 }
        // Only identities that are ever admissible together take part.
        var rowOf: [Int: Int] = [:], columnOf: [Int: Int] = [:]
        for key in coOccurrence.keys {
            if rowOf[key >> 32] == nil { rowOf[key >> 32] = rowOf.count }
            if columnOf[key & 0xFFFF_FFFF] == nil { columnOf[key & 0xFFFF_FFFF] = columnOf.count }
        }
        var costs = [Double](repeating: 0, count: rowOf.count * columnOf.count)
        for (key, frames) in coOccurrence {
            guard let r = rowOf[key >> 32], let c = columnOf[key & 0xFFFF_FFFF] else { continue }
            costs[r * columnOf.count + c] = -Double(frames)
        }
        guard let assignment = try? LinearAssignment.solve(costs: costs, rows: rowOf.count, columns: columnOf.count) else { return 0 }
        return Int(-LinearAssignment.totalCost(of: assignment, costs: costs, columns: columnOf.count))
    }
}
