import DetectorModelFile
import DetectorImage
/// The result filters MediaPipe Tasks applies after decoding, in its order: walking the
/// detections as they come (the decoder's or NMS's order), keep those whose class passes the
/// allow/deny list and whose score is at least `scoreThreshold`, and stop once `maxResults`
/// are kept. Filters act on the list they are given: they never bring back a dropped box.
/// `ObjectDetector` applies it after mapping boxes to image pixels.
///
/// ```swift
/// let filter = try DetectionFilter(scoreThreshold: 0.3, maxResults: 5, categoryAllowlist: ["cat", "dog"], labels: labels)
/// let kept = filter.apply(try decoder.decode(locations: out0, classes: out1, scores: out2, count: out3))
/// ```
public struct DetectionFilter: Sendable, Equatable {
    /// Keep detections with `score >= scoreThreshold` (nil: keep all).
    public let scoreThreshold: Float?
    /// Stop after this many detections (nil: no limit).
    public let maxResults: Int?
    /// The class allowlist or denylist.
    public let categories: CategoryFilter

    /// MediaPipe's option checks: `maxResults` 0 (or below −1, which means no limit) and an
    /// allowlist together with a denylist are errors; so is a list without labels.
    /// - Throws: `DetectionError`.
    public init(scoreThreshold: Float? = nil, maxResults: Int? = nil,
                categoryAllowlist: [String] = [], categoryDenylist: [String] = [], labels: LabelMap = LabelMap(names: [])) throws {
        if let m = maxResults, m == 0 || m < -1 {
            throw DetectionError.invalidOption(name: "maxResults", reason: "value must be positive or -1 (no limit), got \(m)")
        }
        if let t = scoreThreshold, t.isNaN {
            throw DetectionError.invalidOption(name: "scoreThreshold", reason: "must be a number")
        }
        let categories = try CategoryFilter(allowlist: categoryAllowlist, denylist: categoryDenylist, labels: labels)
        self.init(scoreThreshold: scoreThreshold, maxResults: maxResults.flatMap { $0 > 0 ? $0 : nil }, categories: categories)
    }

    /// Options checked already (a task's); `maxResults` nil or positive.
    package init(scoreThreshold: Float?, maxResults: Int?, categories: CategoryFilter) {
        self.scoreThreshold = scoreThreshold
        self.maxResults = maxResults
        self.categories = categories
    }

    /// The detections that pass, in their order.
    public func apply(_ detections: [Detection]) -> [Detection] {
        apply(detections, score: \.score, classIndex: \.classIndex)
    }

    /// The items that pass, in their order, for any item with a score and a class index.
    package func apply<Item>(_ items: [Item], score: (Item) -> Float, classIndex: (Item) -> Int) -> [Item] {
        var kept: [Item] = []
        kept.reserveCapacity(min(items.count, maxResults ?? items.count))
        for item in items {
            if let m = maxResults, kept.count >= m { break }
            guard categories.allows(classIndex(item)) else { continue }
            if let t = scoreThreshold, !(score(item) >= t) { continue }
            kept.append(item)
        }
        return kept
    }
}
