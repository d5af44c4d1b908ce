/// `AVERAGE_POOL_2D` and `MAX_POOL_2D` (float32, NHWC), TFLite reference semantics: the
/// window is clipped to the input and the average divides by the clipped count; fused activation.
final class Pool2DKernel: PreparedKernel {
    let input: Int, output: Int
    let g: WindowGeometry
    let isMax: Bool
    let act: (min: Float, max: Float)
    let threads: Int

    init(input: Int, output: Int, g: WindowGeometry, isMax: Bool, act: (min: Float, max: Float), threads: Int) {
        self.input = input; self.output = output; self.g = g; self.isMax = isMax; self.act = act; self.threads = threads
    }

    static func prepare(_ c: PrepareContext, isMax: Bool) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.float32])
        let g = try WindowGeometry.make(c, input: x, filterH: c.parameters.filterHeight, filterW: c.parameters.filterWidth)
        try c.setOutput(0, shape: [g.batch, g.outH, g.outW, g.inC], type: .float32)
        return Pool2DKernel(input: x.index, output: try c.output(0).index, g: g, isMax: isMax,
                            act: KernelSupport.activationRange(c.parameters.activation), threads: c.threadCount)
    }

    func eval(_ e: EvalContext) throws {
        let src = e.floats(input), dst = e.floats(output)
        let g = self.g, isMax = self.isMax, act = self.act
        let rows = g.batch * g.outH
        KernelSupport.parallelChunks(rows, parts: rows * g.outW * g.inC > 1 << 15 ? threads : 1) { range in
            for row in range {
                let b = row / g.outH, oy = row % g.outH
                let y0 = oy * g.strideH - g.padTop
                let fy0 = max(0, -y0), fy1 = min(g.filterH, g.inH - y0)
                for ox in 0..<g.outW {
                    let x0 = ox * g.strideW - g.padLeft
                    let fx0 = max(0, -x0), fx1 = min(g.filterW, g.inW - x0)
                    let o = dst + ((b * g.outH + oy) * g.outW + ox) * g.inC
                    for ch in 0..<g.inC {
                        var acc: Float = isMax ? -.greatestFiniteMagnitude : 0
                        var count = 0
                        if fy0 < fy1 && fx0 < fx1 {
                            for fy in fy0..<fy1 {
                                let rowBase = src + ((b * g.inH + y0 + fy) * g.inW + x0) * g.inC + ch
                                for fx in fx0..<fx1 {
                                    let v = rowBase[fx * g.inC]
                                    if isMax { acc = max(acc, v) } else { acc += v }
                                    count += 1
                                }
                            }
                        }
                        if !isMax { acc = count > 0 ? acc / Float(count) : 0 }
                        o[ch] = min(max(acc, act.min), act.max)
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
