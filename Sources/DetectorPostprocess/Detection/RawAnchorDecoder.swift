import DetectorModelFile
import DetectorImage
import Foundation

/// Order of the four box values in each raw box (MediaPipe's `BoxFormat`).
public enum RawBoxFormat: String, Sendable, Codable {
    /// y_center, x_center, h, w (MediaPipe's default).
    case yxhw
    /// x_center, y_center, w, h (what `reverse_output_order: true` selects).
    case xywh
    /// MediaPipe's XYXY variant: distances to the left, top, right, bottom edges.
    case xyxy
}

/// The options of MediaPipe's `TensorsToDetectionsCalculator` for raw-anchor models
/// (box tensor `[1, numBoxes, numCoords]`, score tensor `[1, numBoxes, numClasses]`),
/// with the proto's defaults. JSON keys are the camelCase names.
public struct RawAnchorDecoderOptions: Sendable, Equatable, Codable {
    public var numClasses: Int
    public var numBoxes: Int
    public var numCoords: Int
    public var boxCoordOffset: Int
    public var keypointCoordOffset: Int
    public var numKeypoints: Int
    public var numValuesPerKeypoint: Int
    /// Apply `1 / (1 + exp(−x))` to the raw scores.
    public var sigmoidScore: Bool
    /// Clamp raw scores to ±this before the sigmoid (nil: no clamping).
    public var scoreClippingThresh: Float?
    /// Selects `xywh` when `boxFormat` is not given (MediaPipe's rule).
    public var reverseOutputOrder: Bool
    /// Explicit box format; nil means `reverseOutputOrder ? .xywh : .yxhw`.
    public var boxFormat: RawBoxFormat?
    public var xScale: Float
    public var yScale: Float
    public var wScale: Float
    public var hScale: Float
    /// Sizes are `exp(raw / scale) · anchor` instead of `raw / scale · anchor`.
    public var applyExponentialOnBoxSize: Bool
    /// Boxes whose best score is below this are dropped (nil: keep all).
    public var minScoreThresh: Float?
    /// Mirror y (`ymin = 1 − ymax`, keypoint `y = 1 − y`).
    public var flipVertically: Bool
    /// Class indices that may not be a box's class (MediaPipe's `ignore_classes`).
    public var ignoreClasses: [Int]
    /// If non-empty, only these classes may be a box's class (MediaPipe's `allow_classes`).
    public var allowClasses: [Int]
    /// Stop after this many detections (nil or −1: no limit).
    public var maxResults: Int?

    public init(numClasses: Int = 1, numBoxes: Int, numCoords: Int, boxCoordOffset: Int = 0,
                keypointCoordOffset: Int = 0, numKeypoints: Int = 0, numValuesPerKeypoint: Int = 2,
                sigmoidScore: Bool = false, scoreClippingThresh: Float? = nil, reverseOutputOrder: Bool = false,
                boxFormat: RawBoxFormat? = nil, xScale: Float = 0, yScale: Float = 0, wScale: Float = 0,
                hScale: Float = 0, applyExponentialOnBoxSize: Bool = false, minScoreThresh: Float? = nil,
                flipVertically: Bool = false, ignoreClasses: [Int] = [], allowClasses: [Int] = [],
                maxResults: Int? = nil) {
        self.numClasses = numClasses
        self.numBoxes = numBoxes
        self.numCoords = numCoords
        self.boxCoordOffset = boxCoordOffset
        self.keypointCoordOffset = keypointCoordOffset
        self.numKeypoints = numKeypoints
        self.numValuesPerKeypoint = numValuesPerKeypoint
        self.sigmoidScore = sigmoidScore
        self.scoreClippingThresh = scoreClippingThresh
        self.reverseOutputOrder = reverseOutputOrder
        self.boxFormat = boxFormat
        self.xScale = xScale
        self.yScale = yScale
        self.wScale = wScale
        self.hScale = hScale
        self.applyExponentialOnBoxSize = applyExponentialOnBoxSize
        self.minScoreThresh = minScoreThresh
        self.flipVertically = flipVertically
        self.ignoreClasses = ignoreClasses
        self.allowClasses = allowClasses
        self.maxResults = maxResults
    }

    enum CodingKeys: String, CodingKey {
        case numClasses, numBoxes, numCoords, boxCoordOffset, keypointCoordOffset, numKeypoints
        case numValuesPerKeypoint, sigmoidScore, scoreClippingThresh, reverseOutputOrder, boxFormat
        case xScale, yScale, wScale, hScale, applyExponentialOnBoxSize, minScoreThresh, flipVertically
        case ignoreClasses, allowClasses, maxResults
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            numClasses: try c.decodeIfPresent(Int.self, forKey: .numClasses) ?? 1,
            numBoxes: try c.decode(Int.self, forKey: .numBoxes),
            numCoords: try c.decode(Int.self, forKey: .numCoords),
            boxCoordOffset: try c.decodeIfPresent(Int.self, forKey: .boxCoordOffset) ?? 0,
            keypointCoordOffset: try c.decodeIfPresent(Int.self, forKey: .keypointCoordOffset) ?? 0,
            numKeypoints: try c.decodeIfPresent(Int.self, forKey: .numKeypoints) ?? 0,
            numValuesPerKeypoint: try c.decodeIfPresent(Int.self, forKey: .numValuesPerKeypoint) ?? 2,
            sigmoidScore: try c.decodeIfPresent(Bool.self, forKey: .sigmoidScore) ?? false,
            scoreClippingThresh: try c.decodeIfPresent(Float.self, forKey: .scoreClippingThresh),
            reverseOutputOrder: try c.decodeIfPresent(Bool.self, forKey: .reverseOutputOrder) ?? false,
            boxFormat: try c.decodeIfPresent(RawBoxFormat.self, forKey: .boxFormat),
            xScale: try c.decodeIfPresent(Float.self, forKey: .xScale) ?? 0,
            yScale: try c.decodeIfPresent(Float.self, forKey: .yScale) ?? 0,
            wScale: try c.decodeIfPresent(Float.self, forKey: .wScale) ?? 0,
            hScale: try c.decodeIfPresent(Float.self, forKey: .hScale) ?? 0,
            applyExponentialOnBoxSize: try c.decodeIfPresent(Bool.self, forKey: .applyExponentialOnBoxSize) ?? false,
            minScoreThresh: try c.decodeIfPresent(Float.self, forKey: .minScoreThresh),
            flipVertically: try c.decodeIfPresent(Bool.self, forKey: .flipVertically) ?? false,
            ignoreClasses: try c.decodeIfPresent([Int].self, forKey: .ignoreClasses) ?? [],
            allowClasses: try c.decodeIfPresent([Int].self, forKey: .allowClasses) ?? [],
            maxResults: try c.decodeIfPresent(Int.self, forKey: .maxResults))
    }

    /// The box format in effect (`boxFormat`, else from `reverseOutputOrder`).
    public var effectiveBoxFormat: RawBoxFormat { boxFormat ?? (reverseOutputOrder ? .xywh : .yxhw) }

    /// Checks the options the way MediaPipe's `LoadOptions` does, plus bounds that keep
    /// every index inside a box row.
    public func validate() throws {
        func bad(_ name: String, _ reason: String) -> DetectionError { .invalidOption(name: name, reason: reason) }
        guard numBoxes > 0, numBoxes <= DetectionLimits.maxBoxes else {
            throw bad("numBoxes", "must be in 1…\(DetectionLimits.maxBoxes), got \(numBoxes)")
        }
        guard numClasses > 0, numClasses <= DetectionLimits.maxValuesPerBox else {
            throw bad("numClasses", "must be in 1…\(DetectionLimits.maxValuesPerBox), got \(numClasses)")
        }
        guard numCoords >= 4, numCoords <= DetectionLimits.maxValuesPerBox else {
            throw bad("numCoords", "must be in 4…\(DetectionLimits.maxValuesPerBox), got \(numCoords)")
        }
        guard numValuesPerKeypoint == 2 else {
            throw bad("numValuesPerKeypoint", "only 2 (x, y) is supported, got \(numValuesPerKeypoint)")
        }
        guard numKeypoints >= 0, numKeypoints <= DetectionLimits.maxValuesPerBox,
              let kpValues = checkedProduct(numKeypoints, numValuesPerKeypoint),
              kpValues + 4 == numCoords else {
            throw bad("numCoords", "must equal numKeypoints × numValuesPerKeypoint + 4 = \(numKeypoints) × \(numValuesPerKeypoint) + 4, got \(numCoords)")
        }
        guard boxCoordOffset >= 0, boxCoordOffset <= numCoords - 4 else {
            throw bad("boxCoordOffset", "must be in 0…\(numCoords - 4), got \(boxCoordOffset)")
        }
        if numKeypoints > 0 {
            guard keypointCoordOffset >= 0, keypointCoordOffset <= numCoords - kpValues else {
                throw bad("keypointCoordOffset", "must be in 0…\(numCoords - kpValues) so the keypoints fit in a row of \(numCoords), got \(keypointCoordOffset)")
            }
        }
        for (name, v) in [("xScale", xScale), ("yScale", yScale), ("wScale", wScale), ("hScale", hScale)] {
            guard v.isFinite, v != 0 else { throw bad(name, "must be finite and non-zero, got \(v)") }
        }
        if let t = scoreClippingThresh, !(t >= 0) {
            throw bad("scoreClippingThresh", "must be zero or positive, got \(t)")
        }
        if !allowClasses.isEmpty && !ignoreClasses.isEmpty {
            throw bad("allowClasses/ignoreClasses", "only one of them may be given")
        }
        if let m = maxResults, m == 0 || m < -1 {
            throw bad("maxResults", "must be positive or -1 (no limit), got \(m)")
        }
    }
}

/// Decodes raw SSD outputs (box regressions relative to anchors, per-class scores)
/// into detections, exactly as MediaPipe's `TensorsToDetectionsCalculator` (CPU path).
///
/// Per box, in box order: the best allowed class (first maximum wins; scores clipped
/// and passed through a sigmoid when configured), the centre
/// `raw / scale · anchor.size + anchor.centre`, the size `raw / scale · anchor.size`
/// (or `exp`), corners `centre ± size / 2`, keypoints like centres. A box is dropped
/// when its score is below `minScoreThresh`, or its width/height is negative or NaN.
/// All arithmetic is `Float`, in MediaPipe's order. Output boxes are normalized to the
/// model input (before letterbox removal).
///
/// ```swift
/// let config = DetectorDecoderConfig.faceShortRange
/// let decoder = try RawAnchorDecoder(options: config.decoding!, anchors: SsdAnchorGenerator.generate(config.anchors!))
/// let candidates = try decoder.decode(boxes: regressors, boxesShape: [1, 896, 16],
///                                     scores: classificators, scoresShape: [1, 896, 1])
/// let faces = NonMaxSuppression.weighted(candidates, iouThreshold: 0.3)
/// ```
public struct RawAnchorDecoder: Sendable {
    public let options: RawAnchorDecoderOptions
    public let anchors: [Anchor]

    /// - Throws: `DetectionError` when the options are invalid or the anchor count is not `numBoxes`.
    public init(options: RawAnchorDecoderOptions, anchors: [Anchor]) throws {
        try options.validate()
        guard anchors.count == options.numBoxes else {
            throw DetectionError.invalidOption(name: "numBoxes",
                                               reason: "the anchors give \(anchors.count) boxes but numBoxes is \(options.numBoxes)")
        }
        self.options = options
        self.anchors = anchors
    }

    /// Checks a tensor shape: `[1, n, k]` or `[1, 1, n, k]` (MediaPipe accepts both).
    static func checkShape(_ shape: [Int], count: Int, rows: Int, columns: Int, name: String) throws {
        let ok: Bool
        switch shape.count {
        case 3: ok = shape[0] == 1 && shape[1] == rows && shape[2] == columns
        case 4: ok = shape[0] == 1 && shape[1] == 1 && shape[2] == rows && shape[3] == columns
        default: ok = false
        }
        guard ok, elementCount(shape) == count else {
            let values = checkedProduct(rows, columns).map(String.init) ?? "too many"
            throw DetectionError.tensorMismatch(tensor: name, expected: "shape [1, \(rows), \(columns)] (\(values) values)",
                                                actual: "shape \(shapeText(shape)) with \(count) values")
        }
    }

    /// Decodes one inference's raw outputs.
    /// - Parameters:
    ///   - boxes: the raw box tensor, `numBoxes × numCoords` floats (dequantized).
    ///   - scores: the raw score tensor, `numBoxes × numClasses` floats.
    /// - Returns: detections in box order (not sorted, not suppressed).
    public func decode(boxes: [Float], boxesShape: [Int], scores: [Float], scoresShape: [Int]) throws -> [Detection] {
        let o = options
        try Self.checkShape(boxesShape, count: boxes.count, rows: o.numBoxes, columns: o.numCoords, name: "boxes")
        try Self.checkShape(scoresShape, count: scores.count, rows: o.numBoxes, columns: o.numClasses, name: "scores")

        let allowed = classFilter()
        let format = o.effectiveBoxFormat
        var output: [Detection] = []
        let limit = o.maxResults.flatMap { $0 > 0 ? $0 : nil } ?? Int.max
        boxes.withUnsafeBufferPointer { raw in
            scores.withUnsafeBufferPointer { rawScores in
                for i in 0..<o.numBoxes {
                    if output.count == limit { break }
                    // Best class.
                    var classID = -1
                    var best = -Float.greatestFiniteMagnitude
                    let sBase = i * o.numClasses
                    for c in 0..<o.numClasses where allowed(c) {
                        var s = rawScores[sBase + c]
                        if o.sigmoidScore {
                            if let t = o.scoreClippingThresh {
                                s = s < -t ? -t : s
                                s = s > t ? t : s
                            }
                            s = 1.0 / (1.0 + expf(-s))
                        }
                        if best < s {
                            best = s
                            classID = c
                        }
                    }
                    // ConvertToDetection: the class must be allowed and pass the threshold.
                    guard classID >= 0 else { continue }
                    if let t = o.minScoreThresh, best < t { continue }

                    let anchor = anchors[i]
                    let base = i * o.numCoords + o.boxCoordOffset
                    var yc: Float, xc: Float, h: Float, w: Float
                    switch format {
                    case .yxhw:
                        yc = raw[base]; xc = raw[base + 1]; h = raw[base + 2]; w = raw[base + 3]
                    case .xywh:
                        xc = raw[base]; yc = raw[base + 1]; w = raw[base + 2]; h = raw[base + 3]
                    case .xyxy:
                        xc = (-raw[base] + raw[base + 2]) / 2
                        yc = (-raw[base + 1] + raw[base + 3]) / 2
                        w = raw[base + 2] + raw[base]
                        h = raw[base + 3] + raw[base + 1]
                    }
                    xc = xc / o.xScale * anchor.width + anchor.xCenter
                    yc = yc / o.yScale * anchor.height + anchor.yCenter
                    if o.applyExponentialOnBoxSize {
                        h = expf(h / o.hScale) * anchor.height
                        w = expf(w / o.wScale) * anchor.width
                    } else {
                        h = h / o.hScale * anchor.height
                        w = w / o.wScale * anchor.width
                    }
                    let ymin = yc - h / 2, xmin = xc - w / 2
                    let ymax = yc + h / 2, xmax = xc + w / 2
                    let width = xmax - xmin, height = ymax - ymin
                    if width < 0 || height < 0 || width.isNaN || height.isNaN { continue }
                    let box = BoundingBox(xmin: xmin, ymin: o.flipVertically ? 1 - ymax : ymin,
                                          width: width, height: height)

                    var keypoints: [Keypoint] = []
                    if o.numKeypoints > 0 {
                        keypoints.reserveCapacity(o.numKeypoints)
                        for k in 0..<o.numKeypoints {
                            let off = i * o.numCoords + o.keypointCoordOffset + k * o.numValuesPerKeypoint
                            let kx: Float, ky: Float
                            if format == .yxhw {
                                ky = raw[off]; kx = raw[off + 1]
                            } else {
                                kx = raw[off]; ky = raw[off + 1]
                            }
                            let x = kx / o.xScale * anchor.width + anchor.xCenter
                            let y = ky / o.yScale * anchor.height + anchor.yCenter
                            keypoints.append(Keypoint(x: x, y: o.flipVertically ? 1 - y : y))
                        }
                    }
                    output.append(Detection(box: box, score: best, classIndex: classID, keypoints: keypoints))
                }
            }
        }
        return output
    }

    private func classFilter() -> (Int) -> Bool {
        if !options.allowClasses.isEmpty {
            let set = Set(options.allowClasses)
            return { set.contains($0) }
        }
        if !options.ignoreClasses.isEmpty {
            let set = Set(options.ignoreClasses)
            return { !set.contains($0) }
        }
        return { _ in true }
    }
}
