/// The scores of the last `capacity` detections, for a high/low split that follows the
/// detector's own score scale (`TrackerConfiguration.ScoreSplit.adaptive`).
struct ScoreWindow: Sendable {
    let capacity: Int
    private var scores: [Float] = []
    private var next = 0

    init(capacity: Int) { self.capacity = max(capacity, 1) }

    mutating func add(_ score: Float) {
        guard score.isFinite else { return }
        if scores.count < capacity {
            scores.append(score)
        } else {
            scores[next] = score
        }
        next = (next + 1) % capacity
    }

    /// The `q`-quantile of the window (the lowest score at or above a fraction `q` of the
    /// scores); -infinity when empty, so every detection is then "high".
    func quantile(_ q: Float) -> Float {
        guard !scores.isEmpty else { return -.infinity }
        let sorted = scores.sorted()
        let position = Int((Float(sorted.count) * min(max(q, 0), 1)).rounded(.down))
        return sorted[min(position, sorted.count - 1)]
    }
}
