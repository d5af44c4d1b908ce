import DetectorModelFile
import DetectorPlatform
/// `RESIZE_BILINEAR` (float32 NHWC) with `align_corners` and `half_pixel_centers`, exactly
/// the reference kernel's sampling (`ComputeInterpolationValues`) and arithmetic. Output size
/// from the size tensor (input 1: [new_height, new_width]). Rows run on the kernel table's
/// `resize` (`TierResize`: 16 channels a vector, the reference's expression in its order),
/// held by the tests to that formula written out per value.
final class ResizeBilinearKernel: PreparedKernel {
    let input: Int, output: Int
    let batch: Int, inH: Int, inW: Int, depth: Int, outH: Int, outW: Int
    /// Per output row: lower and upper source row and the fractional position.
    let ys: [(Int, Int, Float)]
    /// Per output column: lower and upper source column and the fractional position.
    let x0s: [Int], x1s: [Int], dxs: [Float]
    let row: FloatResizeKernel.Row

    init(input: Int, output: Int, batch: Int, inH: Int, inW: Int, depth: Int, outH: Int, outW: Int,
         ys: [(Int, Int, Float)], xs: [(Int, Int, Float)], table: KernelTable = .baseline) {
        self.input = input; self.output = output; self.batch = batch; self.inH = inH; self.inW = inW
        self.depth = depth; self.outH = outH; self.outW = outW; self.ys = ys
        x0s = xs.map(\.0); x1s = xs.map(\.1); dxs = xs.map(\.2)
        row = table.resize.row
    }

    /// The reference kernel's scale for one dimension.
    static func scale(input: Int, output: Int, alignCorners: Bool) -> Float {
        (alignCorners && output > 1) ? Float(input - 1) / Float(output - 1) : Float(input) / Float(output)
    }

    /// (lower, upper, delta) for output coordinate `v`.
    static func interpolation(_ v: Int, scale: Float, halfPixel: Bool, inputSize: Int) -> (Int, Int, Float) {
        let scaled = halfPixel ? (Float(v) + 0.5) * scale - 0.5 : Float(v) * scale
        let lower = max(Int(scaled.rounded(.down)), 0)
        let upper = min(Int(scaled.rounded(.up)), inputSize - 1)
        return (lower, upper, scaled - Float(lower))
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, rank: 4, types: [.float32])
        guard let size = try c.constantInts(input: 1), size.count == 2, size[0] > 0, size[1] > 0,
              size[0] <= 1 << 20, size[1] <= 1 << 20 else {
            throw c.invalid("its size must be two positive constants")
        }
        let p = c.parameters
        guard !(p.alignCorners && p.halfPixelCenters) else { throw c.invalid("align_corners and half_pixel_centers are both set") }
        let (h, w) = (x.shape[1], x.shape[2])
        try c.setOutput(0, shape: [x.shape[0], size[0], size[1], x.shape[3]], type: .float32)
        let sh = scale(input: h, output: size[0], alignCorners: p.alignCorners)
        let sw = scale(input: w, output: size[1], alignCorners: p.alignCorners)
        return ResizeBilinearKernel(input: x.index, output: try c.output(0).index, batch: x.shape[0], inH: h, inW: w,
                                    depth: x.shape[3], outH: size[0], outW: size[1],
                                    ys: (0..<size[0]).map { interpolation($0, scale: sh, halfPixel: p.halfPixelCenters, inputSize: h) },
                                    xs: (0..<size[1]).map { interpolation($0, scale: sw, halfPixel: p.halfPixelCenters, inputSize: w) },
                                    table: c.kernelTable)
    }

    func eval(_ e: EvalContext) throws {
        let src = UnsafePointer(e.floats(input)), dst = e.floats(output)
        guard inH > 0, inW > 0, outH > 0, outW > 0, depth > 0 else { return }
        let (inH, inW, depth, outH, outW, ys, row) = (self.inH, self.inW, self.depth, self.outH, self.outW, self.ys, self.row)
        // Output rows (of every batch) split over the threads; a value's arithmetic does not
        // depend on the split.
        let rows = batch * outH
        x0s.withUnsafeBufferPointer { x0 in x1s.withUnsafeBufferPointer { x1 in dxs.withUnsafeBufferPointer { dx in
            guard let x0 = x0.baseAddress, let x1 = x1.baseAddress, let dx = dx.baseAddress else { return }
            KernelSupport.parallelChunks(rows, parts: rows * outW * depth >= 1 << 15 ? e.threadCount : 1) { part in
                for r in part {
                    let b = r / outH
                    let (y0, y1, dy) = ys[r - b * outH]
                    row(src + (b * inH + y0) * inW * depth, src + (b * inH + y1) * inW * depth, dy, x0, x1, dx,
                        outW, depth, dst + r * outW * depth)
                }
            }
        } } }
    }
}
