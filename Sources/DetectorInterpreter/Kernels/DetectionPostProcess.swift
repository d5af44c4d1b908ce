import DetectorModelFile
import DetectorPlatform
import Foundation

/// `TFLite_Detection_PostProcess`, the SSD custom op: decodes center-size box encodings against
/// anchors, then runs class-agnostic ("fast") or per-class ("regular") non-maximum suppression,
/// with the official kernel's arithmetic, ordering and tie-breaking:
///
/// - uint8 box encodings/anchors are dequantized in `Float` (`(q - zp) * scale`), uint8 class
///   predictions as `Float(Double(scale) * Double(q - zp))`; decoding runs in `Double`.
/// - Candidates are kept when `score >= nms_score_threshold`, stably sorted by decreasing score;
///   a box suppresses later ones whose IoU (in `Float`) is `> nms_iou_threshold`.
/// - Fast NMS ranks each anchor by its best class (first maximum on ties) and writes
///   `max_classes_per_detection` classes per kept anchor; regular NMS runs per class and merges
///   the per-class lists stably (earlier classes first on equal scores), keeping `max_detections`.
///
/// Outputs: boxes `[1, M, 4]` (ymin, xmin, ymax, xmax), classes `[1, M]`, scores `[1, M]`,
/// count `[1]`, all float32, with `M = max_detections * max_classes_per_detection`; unused slots are 0.
package struct DetectionPostProcess: Sendable {
    package var options: DetectionPostProcessOptions

    package init(options: DetectionPostProcessOptions) { self.options = options }

    /// One decoded box.
    package struct Box: Sendable, Equatable {
        package var ymin: Float, xmin: Float, ymax: Float, xmax: Float
        package init(ymin: Float, xmin: Float, ymax: Float, xmax: Float) {
            self.ymin = ymin; self.xmin = xmin; self.ymax = ymax; self.xmax = xmax
        }
    }

    /// The op's result.
    package struct Result: Sendable, Equatable {
        package var boxes: [Float]
        package var classes: [Float]
        package var scores: [Float]
        package var count: Int
    }

    /// Decodes center-size encodings `(y, x, h, w)` against anchors `(y, x, h, w)`.
    package func decode(encodings: (Int) -> (Float, Float, Float, Float), anchors: (Int) -> (Float, Float, Float, Float),
                       count: Int) -> [Box] {
        let sy = Double(options.yScale), sx = Double(options.xScale), sh = Double(options.hScale), sw = Double(options.wScale)
        return (0..<count).map { i in
            let e = encodings(i), a = anchors(i)
            let yc = Float(Double(e.0) / sy * Double(a.2) + Double(a.0))
            let xc = Float(Double(e.1) / sx * Double(a.3) + Double(a.1))
            let hh = Float(0.5 * exp(Double(e.2) / sh) * Double(a.2))
            let hw = Float(0.5 * exp(Double(e.3) / sw) * Double(a.3))
            return Box(ymin: yc - hh, xmin: xc - hw, ymax: yc + hh, xmax: xc + hw)
        }
    }

    /// IoU exactly as the kernel computes it (0 for empty boxes).
    package static func intersectionOverUnion(_ a: Box, _ b: Box) -> Float {
        let areaA = (a.ymax - a.ymin) * (a.xmax - a.xmin)
        let areaB = (b.ymax - b.ymin) * (b.xmax - b.xmin)
        if areaA <= 0 || areaB <= 0 { return 0 }
        let iy0 = max(a.ymin, b.ymin), ix0 = max(a.xmin, b.xmin)
        let iy1 = min(a.ymax, b.ymax), ix1 = min(a.xmax, b.xmax)
        let inter = max(iy1 - iy0, 0) * max(ix1 - ix0, 0)
        return inter / (areaA + areaB - inter)
    }

    /// Greedy single-class NMS; returns selected box indices in order.
    func nonMaxSuppression(boxes: [Box], scores: [Float], maxDetections: Int) -> [Int] {
        var keep: [Int] = []
        for i in scores.indices where scores[i] >= options.nmsScoreThreshold { keep.append(i) }
        // Stable decreasing sort by score (ties keep index order).
        let order = keep.indices.sorted { l, r in
            let a = scores[keep[l]], b = scores[keep[r]]
            return a > b || (a == b && l < r)
        }
        let outputSize = min(keep.count, maxDetections)
        var active = [Bool](repeating: true, count: keep.count)
        var activeCount = keep.count
        var selected: [Int] = []
        for i in 0..<order.count {
            if activeCount == 0 || selected.count >= outputSize { break }
            guard active[i] else { continue }
            let bi = keep[order[i]]
            selected.append(bi)
            active[i] = false
            activeCount -= 1
            for j in (i + 1)..<order.count where active[j] {
                if Self.intersectionOverUnion(boxes[bi], boxes[keep[order[j]]]) > options.nmsIOUThreshold {
                    active[j] = false
                    activeCount -= 1
                }
            }
        }
        return selected
    }

    /// Runs NMS on decoded boxes and dequantized scores `[numBoxes][classesWithBackground]`.
    package func run(boxes: [Box], scores: [Float], classesWithBackground: Int) -> Result {
        let numBoxes = boxes.count
        let numClasses = options.numClasses
        let labelOffset = classesWithBackground - numClasses
        let slots = options.maxDetections * options.maxClassesPerDetection
        var outBoxes = [Float](repeating: 0, count: slots * 4)
        var outClasses = [Float](repeating: 0, count: slots)
        var outScores = [Float](repeating: 0, count: slots)
        func writeBox(_ slot: Int, _ b: Box) {
            guard slot < slots else { return }
            outBoxes[slot * 4] = b.ymin; outBoxes[slot * 4 + 1] = b.xmin
            outBoxes[slot * 4 + 2] = b.ymax; outBoxes[slot * 4 + 3] = b.xmax
        }
        if options.useRegularNMS {
            let perClass = min(options.detectionsPerClass, options.maxDetections)
            var merged: [(index: Int, score: Float)] = []
            var classScores = [Float](repeating: 0, count: numBoxes)
            for col in 0..<numClasses {
                for row in 0..<numBoxes { classScores[row] = scores[row * classesWithBackground + col + labelOffset] }
                let selected = nonMaxSuppression(boxes: boxes, scores: classScores, maxDetections: perClass)
                if selected.isEmpty { continue }
                let incoming = selected.map { (index: $0 * classesWithBackground + col + labelOffset, score: classScores[$0]) }
                // Stable merge of two score-descending lists: existing entries first on ties.
                var result: [(index: Int, score: Float)] = []
                result.reserveCapacity(merged.count + incoming.count)
                var a = 0, b = 0
                while a < merged.count || b < incoming.count {
                    if b >= incoming.count || (a < merged.count && !(incoming[b].score > merged[a].score)) {
                        result.append(merged[a]); a += 1
                    } else {
                        result.append(incoming[b]); b += 1
                    }
                }
                merged = Array(result.prefix(options.maxDetections))
            }
            for (slot, entry) in merged.enumerated() where slot < options.maxDetections {
                let anchor = entry.index / classesWithBackground
                let cls = entry.index - anchor * classesWithBackground - labelOffset
                writeBox(slot, boxes[anchor])
                if slot < slots { outClasses[slot] = Float(cls); outScores[slot] = entry.score }
            }
            return Result(boxes: outBoxes, classes: outClasses, scores: outScores, count: merged.count)
        }
        // Fast NMS.
        let perAnchor = min(options.maxClassesPerDetection, numClasses)
        var maxScores = [Float](repeating: 0, count: numBoxes)
        var sortedClasses = [Int](repeating: 0, count: numBoxes * max(perAnchor, 1))
        for row in 0..<numBoxes {
            let base = row * classesWithBackground + labelOffset
            if perAnchor == 1 {
                var best = 0
                for c in 1..<max(numClasses, 1) where scores[base + c] > scores[base + best] { best = c }
                sortedClasses[row] = best
            } else {
                let order = (0..<numClasses).sorted { l, r in
                    let a = scores[base + l], b = scores[base + r]
                    return a > b || (a == b && l < r)
                }
                for k in 0..<perAnchor { sortedClasses[row * perAnchor + k] = order[k] }
            }
            maxScores[row] = scores[base + sortedClasses[row * perAnchor]]
        }
        let selected = nonMaxSuppression(boxes: boxes, scores: maxScores, maxDetections: options.maxDetections)
        for (n, anchor) in selected.enumerated() {
            let base = anchor * classesWithBackground + labelOffset
            for col in 0..<perAnchor {
                let slot = options.maxClassesPerDetection * n + col
                guard slot < slots else { continue }
                let cls = sortedClasses[anchor * perAnchor + col]
                writeBox(slot, boxes[anchor])
                outClasses[slot] = Float(cls)
                outScores[slot] = scores[base + cls]
            }
        }
        return Result(boxes: outBoxes, classes: outClasses, scores: outScores, count: selected.count)
    }
}

/// Interpreter kernel for the `TFLite_Detection_PostProcess` custom op.
final class DetectionPostProcessKernel: PreparedKernel {
    let op: DetectionPostProcess
    let encodings: Int, classPredictions: Int, anchors: Int
    let outputs: [Int]
    let numBoxes: Int, encodingLength: Int, classesWithBackground: Int
    let encodingType: TensorDataType, scoreType: TensorDataType, anchorType: TensorDataType
    let encodingQ: QuantizationParams, scoreQ: QuantizationParams, anchorQ: QuantizationParams
    let opIndex: Int

    init(op: DetectionPostProcess, encodings: TensorInfo, classPredictions: TensorInfo, anchors: TensorInfo,
         outputs: [Int], encodingQ: QuantizationParams, scoreQ: QuantizationParams, anchorQ: QuantizationParams, opIndex: Int) {
        self.op = op
        self.encodings = encodings.index; self.classPredictions = classPredictions.index; self.anchors = anchors.index
        self.outputs = outputs
        numBoxes = encodings.shape[1]; encodingLength = encodings.shape[2]; classesWithBackground = classPredictions.shape[2]
        encodingType = encodings.type; scoreType = classPredictions.type; anchorType = anchors.type
        self.encodingQ = encodingQ; self.scoreQ = scoreQ; self.anchorQ = anchorQ
        self.opIndex = opIndex
    }

    func eval(_ e: EvalContext) throws {
        let n = numBoxes, len = encodingLength
        let boxes: [DetectionPostProcess.Box]
        if encodingType == .uint8 {
            let enc = e.pointer(encodings, as: UInt8.self), anc = e.pointer(anchors, as: UInt8.self)
            let ez = Float(encodingQ.zeroPoint), es = encodingQ.scale, az = Float(anchorQ.zeroPoint), asc = anchorQ.scale
            boxes = op.decode(encodings: { i in
                let p = enc + i * len
                return ((Float(p[0]) - ez) * es, (Float(p[1]) - ez) * es, (Float(p[2]) - ez) * es, (Float(p[3]) - ez) * es)
            }, anchors: { i in
                let p = anc + i * 4
                return ((Float(p[0]) - az) * asc, (Float(p[1]) - az) * asc, (Float(p[2]) - az) * asc, (Float(p[3]) - az) * asc)
            }, count: n)
        } else {
            let enc = e.floats(encodings), anc = e.floats(anchors)
            boxes = op.decode(encodings: { i in let p = enc + i * len; return (p[0], p[1], p[2], p[3]) },
                              anchors: { i in let p = anc + i * 4; return (p[0], p[1], p[2], p[3]) }, count: n)
        }
        for b in boxes where b.ymin > b.ymax || b.xmin > b.xmax || b.ymin.isNaN || b.xmin.isNaN {
            throw InterpreterError.invalidOperator(index: opIndex, opName: DetectionPostProcessOptions.customCode,
                                                   reason: "a decoded box has min > max (\(b)); check the box encodings and anchors")
        }
        let total = n * classesWithBackground
        var scores = [Float](repeating: 0, count: total)
        if scoreType == .uint8 {
            let s = e.pointer(classPredictions, as: UInt8.self)
            let scale = Double(scoreQ.scale), zp = scoreQ.zeroPoint
            for i in 0..<total { scores[i] = Float(scale * Double(Int32(s[i]) - zp)) }
        } else {
            let s = e.floats(classPredictions)
            for i in 0..<total { scores[i] = s[i] }
        }
        let r = op.run(boxes: boxes, scores: scores, classesWithBackground: classesWithBackground)
        r.boxes.withUnsafeBufferPointer { if let v = $0.baseAddress { e.floats(outputs[0]).update(from: v, count: $0.count) } }
        r.classes.withUnsafeBufferPointer { if let v = $0.baseAddress { e.floats(outputs[1]).update(from: v, count: $0.count) } }
        r.scores.withUnsafeBufferPointer { if let v = $0.baseAddress { e.floats(outputs[2]).update(from: v, count: $0.count) } }
        e.floats(outputs[3])[0] = Float(r.count)
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        guard c.inputCount == 3, c.outputCount == 4 else { throw c.invalid("needs 3 inputs and 4 outputs") }
        let options: DetectionPostProcessOptions
        do {
            options = try DetectionPostProcessOptions(flex: try FlexBuffers.decode(c.node.customOptions))
        } catch {
            throw c.invalid("custom options could not be read: \(error)")
        }
        let enc = try c.input(0, rank: 3, types: [.uint8, .float32])
        let cls = try c.input(1, rank: 3, types: [.uint8, .float32])
        let anc = try c.input(2, rank: 2, types: [enc.type])
        guard enc.shape[0] == 1, enc.shape[2] >= 4, cls.shape[0] == 1, cls.shape[1] == enc.shape[1],
              anc.shape[0] == enc.shape[1], anc.shape[1] == 4 else {
            throw c.invalid("input shapes \(enc.shape), \(cls.shape), \(anc.shape) do not fit [1,N,>=4], [1,N,C], [N,4]")
        }
        guard options.maxDetections >= 0, options.maxClassesPerDetection >= 0, options.detectionsPerClass >= 0,
              options.numClasses > 0, options.maxDetections <= 1 << 16, options.maxClassesPerDetection <= 1 << 12,
              options.maxDetections * options.maxClassesPerDetection <= 1 << 20 else {
            throw c.invalid("options out of range (max_detections \(options.maxDetections), num_classes \(options.numClasses))")
        }
        let ncwb = cls.shape[2]
        guard ncwb - options.numClasses <= 1, ncwb >= options.numClasses else {
            throw c.invalid("class predictions have \(ncwb) columns for \(options.numClasses) classes")
        }
        if options.useRegularNMS {
            guard min(options.detectionsPerClass, options.maxDetections) > 0 else { throw c.invalid("detections_per_class must be positive") }
        } else {
            guard options.maxClassesPerDetection > 0 else { throw c.invalid("max_classes_per_detection must be positive") }
        }
        guard options.nmsIOUThreshold > 0, options.nmsIOUThreshold <= 1 else {
            throw c.invalid("nms_iou_threshold \(options.nmsIOUThreshold) must be in (0, 1]")
        }
        let slots = options.maxDetections * options.maxClassesPerDetection
        try c.setOutput(0, shape: [1, slots, 4], type: .float32)
        try c.setOutput(1, shape: [1, slots], type: .float32)
        try c.setOutput(2, shape: [1, slots], type: .float32)
        try c.setOutput(3, shape: [1], type: .float32)
        let unit = QuantizationParams(scale: 1, zeroPoint: 0)
        let eq = enc.type == .uint8 ? try c.quantization(of: enc, "box encodings") : unit
        let sq = cls.type == .uint8 ? try c.quantization(of: cls, "class predictions") : unit
        let aq = anc.type == .uint8 ? try c.quantization(of: anc, "anchors") : unit
        return DetectionPostProcessKernel(op: DetectionPostProcess(options: options), encodings: enc, classPredictions: cls,
                                          anchors: anc, outputs: try (0..<4).map { try c.output($0).index },
                                          encodingQ: eq, scoreQ: sq, anchorQ: aq, opIndex: c.operatorIndex)
    }
}
