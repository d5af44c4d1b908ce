import DetectorModelFile
import DetectorImage
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

    /// The scores in the window, oldest first.
    var chronological: [Float] {
        guard scores.count == capacity else { return scores }
        return Array(scores[next...] + scores[..<next])
    }

    /// The `q`-quantile of the window (the lowest score at or above a fraction `q` of the
    /// scores); -infinity when empty, so every detection is then "high". Found by selection
    /// (expected linear time), not by sorting the window every frame.
    func quantile(_ q: Float) -> Float {
        guard !scores.isEmpty else { return -.infinity }
        let rank = min(Int((Float(scores.count) * min(max(q, 0), 1)).rounded(.down)), scores.count - 1)
        var copy = scores
        return copy.withUnsafeMutableBufferPointer { values in
            var low = 0, high = values.count - 1
            while low < high {
                // Partition around the middle value (Hoare); keep the side that holds `rank`.
                let pivot = values[(low + high) / 2]
                var i = low, j = high
                while i <= j {
                    while values[i] < pivot { i += 1 }
                    while values[j] > pivot { j -= 1 }
                    if i <= j {
                        values.swapAt(i, j)
                        i += 1
                        j -= 1
                    }
                }
                if rank <= j { high = j } else if rank >= i { low = i } else { return values[rank] }
            }
            return values[rank]
        }
    }
}
