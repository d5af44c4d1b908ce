/// The last few class votes of one track, used to report a stable label when the detector
/// flips between classes (a poodle that is `dog` in one frame and `teddy bear` in the next).
///
/// The reported class is the one with the largest sum of detection scores over the window;
/// a tie goes to the class seen most recently. Detections without a class do not vote.
struct LabelHistory: Sendable {
    let capacity: Int
    private var classes: [Int] = []
    private var scores: [Float] = []
    private var next = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        classes.reserveCapacity(self.capacity)
        scores.reserveCapacity(self.capacity)
    }

    mutating func add(classIndex: Int?, score: Float) {
        guard let classIndex else { return }
        let weight = score.isFinite ? max(score, 0) : 0
        if classes.count < capacity {
            classes.append(classIndex)
            scores.append(weight)
        } else {
            classes[next] = classIndex
            scores[next] = weight
        }
        next = (next + 1) % capacity
    }

    /// The smoothed class, or nil when no detection so far had a class.
    var smoothedClass: Int? {
        let count = classes.count
        guard count > 0 else { return nil }
        // Visit votes from oldest to newest; the last write of a class is its recency.
        let start = count < capacity ? 0 : next
        var seen: [Int] = []
        var totals: [Float] = []
        var recency: [Int] = []
        for step in 0..<count {
            let i = (start + step) % count
            if let k = seen.firstIndex(of: classes[i]) {
                totals[k] += scores[i]
                recency[k] = step
            } else {
                seen.append(classes[i])
                totals.append(scores[i])
                recency.append(step)
            }
        }
        var best = 0
        for k in 1..<seen.count where totals[k] > totals[best] || (totals[k] == totals[best] && recency[k] > recency[best]) {
            best = k
        }
        return seen[best]
    }
}
