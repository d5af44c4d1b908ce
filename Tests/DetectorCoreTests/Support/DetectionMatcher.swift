/// The detection goldens' match rule (`../shared/goldens/detections/README.md`, "Matching tolerance"):
/// same class, IoU ≥ 0.85, |Δscore| ≤ 0.05; greedy over references in descending score, each taking
/// the best unused matching candidate; references and candidates within 0.05 of the cut-off may go
/// unmatched without penalty.
struct MatchBox: CustomStringConvertible {
    var label: String
    var x: Double, y: Double, width: Double, height: Double
    var score: Double

    func iou(_ o: MatchBox) -> Double {
        let ix = max(0, min(x + width, o.x + o.width) - max(x, o.x))
        let iy = max(0, min(y + height, o.y + o.height) - max(y, o.y))
        let inter = ix * iy
        let union = width * height + o.width * o.height - inter
        return union > 0 ? inter / union : 0
    }

    var description: String {
        "\(label) \(String(format: "%.3f", score)) (\(Int(x)),\(Int(y)),\(Int(width))x\(Int(height)))"
    }
}

struct MatchOutcome {
    var matched = 0
    var missingPenalised: [MatchBox] = []
    var missingExcused = 0
    var extraPenalised: [MatchBox] = []
    var extraExcused = 0
    var passes: Bool { missingPenalised.isEmpty && extraPenalised.isEmpty }
}

enum DetectionMatcher {
    static func match(references: [MatchBox], candidates: [MatchBox], cutoff: Double,
                      iouBound: Double = 0.85, scoreBound: Double = 0.05) -> MatchOutcome {
        var outcome = MatchOutcome()
        var used = [Bool](repeating: false, count: candidates.count)
        for ref in references.sorted(by: { $0.score > $1.score }) {
            var best = -1
            var bestIoU = -1.0
            for (i, c) in candidates.enumerated() where !used[i] {
                guard c.label == ref.label, abs(c.score - ref.score) <= scoreBound else { continue }
                let iou = ref.iou(c)
                if iou >= iouBound && iou > bestIoU { best = i; bestIoU = iou }
            }
            if best >= 0 {
                used[best] = true
                outcome.matched += 1
            } else if abs(ref.score - cutoff) <= scoreBound {
                outcome.missingExcused += 1
            } else {
                outcome.missingPenalised.append(ref)
            }
        }
        for (i, c) in candidates.enumerated() where !used[i] {
            if abs(c.score - cutoff) <= scoreBound { outcome.extraExcused += 1 } else { outcome.extraPenalised.append(c) }
        }
        return outcome
    }
}
