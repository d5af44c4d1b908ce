import DetectorModelFile
import DetectorPlatform
/// `AVERAGE_POOL_2D` and `MAX_POOL_2D` (float32, NHWC), TFLite reference semantics: the
/// window is clipped to the input and the average divides by the clipped count; fused activation.
/// Rows of output run on the tier's `TierPool.row` (16 channels a vector); `reference` is the
/// portable loop, the same bits, kept as its test oracle.
final class Pool2DKernel: PreparedKernel {
    let input: Int, output: Int
    let g: WindowGeometry
    /// Channels of the input (and output).
    let channels: Int
    let isMax: Bool
    let act: (min: Float, max: Float)
    let threads: Int
    /// The tier's row kernel.
    let row: FloatPoolingKernel.Row

    init(input: Int, output: Int, g: WindowGeometry, channels: Int, isMax: Bool, act: (min: Float, max: Float), threads: Int,
         row: @escaping FloatPoolingKernel.Row) {
        self.input = input; self.output = output; self.g = g; self.channels = channels; self.isMax = isMax; self.act = act
        self.threads = threads; self.row = row
    }

    static func prepare(_ c: PrepareContext, isMax: Bool) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.float32])
        let g = try WindowGeometry.make(c, input: x, filterH: c.parameters.filterHeight, filterW: c.parameters.filterWidth)
        try c.setOutput(0, shape: [g.batches, g.outputHeight, g.outputWidth, x.shape[3]], type: .float32)
        return Pool2DKernel(input: x.index, output: try c.output(0).index, g: g, channels: x.shape[3], isMax: isMax,
                            act: KernelSupport.activationRange(c.parameters.activation), threads: c.threadCount,
                            row: c.kernelTable.pooling.row)
    }

    func eval(_ e: EvalContext) throws {
        let src = e.floats(input), dst = e.floats(output)
        let g = self.g, isMax = self.isMax, act = self.act, C = channels
        let rows = g.batches * g.outputHeight
        let reads = rows * g.outputWidth * C * g.filterHeight * g.filterWidth
        let row = self.row
        KernelSupport.parallelChunks(rows, parts: reads > 1 << 16 ? threads : 1) { range in
            for r in range {
                let b = r / g.outputHeight, oy = r % g.outputHeight
                let y0 = oy &* g.strideHeight &- g.padTop
                let fy0 = max(0, -y0), fy1 = min(g.filterHeight, g.inputHeight &- y0)
                // An empty window (rows 0) never reads `first`.
                let first = src + ((b &* g.inputHeight &+ max(0, min(g.inputHeight &- 1, y0 &+ fy0))) &* g.inputWidth) &* C
                row(first, max(0, fy1 &- fy0), g.inputWidth &* C, g.inputWidth, g.outputWidth, g.strideWidth, g.padLeft,
                    g.filterWidth, C, dst + (b &* g.outputHeight &+ oy) &* g.outputWidth &* C, !isMax, act.min, act.max)
            }
        }
    }

    /// The portable loop: every output pixel's clipped window, 8 channels a vector (the tier
    /// kernels' test oracle).
    static func reference(_ src: UnsafeMutablePointer<Float>, _ dst: UnsafeMutablePointer<Float>, g: WindowGeometry, channels: Int,
                          isMax: Bool, act: (min: Float, max: Float), threads: Int) {
        let rows = g.batches * g.outputHeight
        let C = channels, vecEnd = C - C % 8
        // With 8 or more channels the last partial vector is redone as the 8 channels ending at
        // C (the overlap is written twice with the same values): 28 channels were 3 vectors and 4
        // scalar loops a pixel.
        let lastVector = C >= 8 && C % 8 != 0 ? C - 8 : -1
        KernelSupport.parallelChunks(rows, parts: threads) { range in
            let vlo = SIMD8<Float>(repeating: act.min), vhi = SIMD8<Float>(repeating: act.max)
            for row in range {
                let b = row / g.outputHeight, oy = row % g.outputHeight
                let y0 = oy &* g.strideHeight &- g.padTop
                let fy0 = max(0, -y0), fy1 = min(g.filterHeight, g.inputHeight &- y0)
                for ox in 0..<g.outputWidth {
                    let x0 = ox &* g.strideWidth &- g.padLeft
                    let fx0 = max(0, -x0), fx1 = min(g.filterWidth, g.inputWidth &- x0)
                    let o = dst + ((b &* g.outputHeight &+ oy) &* g.outputWidth &+ ox) &* C
                    let count = max(0, fy1 &- fy0) &* max(0, fx1 &- fx0)
                    let base = src + ((b &* g.inputHeight &+ y0) &* g.inputWidth &+ x0) &* C
                    var c = 0
                    while c < vecEnd || c == lastVector {
                        var acc = SIMD8<Float>(repeating: isMax ? -.greatestFiniteMagnitude : 0)
                        var fy = fy0
                        while fy < fy1 {
                            var fx = fx0
                            while fx < fx1 {
                                let offset: Int = (fy &* g.inputWidth &+ fx) &* C &+ c
                                let v = UnsafeRawPointer(base + offset).loadUnaligned(as: SIMD8<Float>.self)
                                if isMax { acc.replace(with: v, where: v .> acc) } else { acc += v }
                                fx &+= 1
                            }
                            fy &+= 1
                        }
                        if !isMax { acc = count > 0 ? acc / SIMD8(repeating: Float(count)) : SIMD8(repeating: 0) }
                        UnsafeMutableRawPointer(o + c).storeBytes(of: KernelSupport.clamp(acc, vlo, vhi), as: SIMD8<Float>.self)
                        c = c &+ 8 == vecEnd && lastVector >= 0 ? lastVector : (c == lastVector ? C : c &+ 8)
                    }
                    while c < C {
                        var acc: Float = isMax ? -.greatestFiniteMagnitude : 0
                        if fy0 < fy1 && fx0 < fx1 {
                            for fy in fy0..<fy1 {
                                for fx in fx0..<fx1 {
                                    let v = base[(fy &* g.inputWidth &+ fx) &* C &+ c]
                                    // As `std::max(acc, v)`: the first of tied values (+0 / -0), NaN skipped.
                                    if isMax { if v > acc { acc = v } } else { acc += v }
                                }
                            }
                        }
                        if !isMax { acc = count > 0 ? acc / Float(count) : 0 }
                        // std::min(std::max(acc, lo), hi), as TFLite clamps: -0 stays -0 at lo = 0.
                        let low = acc < act.min ? act.min : acc
                        o[c] = act.max < low ? act.max : low
                        c &+= 1
                    }
                }
            }
        }
    }
}

/// `AVERAGE_POOL_2D`.
enum AveragePool2DKernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel { try Pool2DKernel.prepare(c, isMax: false) }
}

/// `MAX_POOL_2D`.
enum MaxPool2DKernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel { try Pool2DKernel.prepare(c, isMax: true) }
}
