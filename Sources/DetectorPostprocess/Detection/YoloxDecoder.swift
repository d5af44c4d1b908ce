import DetectorModelFile
import DetectorImage
import Foundation

/// Decodes YOLOX outputs (anchor-free, grid decoding left out of the graph) as YOLOX's own
/// demo does (`demo_postprocess`, then `multiclass_nms` class-aware), which
/// `shared/reference/yolox_goldens.py` specifies step by step:
///
/// - the `[1, N, 5 + C]` rows are the grid cells of strides 8, 16 and 32 over the input
///   (`W/s × H/s` cells each, row-major, the finest first); columns tx, ty, tw, th,
///   objectness, C class probabilities (sigmoids are in the graph);
/// - box centre `(t + grid) · stride`, size `exp(t) · stride`, in `Double`, input pixels;
/// - score = objectness × class probability (a `Float` product) for **every** class: each
///   (row, class) pair with score ≥ `scoreThreshold` is a candidate (one row may give two classes);
/// - greedy NMS in descending score order (equal scores: class, then row), suppressing later
///   candidates of the same class (any class when `classAware` is false) whose IoU with a kept
///   one is > `iouThreshold`; the IoU uses YOLOX's "+1" pixel convention on the boxes scaled
///   to image pixels (`imageScaleX/Y`); at most `maxDetections`.
///
/// Only `scoreThreshold`, `iouThreshold`, `maxDetections` and `classAware` of the options apply.
///
/// ```swift
/// let decoder = YoloxDecoder(numClasses: 80, options: YoloDecoderOptions(scoreThreshold: 0.3))
/// let found = try decoder.decode(output, shape: [1, 2100, 85], inputWidth: 320, inputHeight: 320)
/// ```
public struct YoloxDecoder: Sendable {
    /// Number of class columns after objectness (C of `[1, N, 5 + C]`).
    public var numClasses: Int
    /// Score threshold, NMS IoU, maximum count and class awareness.
    public var options: YoloDecoderOptions
    /// The strides of the grid levels, in row order.
    public var strides: [Int]

    public init(numClasses: Int, options: YoloDecoderOptions = YoloDecoderOptions(), strides: [Int] = [8, 16, 32]) {
        self.numClasses = numClasses
        self.options = options
        self.strides = strides
    }

    /// Number of rows (grid cells) the output has for this input size, or nil when a stride
    /// does not divide it.
    public func rowCount(inputWidth: Int, inputHeight: Int) -> Int? {
        guard inputWidth > 0, inputHeight > 0, !strides.isEmpty, strides.allSatisfy({ $0 > 0 }) else { return nil }
        var total = 0
        for s in strides {
            guard inputWidth % s == 0, inputHeight % s == 0 else { return nil }
            total += (inputWidth / s) * (inputHeight / s)
        }
        return total
    }

    /// Decodes one dequantized output tensor.
    /// - Parameters:
    ///   - imageScaleX, imageScaleY: image pixels per input pixel, for the "+1" IoU of the NMS
    ///     (YOLOX compares boxes in original-image pixels); 1 compares input pixels.
    /// - Returns: detections in input pixels, by descending score.
    /// - Throws: `DetectionError` for a shape that does not fit or bad options.
    public func decode(_ output: [Float], shape: [Int], inputWidth: Int, inputHeight: Int,
                       imageScaleX: Double = 1, imageScaleY: Double = 1) throws -> [YoloDetection] {
        guard numClasses > 0, numClasses <= DetectionLimits.maxValuesPerBox else {
            throw DetectionError.invalidOption(name: "numClasses", reason: "must be in 1…\(DetectionLimits.maxValuesPerBox), got \(numClasses)")
        }
        guard options.maxDetections > 0 else {
            throw DetectionError.invalidOption(name: "maxDetections", reason: "must be positive, got \(options.maxDetections)")
        }
        guard !options.scoreThreshold.isNaN, !options.iouThreshold.isNaN else {
            throw DetectionError.invalidOption(name: "scoreThreshold/iouThreshold", reason: "must be numbers")
        }
        guard imageScaleX.isFinite, imageScaleY.isFinite, imageScaleX > 0, imageScaleY > 0 else {
            throw DetectionError.invalidOption(name: "image scale", reason: "must be positive numbers")
        }
        let stride = 5 + numClasses
        guard let rows = rowCount(inputWidth: inputWidth, inputHeight: inputHeight) else {
            throw DetectionError.invalidOption(name: "input size", reason: "\(inputWidth)x\(inputHeight) is not a multiple of the strides \(strides)")
        }
        guard shape == [1, rows, stride], output.count == rows * stride else {
            throw DetectionError.tensorMismatch(tensor: "YOLOX output",
                                                expected: "[1, \(rows), \(stride)] (one row per grid cell of strides \(strides), \(numClasses) classes)",
                                                actual: "shape \(shapeText(shape)) with \(output.count) values")
        }
        // Grid position and stride of every row.
        var cells: [(gx: Double, gy: Double, s: Double)] = []
        cells.reserveCapacity(rows)
        for s in strides {
            let nx = inputWidth / s, ny = inputHeight / s
            for gy in 0..<ny {
                for gx in 0..<nx { cells.append((Double(gx), Double(gy), Double(s))) }
            }
        }
        struct Candidate { var row: Int32; var cls: Int32; var score: Float }
        var candidates: [Candidate] = []
        let threshold = options.scoreThreshold
        output.withUnsafeBufferPointer { p in
            guard let base = p.baseAddress else { return }
            for r in 0..<rows {
                let row = base + r * stride
                let objectness = row[4]
                for c in 0..<numClasses {
                    let score = objectness * row[5 + c]
                    if Double(score) >= threshold { candidates.append(Candidate(row: Int32(r), cls: Int32(c), score: score)) }
                }
            }
        }
        candidates.sort { a, b in
            if a.score != b.score { return a.score > b.score }
            if a.cls != b.cls { return a.cls < b.cls }
            return a.row < b.row
        }
        func box(_ r: Int) -> YoloDetection {
            let c = cells[r], o = r * stride
            let cx = (Double(output[o]) + c.gx) * c.s, cy = (Double(output[o + 1]) + c.gy) * c.s
            let w = exp(Double(output[o + 2])) * c.s, h = exp(Double(output[o + 3])) * c.s
            return YoloDetection(x1: cx - w / 2, y1: cy - h / 2, x2: cx + w / 2, y2: cy + h / 2, score: 0, classIndex: 0)
        }
        var boxes = [YoloDetection?](repeating: nil, count: rows)
        func cachedBox(_ r: Int32) -> YoloDetection {
            if let b = boxes[Int(r)] { return b }
            let b = box(Int(r))
            boxes[Int(r)] = b
            return b
        }
        var suppressed = [Bool](repeating: false, count: candidates.count)
        var kept: [YoloDetection] = []
        for pos in candidates.indices where !suppressed[pos] {
            let k = candidates[pos]
            var d = cachedBox(k.row)
            d.score = Double(k.score)
            d.classIndex = Int(k.cls)
            kept.append(d)
            if kept.count >= options.maxDetections { break }
            for later in (pos + 1)..<candidates.count where !suppressed[later] {
                let other = candidates[later]
                if options.classAware && other.cls != k.cls { continue }
                if Self.iouPlusOne(d, cachedBox(other.row), scaleX: imageScaleX, scaleY: imageScaleY) > options.iouThreshold {
                    suppressed[later] = true
                }
            }
        }
        return kept
    }

    /// YOLOX's IoU (`demo_utils.nms`): widths and heights count `x2 − x1 + 1` pixels, on the
    /// boxes scaled by `scaleX`, `scaleY`; 0 when the union is not positive.
    public static func iouPlusOne(_ a: YoloDetection, _ b: YoloDetection, scaleX: Double = 1, scaleY: Double = 1) -> Double {
        let ax1 = a.x1 * scaleX, ay1 = a.y1 * scaleY, ax2 = a.x2 * scaleX, ay2 = a.y2 * scaleY
        let bx1 = b.x1 * scaleX, by1 = b.y1 * scaleY, bx2 = b.x2 * scaleX, by2 = b.y2 * scaleY
        let iw = Swift.max(0, Swift.min(ax2, bx2) - Swift.max(ax1, bx1) + 1)
        let ih = Swift.max(0, Swift.min(ay2, by2) - Swift.max(ay1, by1) + 1)
        let inter = iw * ih
        let union = (ax2 - ax1 + 1) * (ay2 - ay1 + 1) + (bx2 - bx1 + 1) * (by2 - by1 + 1) - inter
        return union > 0 && union.isFinite ? inter / union : 0
    }
}
