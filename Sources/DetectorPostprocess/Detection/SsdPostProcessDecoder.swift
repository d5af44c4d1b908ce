import DetectorModelFile
import DetectorImage
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

/// Decodes the four outputs of a `TFLite_Detection_PostProcess` model (locations,
/// classes, scores, count) the way MediaPipe Tasks' ObjectDetector does:
///
/// 1. score calibration, when the metadata has it, applied to every score with its
///    class as index (`ScoreCalibrationCalculator` with INDICES);
/// 2. the model's first `count` detections in output order; boxes whose width or height is
///    negative or NaN, and class values that are not numbers, are skipped;
/// 3. label and display name from the `LabelMap`.
///
/// MediaPipe's result filters (allow/deny list, score threshold, max results) then act on this
/// list: `DetectionFilter`.
///
/// Boxes are normalized `[left, top, right, bottom]` picked by `cornerIndices`, with
/// `width = right − left` in `Float`.
///
/// ```swift
/// let decoder = try SsdPostProcessDecoder(labels: labels)
/// let found = try decoder.decode(locations: out0, classes: out1, scores: out2, count: out3)
/// let kept = try DetectionFilter(scoreThreshold: 0.3).apply(found)
/// ```
public struct SsdPostProcessDecoder: Sendable {
    public let labels: LabelMap
    public let calibration: ScoreCalibration?
    public let cornerIndices: BoxCornerIndices

    /// - Throws: `DetectionError.invalidOption` for corner indices that are not a permutation of 0…3.
    public init(labels: LabelMap, calibration: ScoreCalibration? = nil, cornerIndices: BoxCornerIndices = .tflitePostProcess) throws {
        guard cornerIndices.isPermutation else {
            throw DetectionError.invalidOption(name: "cornerIndices", reason: "must be a permutation of 0, 1, 2, 3")
        }
        self.labels = labels
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

        // 2.–3. The valid detections, in output order.
        var output: [Detection] = []
        output.reserveCapacity(valid)
        for i in 0..<valid {
            let classValue = classes[i]
            guard classValue.isFinite, abs(classValue) < 1e9 else { continue }
            let classIndex = Int(classValue)   // static_cast<int>: truncation
            let score = calibrated[i]
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
