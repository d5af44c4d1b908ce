import DetectorZlib
import DetectorPlatform
/// Area (box-filter) resize: each output pixel averages the source area it covers.
///
/// Per axis, output index `i` covers source interval `[i · s, (i + 1) · s)` with `s = in/out`;
/// each source pixel `j` gets weight `overlap([j, j + 1), interval) / s`. Separable, computed
/// in `Double` (horizontal then vertical, no intermediate rounding), rounded to nearest.
/// For integer downscale factors this is the plain block mean, like OpenCV's `INTER_AREA`.
enum AreaResize {
    struct Axis {
        var start: [Int]
        var weights: [[Double]]
    }

    static func axis(inSize: Int, outSize: Int) -> Axis {
        let s = Double(inSize) / Double(outSize)
        var start = [Int](), weights = [[Double]]()
        start.reserveCapacity(outSize)
        weights.reserveCapacity(outSize)
        for i in 0..<outSize {
            let a = Double(i) * s, b = Double(i + 1) * s
            let first = min(max(Int(a.rounded(.down)), 0), inSize - 1)
            let last = min(max(Int(b.rounded(.up)) - 1, first), inSize - 1)
            var ws = [Double]()
            var sum = 0.0
            for j in first...last {
                let overlap = min(b, Double(j + 1)) - max(a, Double(j))
                let w = max(overlap, 0)
                ws.append(w)
                sum += w
            }
            if sum > 0 { for k in ws.indices { ws[k] /= sum } } else { ws = ws.map { _ in 1.0 / Double(ws.count) } }
            start.append(first)
            weights.append(ws)
        }
        return Axis(start: start, weights: weights)
    }

    static func resize(_ src: PackedPixels, width: Int, height: Int) -> [UInt8] {
        let ax = axis(inSize: src.width, outSize: width)
        let ay = axis(inSize: src.height, outSize: height)
        let ch = src.channels
        // Horizontal pass into a Double buffer (rows x width x ch).
        var tmp = [Double](repeating: 0, count: src.height * width * ch)
        src.bytes.withUnsafeBufferPointer { s in
            tmp.withUnsafeMutableBufferPointer { t in
                guard let sp = s.baseAddress, let tp = t.baseAddress else { return }
                ParallelRows.run(rows: src.height, workPerRow: src.width * ch) { range in
                    for y in range {
                        let line = sp + y * src.width * ch
                        let o = tp + y * width * ch
                        for x in 0..<width {
                            let ws = ax.weights[x], st = ax.start[x]
                            for c in 0..<ch {
                                var acc = 0.0
                                for (k, w) in ws.enumerated() { acc += w * Double(line[(st + k) * ch + c]) }
                                o[x * ch + c] = acc
                            }
                        }
                    }
                }
            }
        }
        var out = [UInt8](repeating: 0, count: width * height * ch)
        let rowLen = width * ch
        tmp.withUnsafeBufferPointer { t in
            out.withUnsafeMutableBufferPointer { d in
                guard let tp = t.baseAddress, let dp = d.baseAddress else { return }
                ParallelRows.run(rows: height, workPerRow: rowLen * 4) { range in
                    var acc = [Double](repeating: 0, count: rowLen)
                    for y in range {
                        for i in 0..<rowLen { acc[i] = 0 }
                        let ws = ay.weights[y], st = ay.start[y]
                        for (k, w) in ws.enumerated() {
                            let line = tp + (st + k) * rowLen
                            for i in 0..<rowLen { acc[i] += w * line[i] }
                        }
                        let o = dp + y * rowLen
                        for i in 0..<rowLen {
                            let r = acc[i] + 0.5
                            o[i] = r <= 0 ? 0 : (r >= 255 ? 255 : UInt8(r))
                        }
                    }
                }
            }
        }
        return out
    }
}
