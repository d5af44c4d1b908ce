import DetectorModelFile
import DetectorImage
import Foundation

/// Output layouts of the YOLO families.
public enum YoloLayout: String, Sendable, Codable {
    /// YOLOv5: `[1, N, 5 + C]` rows `cx, cy, w, h, objectness, C class scores`;
    /// score = objectness × class score.
    case yolov5
    /// YOLOv8: `[1, 4 + C, N]` (channels first) `cx, cy, w, h, C class scores`; score = class score.
    case yolov8
}

/// Units of the decoded box values.
public enum YoloBoxUnits: String, Sendable, Codable {
    /// Normalized to 0…1 of the input (multiplied by the input size when decoding).
    case normalized
    /// Already in input pixels.
    case pixels
}

/// Options of the YOLO decoders (`YoloDecoder`, `YoloxDecoder`); the defaults are the YOLO
/// reference's (`reference/detection_goldens.py`): score ≥ 0.25, class-aware NMS at IoU 0.45, at
/// most 100. `ObjectDetector` does not take the 0.25 from here: it sets `scoreThreshold` from
/// `ObjectDetectorOptions` (explicit, else the model's metadata, else a given decoder config's
/// `yolo.scoreThreshold`, else `fallbackScoreThreshold`, else none: every candidate goes into the
/// NMS and the best `maxDetections` come out).
public struct YoloDecoderOptions: Sendable, Equatable, Codable {
    public var scoreThreshold: Double
    public var iouThreshold: Double
    public var maxDetections: Int
    /// Suppress only within a class (the reference) or across classes.
    public var classAware: Bool
    /// Boxes count as normalized when the largest of all box values is ≤ this.
    public var normalizedLimit: Double
    /// Force the units instead of detecting them.
    public var boxUnits: YoloBoxUnits?

    public init(scoreThreshold: Double = 0.25, iouThreshold: Double = 0.45, maxDetections: Int = 100,
                classAware: Bool = true, normalizedLimit: Double = 2.0, boxUnits: YoloBoxUnits? = nil) {
        self.scoreThreshold = scoreThreshold
        self.iouThreshold = iouThreshold
        self.maxDetections = maxDetections
        self.classAware = classAware
        self.normalizedLimit = normalizedLimit
        self.boxUnits = boxUnits
    }

    enum CodingKeys: String, CodingKey {
        case scoreThreshold, iouThreshold, maxDetections, classAware, normalizedLimit, boxUnits
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(scoreThreshold: try c.decodeIfPresent(Double.self, forKey: .scoreThreshold) ?? 0.25,
                  iouThreshold: try c.decodeIfPresent(Double.self, forKey: .iouThreshold) ?? 0.45,
                  maxDetections: try c.decodeIfPresent(Int.self, forKey: .maxDetections) ?? 100,
                  classAware: try c.decodeIfPresent(Bool.self, forKey: .classAware) ?? true,
                  normalizedLimit: try c.decodeIfPresent(Double.self, forKey: .normalizedLimit) ?? 2.0,
                  boxUnits: try c.decodeIfPresent(YoloBoxUnits.self, forKey: .boxUnits))
    }
}

/// One YOLO detection: corners in **input pixels** (Double, as the reference computes
/// them), the score and the class index.
public struct YoloDetection: Sendable, Equatable {
    public var x1: Double
    public var y1: Double
    public var x2: Double
    public var y2: Double
    public var score: Double
    public var classIndex: Int

    public init(x1: Double, y1: Double, x2: Double, y2: Double, score: Double, classIndex: Int) {
        self.x1 = x1
        self.y1 = y1
        self.x2 = x2
        self.y2 = y2
        self.score = score
        self.classIndex = classIndex
    }

    /// The corners mapped from a stretched `inputWidth × inputHeight` input to an
    /// `imageWidth × imageHeight` image (`x · W / inW`), clipped to the image — the
    /// reference's step 11. For a letterboxed input, undo the letterbox first.
    public func mappedToImage(imageWidth: Int, imageHeight: Int, inputWidth: Int, inputHeight: Int) -> YoloDetection {
        let w = Double(imageWidth), h = Double(imageHeight)
        let sx = w / Double(inputWidth), sy = h / Double(inputHeight)
        func clip(_ v: Double, _ hi: Double) -> Double { v.isNaN ? 0 : min(max(v, 0), hi) }
        return YoloDetection(x1: clip(x1 * sx, w), y1: clip(y1 * sy, h), x2: clip(x2 * sx, w), y2: clip(y2 * sy, h),
                             score: score, classIndex: classIndex)
    }

    /// As a `Detection` normalized by `frameWidth × frameHeight` (the frame the corners are in).
    public func detection(frameWidth: Int, frameHeight: Int, labels: LabelMap? = nil) -> Detection {
        let fw = Double(max(frameWidth, 1)), fh = Double(max(frameHeight, 1))
        let box = BoundingBox(xmin: Float(x1 / fw), ymin: Float(y1 / fh),
                              width: Float((x2 - x1) / fw), height: Float((y2 - y1) / fh))
        return Detection(box: box, score: Float(score), classIndex: classIndex,
                         label: labels?.name(at: classIndex), displayName: labels?.displayName(at: classIndex))
    }
}

/// Decodes YOLOv5 / YOLOv8 outputs exactly like the numpy YOLO reference
/// (`shared/reference/detection_goldens.py`, steps 6–10):
///
/// per row the best class (first maximum wins; v5 scores are `objectness × class` in
/// `Float`), rows with `score ≥ scoreThreshold` kept, units detected from the largest
/// box value over **all** rows (≤ 2 → normalized, multiplied by the input size), corners
/// `c ± size / 2` in Double, then greedy NMS in descending score order (stable: equal
/// scores keep row order) suppressing later boxes of the same class (or any class when
/// `classAware` is false) whose IoU with a kept box is **> iouThreshold**, stopping at
/// `maxDetections`.
///
/// ```swift
/// let decoder = YoloDecoder(layout: .yolov8, numClasses: 80)
/// let found = try decoder.decode(output, shape: [1, 84, 8400], inputWidth: 640, inputHeight: 640)
///     .map { $0.mappedToImage(imageWidth: w, imageHeight: h, inputWidth: 640, inputHeight: 640) }
/// ```
public struct YoloDecoder: Sendable {
    public var layout: YoloLayout
    public var numClasses: Int
    public var options: YoloDecoderOptions

    public init(layout: YoloLayout, numClasses: Int, options: YoloDecoderOptions = YoloDecoderOptions()) {
        self.layout = layout
        self.numClasses = numClasses
        self.options = options
    }

    /// The layout a `[1, a, b]` output has for `numClasses` classes (v5 when `b == 5 + C`,
    /// v8 when `a == 4 + C`), or nil.
    public static func detectLayout(shape: [Int], numClasses: Int) -> YoloLayout? {
        guard shape.count == 3, shape[0] == 1 else { return nil }
        if shape[2] == 5 + numClasses { return .yolov5 }
        if shape[1] == 4 + numClasses { return .yolov8 }
        return nil
    }

    /// Decodes one dequantized output tensor.
    /// - Returns: detections in input pixels, by descending score.
    /// - Throws: `DetectionError` for a shape that does not fit the layout or bad options.
    public func decode(_ output: [Float], shape: [Int], inputWidth: Int, inputHeight: Int) throws -> [YoloDetection] {
        try decodeWithUnits(output, shape: shape, inputWidth: inputWidth, inputHeight: inputHeight).detections
    }

    /// Like `decode`, also returning the box units used and how many rows passed the threshold.
    public func decodeWithUnits(_ output: [Float], shape: [Int], inputWidth: Int, inputHeight: Int)
        throws -> (detections: [YoloDetection], units: YoloBoxUnits, candidates: Int) {
        guard numClasses > 0, numClasses <= DetectionLimits.maxValuesPerBox else {
            throw DetectionError.invalidOption(name: "numClasses", reason: "must be in 1…\(DetectionLimits.maxValuesPerBox), got \(numClasses)")
        }
        guard inputWidth > 0, inputHeight > 0 else {
            throw DetectionError.invalidOption(name: "input size", reason: "must be positive, got \(inputWidth)x\(inputHeight)")
        }
        guard options.maxDetections > 0 else {
            throw DetectionError.invalidOption(name: "maxDetections", reason: "must be positive, got \(options.maxDetections)")
        }
        guard !options.scoreThreshold.isNaN, !options.iouThreshold.isNaN else {
            throw DetectionError.invalidOption(name: "scoreThreshold/iouThreshold", reason: "must be numbers")
        }
        let stride = layout == .yolov5 ? 5 + numClasses : 4 + numClasses
        guard shape.count == 3, shape[0] == 1, let total = elementCount(shape), total == output.count else {
            throw DetectionError.tensorMismatch(tensor: "YOLO output", expected: layout == .yolov5 ? "[1, N, \(stride)]" : "[1, \(stride), N]",
                                                actual: "shape \(shapeText(shape)) with \(output.count) values")
        }
        let rows: Int
        switch layout {
        case .yolov5:
            guard shape[2] == stride else {
                throw DetectionError.tensorMismatch(tensor: "YOLO output", expected: "[1, N, \(stride)] (YOLOv5 with \(numClasses) classes)", actual: shapeText(shape))
            }
            rows = shape[1]
        case .yolov8:
            guard shape[1] == stride else {
                throw DetectionError.tensorMismatch(tensor: "YOLO output", expected: "[1, \(stride), N] (YOLOv8 with \(numClasses) classes)", actual: shapeText(shape))
            }
            rows = shape[2]
        }

        var units = options.boxUnits
        var candidates: [YoloDetection] = []
        output.withUnsafeBufferPointer { p in
            guard let base = p.baseAddress else { return }
            let v5 = layout == .yolov5
            // Element (row r, column k) of the row-major [N, stride] view.
            @inline(__always) func at(_ r: Int, _ k: Int) -> Float { v5 ? base[r * stride + k] : base[k * rows + r] }
            if units == nil {
                var largest = -Double.infinity
                for r in 0..<rows {
                    for k in 0..<4 { largest = Swift.max(largest, Double(at(r, k))) }
                }
                units = largest <= options.normalizedLimit ? .normalized : .pixels
            }
            let scaleW = units == .normalized ? Double(inputWidth) : 1
            let scaleH = units == .normalized ? Double(inputHeight) : 1
            let threshold = options.scoreThreshold
            func add(_ r: Int, _ score: Float, _ cls: Int) {
                let cx = Double(at(r, 0)) * scaleW, cy = Double(at(r, 1)) * scaleH
                let w = Double(at(r, 2)) * scaleW, h = Double(at(r, 3)) * scaleH
                candidates.append(YoloDetection(x1: cx - w / 2, y1: cy - h / 2, x2: cx + w / 2, y2: cy + h / 2,
                                                score: Double(score), classIndex: cls))
            }
            if v5 {
                for r in 0..<rows {
                    let row = base + r * stride
                    let objectness = row[4]
                    let classes = row + 5
                    if objectness >= 0 {
                        // Rounding is monotonic, so for objectness ≥ 0 the best product is the
                        // product of the best class score; the first class reaching it wins.
                        var top = classes[0]
                        for c in 1..<numClasses where classes[c] > top { top = classes[c] }
                        let best = top * objectness
                        guard Double(best) >= threshold else { continue }
                        var cls = 0
                        while cls < numClasses - 1 && classes[cls] * objectness != best { cls += 1 }
                        add(r, best, cls)
                    } else {
                        var best = classes[0] * objectness, cls = 0
                        for c in 1..<numClasses {
                            let v = classes[c] * objectness
                            if v > best { best = v; cls = c }
                        }
                        if Double(best) >= threshold { add(r, best, cls) }
                    }
                }
            } else {
                // Channels first: scan class by class so memory is read in order.
                var best = [Float](UnsafeBufferPointer(start: base + 4 * rows, count: rows))
                var cls = [Int32](repeating: 0, count: rows)
                for c in 1..<numClasses {
                    let channel = base + (4 + c) * rows
                    for r in 0..<rows where channel[r] > best[r] {
                        best[r] = channel[r]
                        cls[r] = Int32(c)
                    }
                }
                for r in 0..<rows where Double(best[r]) >= threshold {
                    add(r, best[r], Int(cls[r]))
                }
            }
        }
        let kept = Self.greedyNMS(candidates, iouThreshold: options.iouThreshold,
                                  classAware: options.classAware, maxDetections: options.maxDetections)
        return (kept, units ?? .pixels, candidates.count)
    }

    /// The reference's IoU: areas and intersection clipped at 0, 0 when the union is not positive.
    public static func iou(_ a: YoloDetection, _ b: YoloDetection) -> Double {
        let iw = Swift.max(Swift.min(a.x2, b.x2) - Swift.max(a.x1, b.x1), 0)
        let ih = Swift.max(Swift.min(a.y2, b.y2) - Swift.max(a.y1, b.y1), 0)
        let inter = iw * ih
        let areaA = Swift.max(a.x2 - a.x1, 0) * Swift.max(a.y2 - a.y1, 0)
        let areaB = Swift.max(b.x2 - b.x1, 0) * Swift.max(b.y2 - b.y1, 0)
        let union = areaA + areaB - inter
        return union > 0 ? inter / union : 0
    }

    /// Greedy NMS in the reference's order (stable descending score).
    public static func greedyNMS(_ candidates: [YoloDetection], iouThreshold: Double, classAware: Bool,
                                 maxDetections: Int) -> [YoloDetection] {
        let order = candidates.indices.sorted { a, b in
            let sa = candidates[a].score, sb = candidates[b].score
            if sa != sb { return sa > sb }
            return a < b
        }
        var suppressed = [Bool](repeating: false, count: order.count)
        var kept: [YoloDetection] = []
        for pos in 0..<order.count where !suppressed[pos] {
            let box = candidates[order[pos]]
            kept.append(box)
            if kept.count >= maxDetections { break }
            for later in (pos + 1)..<order.count where !suppressed[later] {
                let other = candidates[order[later]]
                if classAware && other.classIndex != box.classIndex { continue }
                if iou(box, other) > iouThreshold { suppressed[later] = true }
            }
        }
        return kept
    }
}

/// Dequantization of integer output tensors: `(q − zeroPoint) · scale` in `Float`
/// (TFLite's affine quantization; the order of operations matches the reference).
public enum Dequantize {
    public static func uint8(_ values: [UInt8], scale: Float, zeroPoint: Int) -> [Float] {
        let z = Float(zeroPoint)
        return values.map { (Float($0) - z) * scale }
    }

    public static func int8(_ values: [Int8], scale: Float, zeroPoint: Int) -> [Float] {
        let z = Float(zeroPoint)
        return values.map { (Float($0) - z) * scale }
    }
}
