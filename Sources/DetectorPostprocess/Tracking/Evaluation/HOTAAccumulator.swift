import DetectorModelFile
import DetectorImage
/// HOTA (Luiten et al., IJCV 2021) as TrackEval's `metrics/hota.py` computes it: for each of the
/// 19 localisation thresholds alpha = 0.05, 0.10, …, 0.95, detections are matched per frame by the
/// Hungarian algorithm on IoU × the pair's global alignment score (how well their identities
/// overlap over the whole sequence), a pair counting when its IoU >= alpha.
package struct HOTACounts: Sendable, Equatable {
    /// The thresholds, computed as NumPy's `arange(0.05, 0.99, 0.05)` computes them.
    package static let alphas: [Double] = (0..<19).map { 0.05 + Double($0) * 0.05 }

    package var truePositives = [Int](repeating: 0, count: 19)
    package var falseNegatives = [Int](repeating: 0, count: 19)
    package var falsePositives = [Int](repeating: 0, count: 19)
    /// Per alpha: AssA, AssRe, AssPr (averages over the true positives) and LocA.
    package var associationAccuracy = [Double](repeating: 0, count: 19)
    package var associationRecall = [Double](repeating: 0, count: 19)
    package var associationPrecision = [Double](repeating: 0, count: 19)
    package var localisationAccuracy = [Double](repeating: 0, count: 19)

    package var detectionAccuracy: [Double] {
        (0..<19).map { Double(truePositives[$0]) / Double(max(1, truePositives[$0] + falseNegatives[$0] + falsePositives[$0])) }
    }
    package var detectionRecall: [Double] {
        (0..<19).map { Double(truePositives[$0]) / Double(max(1, truePositives[$0] + falseNegatives[$0])) }
    }
    package var detectionPrecision: [Double] {
        (0..<19).map { Double(truePositives[$0]) / Double(max(1, truePositives[$0] + falsePositives[$0])) }
    }
    package var hota: [Double] {
        zip(detectionAccuracy, associationAccuracy).map { ($0 * $1).squareRoot() }
    }

    /// TrackEval's `combine_sequences`: counts summed, association scores and LocA weighted by
    /// each sequence's true positives.
    package static func combined(_ parts: [HOTACounts]) -> HOTACounts {
        var c = HOTACounts()
        for a in 0..<19 {
            c.truePositives[a] = parts.reduce(0) { $0 + $1.truePositives[a] }
            c.falseNegatives[a] = parts.reduce(0) { $0 + $1.falseNegatives[a] }
            c.falsePositives[a] = parts.reduce(0) { $0 + $1.falsePositives[a] }
            let tp = Double(c.truePositives[a])
            c.associationAccuracy[a] = parts.reduce(0) { $0 + $1.associationAccuracy[a] * Double($1.truePositives[a]) } / max(1, tp)
            c.associationRecall[a] = parts.reduce(0) { $0 + $1.associationRecall[a] * Double($1.truePositives[a]) } / max(1, tp)
            c.associationPrecision[a] = parts.reduce(0) { $0 + $1.associationPrecision[a] * Double($1.truePositives[a]) } / max(1, tp)
            let locSum = parts.reduce(0) { $0 + $1.localisationAccuracy[a] * Double($1.truePositives[a]) }
            c.localisationAccuracy[a] = max(1e-10, locSum) / max(1e-10, tp)
        }
        return c
    }
}

package enum HOTAAccumulator {
    /// Scores one sequence's preprocessed frames (element `k` is frame `k + 1`).
    package static func evaluate(groundTruth: [[MOTBox]], results: [[MOTBox]]) -> HOTACounts {
        let frameCount = max(groundTruth.count, results.count)
        var gtIndex: [Int: Int] = [:], trIndex: [Int: Int] = [:]
        var gtIDs: [[Int]] = [], trIDs: [[Int]] = [], similarity: [[Double]] = []
        gtIDs.reserveCapacity(frameCount); trIDs.reserveCapacity(frameCount); similarity.reserveCapacity(frameCount)
        for frame in 0..<frameCount {
            let gt = frame < groundTruth.count ? groundTruth[frame] : []
            let tr = frame < results.count ? results[frame] : []
            gtIDs.append(gt.map { g in
                if let k = gtIndex[g.id] { return k }
                gtIndex[g.id] = gtIndex.count
                return gtIndex.count - 1
            })
            trIDs.append(tr.map { t in
                if let k = trIndex[t.id] { return k }
                trIndex[t.id] = trIndex.count
                return trIndex.count - 1
            })
            var s = [Double](repeating: 0, count: gt.count * tr.count)
            for i in gt.indices { for j in tr.indices { s[i * tr.count + j] = EvaluationOverlap.trackEvalIoU(gt[i], tr[j]) } }
            similarity.append(s)
        }
        let numGT = gtIndex.count, numTR = trIndex.count
        var counts = HOTACounts()
        let totalGT = gtIDs.reduce(0) { $0 + $1.count }, totalTR = trIDs.reduce(0) { $0 + $1.count }
        if totalTR == 0 || totalGT == 0 {
            for a in 0..<19 {
                counts.falseNegatives[a] = totalTR == 0 ? totalGT : 0
                counts.falsePositives[a] = totalTR == 0 ? 0 : totalTR
                counts.localisationAccuracy[a] = 1
            }
            return counts
        }

        // Global alignment: per identity pair, the summed per-frame "similarity IoU".
        var potential = [Double](repeating: 0, count: numGT * numTR)
        var gtCount = [Double](repeating: 0, count: numGT), trCount = [Double](repeating: 0, count: numTR)
        for frame in 0..<frameCount {
            let g = gtIDs[frame], t = trIDs[frame], s = similarity[frame]
            for k in g { gtCount[k] += 1 }
            for k in t { trCount[k] += 1 }
            guard !g.isEmpty, !t.isEmpty else { continue }
            var rowSum = [Double](repeating: 0, count: g.count), columnSum = [Double](repeating: 0, count: t.count)
            for i in g.indices { for j in t.indices { rowSum[i] += s[i * t.count + j]; columnSum[j] += s[i * t.count + j] } }
            for i in g.indices {
                for j in t.indices {
                    let value = s[i * t.count + j]
                    let denominator = columnSum[j] + rowSum[i] - value
                    if denominator > EvaluationOverlap.epsilon { potential[g[i] * numTR + t[j]] += value / denominator }
                }
            }
        }
        var alignment = [Double](repeating: 0, count: numGT * numTR)
        for r in 0..<numGT {
            for c in 0..<numTR {
                let p = potential[r * numTR + c]
                alignment[r * numTR + c] = p / (gtCount[r] + trCount[c] - p)
            }
        }

        var matchCounts = [[Int]](repeating: [], count: 19)
        var locSums = [Double](repeating: 0, count: 19)
        for frame in 0..<frameCount {
            let g = gtIDs[frame], t = trIDs[frame], s = similarity[frame]
            if g.isEmpty || t.isEmpty {
                for a in 0..<19 { counts.falsePositives[a] += t.count; counts.falseNegatives[a] += g.count }
                continue
            }
            var costs = [Double](repeating: 0, count: g.count * t.count)
            for i in g.indices { for j in t.indices { costs[i * t.count + j] = -(alignment[g[i] * numTR + t[j]] * s[i * t.count + j]) } }
            guard let assignment = try? LinearAssignment.solve(costs: costs, rows: g.count, columns: t.count) else { continue }
            let pairs = assignment.enumerated().compactMap { r, c in c.map { (r, $0) } }
            for a in 0..<19 {
                let threshold = HOTACounts.alphas[a] - EvaluationOverlap.epsilon
                var matched = 0
                for (i, j) in pairs where s[i * t.count + j] >= threshold {
                    matched += 1
                    locSums[a] += s[i * t.count + j]
                    if matchCounts[a].isEmpty { matchCounts[a] = [Int](repeating: 0, count: numGT * numTR) }
                    matchCounts[a][g[i] * numTR + t[j]] += 1
                }
                counts.truePositives[a] += matched
                counts.falseNegatives[a] += g.count - matched
                counts.falsePositives[a] += t.count - matched
            }
        }
        for a in 0..<19 {
            let tp = Double(max(1, counts.truePositives[a]))
            var accuracy = 0.0, recall = 0.0, precision = 0.0
            if !matchCounts[a].isEmpty {
                for r in 0..<numGT {
                    for c in 0..<numTR {
                        let m = Double(matchCounts[a][r * numTR + c])
                        guard m > 0 else { continue }
                        accuracy += m * (m / max(1, gtCount[r] + trCount[c] - m))
                        recall += m * (m / max(1, gtCount[r]))
                        precision += m * (m / max(1, trCount[c]))
                    }
                }
            }
            counts.associationAccuracy[a] = accuracy / tp
            counts.associationRecall[a] = recall / tp
            counts.associationPrecision[a] = precision / tp
            counts.localisationAccuracy[a] = max(1e-10, locSums[a]) / max(1e-10, Double(counts.truePositives[a]))
        }
        return counts
    }
}
