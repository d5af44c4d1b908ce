import Foundation

/// Where each box edge sits among the 4 values of a location row (TFLite metadata's
/// `BoundingBoxProperties.index`, order left, top, right, bottom).
public struct BoxCornerIndices: Sendable, Equatable, Codable {
    public var left: Int
    public var top: Int
    public var right: Int
    public var bottom: Int

    public init(left: Int, top: Int, right: Int, bottom: Int) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }

    /// `TFLite_Detection_PostProcess`'s own layout `[ymin, xmin, ymax, xmax]` (metadata index `[1, 0, 3, 2]`).
    public static let tflitePostProcess = BoxCornerIndices(left: 1, top: 0, right: 3, bottom: 2)

    /// From a metadata `index` array `[left, top, right, bottom]`; nil unless it is a
    /// permutation of 0…3.
    public init?(metadataIndex: [Int]) {
        guard metadataIndex.count == 4, Set(metadataIndex) == [0, 1, 2, 3] else { return nil }
        self.init(left: metadataIndex[0], top: metadataIndex[1], right: metadataIndex[2], bottom: metadataIndex[3])
    }

    var isPermutation: Bool { Set([left, top, right, bottom]) == [0, 1, 2, 3] }
}

/// The post-filters MediaPipe Tasks applies to a model's detections, in its order.
public struct DetectionFilterOptions: Sendable, Equatable {
    /// Keep detections with `score >= scoreThreshold` (nil: keep all).
    public var scoreThreshold: Float?
    /// Stop after this many detections (nil or −1: no limit; 0 is an error).
    public var maxResults: Int?
    /// Class allowlist / denylist by name (at most one of them).
    public var categoryAllowlist: [String]
    public var categoryDenylist: [String]

    public init(scoreThreshold: Float? = nil, maxResults: Int? = nil,
                categoryAllowlist: [String] = [], categoryDenylist: [String] = []) {
        self.scoreThreshold = scoreThreshold
        self.maxResults = maxResults
        self.categoryAllowlist = categoryAllowlist
        self.categoryDenylist = categoryDenylist
    }

    /// MediaPipe's option checks: `maxResults` 0 and allow + deny together are errors.
    public func validate() throws {
        if let m = maxResults, m == 0 || m < -1 {
            throw DetectionError.invalidOption(name: "maxResults", reason: "value must be positive or -1 (no limit), got \(m)")
        }
        if !categoryAllowlist.isEmpty && !categoryDenylist.isEmpty { throw DetectionError.allowlistAndDenylist }
        if let t = scoreThreshold, t.isNaN {
            throw DetectionError.invalidOption(name: "scoreThreshold", reason: "must be a number")
        }
    }
}

/// Decodes the four outputs of a `TFLite_Detection_PostProcess` model (locations,
/// classes, scores, count) the way MediaPipe Tasks' ObjectDetector does:
///
/// 1. score calibration, when the metadata has it, applied to every score with its
///    class as index (`ScoreCalibrationCalculator` with INDICES);
/// 2. then, walking the model's detections in output order, keep those with
///    `score ≥ scoreThreshold` whose class passes the allow/deny list, and stop once
///    `maxResults` are kept — filters act on the model's own (post-NMS) list, they
///    never bring back a box the model dropped;
/// 3. boxes whose width or height is negative or NaN are skipped;
/// 4. label and display name from the `LabelMap`.
///
/// Boxes are normalized `[left, top, right, bottom]` picked by `cornerIndices`, with
/// `width = right − left` in `Float`. For MediaPipe's pixel boxes apply
/// `DetectionProjection.identity` (stretched input) and then `PixelRect(truncating:)`.
///
/// ```swift
/// let decoder = try SsdPostProcessDecoder(labels: labels, filter: DetectionFilterOptions(scoreThreshold: 0.3))
/// let found = try decoder.decode(locations: out0, classes: out1, scores: out2, count: out3)
/// ```
public struct SsdPostProcessDecoder: Sendable {
    public let labels: LabelMap
    public let filterOptions: DetectionFilterOptions
    public let categoryFilter: CategoryFilter
    public let calibration: ScoreCalibration?
    public let cornerIndices: BoxCornerIndices

    /// - Throws: `DetectionError` for invalid filter options (allow + deny, maxResults 0,
    ///   a category list without labels) or corner indices that are not a permutation of 0…3.
    public init(labels: LabelMap, filter: DetectionFilterOptions = DetectionFilterOptions(),
                calibration: ScoreCalibration? = nil, cornerIndices: BoxCornerIndices = .tflitePostProcess) throws {
        try filter.validate()
        guard cornerIndices.isPermutation else {
            throw DetectionError.invalidOption(name: "cornerIndices", reason: "must be a permutation of 0, 1, 2, 3")
        }
        self.labels = labels
        self.filterOptions = filter
        self.categoryFilter = try CategoryFilter(allowlist: filter.categoryAllowlist,
                                                 denylist: filter.categoryDenylist, labels: labels)
        self.calibration = calibration
        self.cornerIndices = cornerIndices
    }

    /// Decodes one inference.
    /// - Parameters:
    ///   - locations: `[1, N, 4]` floats.
    ///   - classes: `[1, N]` class indices as floats.
    ///   - scores: `[1, N]`.
    ///   - count: `[1]`, the number of valid detections (clamped to `0…N`).
    public func decode(locations: [Float], classes: [Float], scores: [Float], count: [Float]) throws -> [Detection] {
        let n = scores.count
        guard classes.count == n else {
            throw DetectionError.tensorMismatch(tensor: "classes", expected: "\(n) values (as many as scores)", actual: "\(classes.count) values")
        }
        guard let needed = checkedProduct(n, 4), locations.count == needed else {
            throw DetectionError.tensorMismatch(tensor: "locations", expected: "\(n) × 4 values", actual: "\(locations.count) values")
        }
        guard count.count == 1, let c = count.first, c.isFinite else {
            throw DetectionError.tensorMismatch(tensor: "count", expected: "one finite value", actual: "\(count.count) values")
        }
        let valid = c <= 0 ? 0 : (c >= Float(n) ? n : Int(c))   // truncation, clamped to 0…N

        // 1. Calibration of every score (MediaPipe calibrates the whole tensor).
        var calibrated = scores
        if let calibration {
            for i in 0..<n {
                guard classes[i].isFinite, abs(classes[i]) < 1e9 else {
                    throw DetectionError.tensorMismatch(tensor: "classes", expected: "class indices", actual: "\(classes[i]) at position \(i)")
                }
                calibrated[i] = try calibration.calibrate(score: scores[i], classIndex: Int(classes[i]))
            }
        }

        // 2.–4. Filters in MediaPipe's order.
        let limit = filterOptions.maxResults.flatMap { $0 > 0 ? $0 : nil } ?? Int.max
        var output: [Detection] = []
        for i in 0..<valid {
            if output.count == limit { break }
            let classValue = classes[i]
            guard classValue.isFinite, abs(classValue) < 1e9 else { continue }
            let classIndex = Int(classValue)   // static_cast<int>: truncation
            guard categoryFilter.allows(classIndex) else { continue }
            let score = calibrated[i]
            if let t = filterOptions.scoreThreshold, score < t { continue }
            let row = i * 4
            let left = locations[row + cornerIndices.left]
            let top = locations[row + cornerIndices.top]
            let right = locations[row + cornerIndices.right]
            let bottom = locations[row + cornerIndices.bottom]
            let box = BoundingBox(xmin: left, ymin: top, xmax: right, ymax: bottom)
            if box.width < 0 || box.height < 0 || box.width.isNaN || box.height.isNaN { continue }
            output.append(Detection(box: box, score: score, classIndex: classIndex,
                                    label: labels.name(at: classIndex), displayName: labels.displayName(at: classIndex)))
        }
        return output
    }
}
