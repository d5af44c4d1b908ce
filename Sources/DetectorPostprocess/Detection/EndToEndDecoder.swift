import DetectorModelFile
import DetectorImage
import Foundation

/// Reads the output of an end-to-end (NMS-free) detector — YOLOv10, YOLO26 or RT-DETR-style
/// exports whose graph already gives the final detections. No NMS is applied: only the score
/// threshold here, and the task's allow/deny list and max results after it.
///
/// Layouts of the one output `[1, N, K]`:
/// - K = 6: x1, y1, x2, y2, score, class index (rounded to the nearest whole number) per row;
/// - K ≥ 5, K ≠ 6: x1, y1, x2, y2 and K − 4 class scores; the best class (first maximum) and its score.
///
/// Units: corners in input pixels, or normalized to 0…1 of the input when no corner of any
/// row exceeds `normalizedLimit` (1.5: a detector's pixel boxes on a model input of 32 pixels
/// or more reach beyond it, normalized boxes stay within 0…1 plus a margin); `boxUnits` forces them.
/// Rows with a non-finite value or a negative class are skipped.
///
/// ```swift
/// let decoder = EndToEndDecoder(scoreThreshold: 0.25)
/// let found = try decoder.decode(output, shape: [1, 300, 6], inputWidth: 640, inputHeight: 640)
/// ```
public struct EndToEndDecoder: Sendable, Equatable {
    /// Rows scoring below are dropped (nil: none are).
    public var scoreThreshold: Float?
    /// Boxes count as normalized when the largest corner value of all rows is ≤ this.
    public var normalizedLimit: Double
    /// Force the units instead of detecting them.
    public var boxUnits: YoloBoxUnits?

    public init(scoreThreshold: Float? = nil, normalizedLimit: Double = 1.5, boxUnits: YoloBoxUnits? = nil) {
        self.scoreThreshold = scoreThreshold
        self.normalizedLimit = normalizedLimit
        self.boxUnits = boxUnits
    }

    /// The class count a `[1, N, K]` output implies: nil for K = 6 (a class index column), else K − 4.
    public static func classCount(columns: Int) -> Int? { columns == 6 ? nil : columns - 4 }

    /// Decodes one dequantized output tensor.
    /// - Returns: detections in input pixels, by descending score (equal scores keep row order),
    ///   and the units found.
    /// - Throws: `DetectionError.tensorMismatch` for a shape other than `[1, N, K ≥ 5]`.
    public func decode(_ output: [Float], shape: [Int], inputWidth: Int, inputHeight: Int) throws -> [YoloDetection] {
        try decodeWithUnits(output, shape: shape, inputWidth: inputWidth, inputHeight: inputHeight).detections
    }

    /// Like `decode`, also returning the box units used.
    public func decodeWithUnits(_ output: [Float], shape: [Int], inputWidth: Int, inputHeight: Int)
        throws -> (detections: [YoloDetection], units: YoloBoxUnits) {
        guard shape.count == 3, shape[0] == 1, shape[2] >= 5, shape[2] <= DetectionLimits.maxValuesPerBox + 4,
              let total = elementCount(shape), total == output.count else {
            throw DetectionError.tensorMismatch(tensor: "end-to-end output", expected: "[1, N, 6] (x1, y1, x2, y2, score, class) or [1, N, 4 + C]",
                                                actual: "shape \(shapeText(shape)) with \(output.count) values")
        }
        guard inputWidth > 0, inputHeight > 0 else {
            throw DetectionError.invalidOption(name: "input size", reason: "must be positive, got \(inputWidth)x\(inputHeight)")
        }
        if let t = scoreThreshold, t.isNaN {
            throw DetectionError.invalidOption(name: "scoreThreshold", reason: "must be a number")
        }
        let rows = shape[1], k = shape[2]
        var units = boxUnits
        if units == nil {
            var largest = -Double.infinity
            for r in 0..<rows {
                for j in 0..<4 where output[r * k + j].isFinite { largest = max(largest, Double(output[r * k + j])) }
            }
            units = largest <= normalizedLimit ? .normalized : .pixels
        }
        let sx = units == .normalized ? Double(inputWidth) : 1, sy = units == .normalized ? Double(inputHeight) : 1
        var found: [YoloDetection] = []
        for r in 0..<rows {
            let o = r * k
            let score: Float, cls: Int
            if k == 6 {
                let c = output[o + 5].rounded()
                guard c.isFinite, c >= 0, c < Float(Int32.max) else { continue }
                score = output[o + 4]
                cls = Int(c)
            } else {
                var best = output[o + 4], index = 0
                for j in 1..<(k - 4) where output[o + 4 + j] > best {
                    best = output[o + 4 + j]
                    index = j
                }
                score = best
                cls = index
            }
            guard score.isFinite, (0..<4).allSatisfy({ output[o + $0].isFinite }) else { continue }
            if let t = scoreThreshold, score < t { continue }
            found.append(YoloDetection(x1: Double(output[o]) * sx, y1: Double(output[o + 1]) * sy,
                                       x2: Double(output[o + 2]) * sx, y2: Double(output[o + 3]) * sy,
                                       score: Double(score), classIndex: cls))
        }
        let order = found.indices.sorted { a, b in found[a].score != found[b].score ? found[a].score > found[b].score : a < b }
        return (order.map { found[$0] }, units ?? .pixels)
    }
}
