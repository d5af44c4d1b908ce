import DetectorModelFile
import DetectorPlatform
/// `RESIZE_NEAREST_NEIGHBOR` (NHWC, type-agnostic) with `align_corners` and
/// `half_pixel_centers`, the reference kernel's index rule.
final class ResizeNearestNeighborKernel: PreparedKernel {
    let input: Int, output: Int
    let batch: Int, inH: Int, inW: Int, depthBytes: Int
    let ys: [Int], xs: [Int]

    init(input: Int, output: Int, batch: Int, inH: Int, inW: Int, depthBytes: Int, ys: [Int], xs: [Int]) {
        self.input = input; self.output = output; self.batch = batch; self.inH = inH; self.inW = inW
        self.depthBytes = depthBytes; self.ys = ys; self.xs = xs
    }

    static func nearest(_ v: Int, inputSize: Int, outputSize: Int, alignCorners: Bool, halfPixel: Bool) -> Int {
        let scale = (alignCorners && outputSize > 1) ? Float(inputSize - 1) / Float(outputSize - 1) : Float(inputSize) / Float(outputSize)
        let offset: Float = halfPixel ? 0.5 : 0
        let scaled = (Float(v) + offset) * scale
        var r = min(alignCorners ? Int(scaled.rounded(.toNearestOrAwayFromZero)) : Int(scaled.rounded(.down)), inputSize - 1)
        if halfPixel { r = max(0, r) }
        return r
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0)
        guard x.rank == 4, let size = x.type.byteSize else { throw c.invalid("input must be 4-D, has shape \(x.shape)") }
        guard let s = try c.constantInts(input: 1), s.count == 2, s[0] > 0, s[1] > 0, s[0] <= 1 << 20, s[1] <= 1 << 20 else {
            throw c.invalid("its size must be two positive constants")
        }
        let p = c.parameters
        try c.setOutput(0, shape: [x.shape[0], s[0], s[1], x.shape[3]], type: x.type)
        let (h, w) = (x.shape[1], x.shape[2])
        return ResizeNearestNeighborKernel(
            input: x.index, output: try c.output(0).index, batch: x.shape[0], inH: h, inW: w, depthBytes: x.shape[3] * size,
            ys: (0..<s[0]).map { nearest($0, inputSize: h, outputSize: s[0], alignCorners: p.alignCorners, halfPixel: p.halfPixelCenters) },
            xs: (0..<s[1]).map { nearest($0, inputSize: w, outputSize: s[1], alignCorners: p.alignCorners, halfPixel: p.halfPixelCenters) })
    }

    func eval(_ e: EvalContext) throws {
        let src = e.raw(input), dst = e.raw(output)
        guard inH > 0, inW > 0, !ys.isEmpty, !xs.isEmpty else { return }
        let (inH, inW, depthBytes, ys, xs) = (self.inH, self.inW, self.depthBytes, self.ys, self.xs)
        let outH = ys.count, rowBytes = xs.count * depthBytes, rows = batch * outH
        // Output rows split over the threads; a row that repeats the one above is one copy.
        KernelSupport.parallelChunks(rows, parts: rows * rowBytes >= KernelSupport.parallelCopyBytes ? e.threadCount : 1) { part in
            for row in part {
                let b = row / outH, y = ys[row - b * outH]
                let o = dst + row * rowBytes
                if row > part.lowerBound, row - b * outH > 0, ys[row - b * outH - 1] == y {
                    copyBytes(o, UnsafeRawPointer(o - rowBytes), rowBytes)
                    continue
                }
                var out = o
                let line = src + (b * inH + y) * inW * depthBytes
                for x in xs {
                    copyBytes(out, line + x * depthBytes, depthBytes)
                    out += depthBytes
                }
            }
        }
    }
}
