import DetectorModelFile
import DetectorImage
/// The last few class votes of one track, used to report a stable label when the detector
/// flips between classes (a poodle that is `dog` in one frame and `teddy bear` in the next).
///
/// The reported class is the one with the largest sum of detection scores over the window;
/// a tie goes to the class seen most recently. Detections without a class do not vote.
/// Totals are kept per class as votes enter and leave the window, so adding a vote and
/// reading the class cost O(number of distinct classes) and allocate nothing once warm.
struct LabelHistory: Sendable {
    let capacity: Int
    // Ring buffer of votes.
    private var classes: [Int] = []
    private var scores: [Float] = []
    private var next = 0
    private var step = 0
    // Per distinct class in the window: total score, vote count, step of the latest vote.
    private var tallyClass: [Int] = []
    private var tallyTotal: [Float] = []
    private var tallyCount: [Int] = []
    private var tallyLatest: [Int] = []

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    mutating func add(classIndex: Int?, score: Float) {
        guard let classIndex else { return }
        let weight = score.isFinite ? max(score, 0) : 0
        if classes.count < capacity {
            classes.append(classIndex)
            scores.append(weight)
        } else {
            remove(classIndex: classes[next], score: scores[next])
            classes[next] = classIndex
            scores[next] = weight
        }
        next = (next + 1) % capacity
        step += 1
        if let k = tallyClass.firstIndex(of: classIndex) {
            tallyTotal[k] += weight
            tallyCount[k] += 1
            tallyLatest[k] = step
        } else {
            tallyClass.append(classIndex)
            tallyTotal.append(weight)
            tallyCount.append(1)
            tallyLatest.append(step)
        }
    }

    private mutating func remove(classIndex: Int, score: Float) {
        guard let k = tallyClass.firstIndex(of: classIndex) else { return }
        tallyCount[k] -= 1
        if tallyCount[k] == 0 {
            tallyClass.remove(at: k)
            tallyTotal.remove(at: k)
            tallyCount.remove(at: k)
            tallyLatest.remove(at: k)
        } else {
            tallyTotal[k] -= score
        }
    }

    /// The votes in the window, oldest first (what a snapshot stores; adding them again in
    /// this order to an empty history gives the same smoothed class).
    var votes: [(classIndex: Int, score: Float)] {
        guard classes.count == capacity else { return Array(zip(classes, scores)).map { ($0.0, $0.1) } }
        return (0..<capacity).map { k in let i = (next + k) % capacity; return (classes[i], scores[i]) }
    }

    /// The smoothed class, or nil when no detection so far had a class.
    var smoothedClass: Int? {
        guard !tallyClass.isEmpty else { return nil }
        var best = 0
        for k in 1..<tallyClass.count
        where tallyTotal[k] > tallyTotal[best] || (tallyTotal[k] == tallyTotal[best] && tallyLatest[k] > tallyLatest[best]) {
            best = k
        }
        return tallyClass[best]
    }
}
