import DetectorModelFile
import DetectorPlatform

/// `DEPTHWISE_CONV_2D` (NHWC input, [1, kH, kW, C·multiplier] filter): float32 with
/// SAME/VALID padding, strides, dilation, depth multiplier, fused activation; and the hybrid
/// form (int8 per-channel filter; the runtime's asymmetric per-batch input quantization).
/// The fast path splits rows over threads; every pixel runs the kernel table's depthwise entry
/// (`TierDepthwise` of the tier's module: 16 channels per step at AVX2 and AVX-512, FMA unless
/// reference rounding is kept; 8 at the baseline): a row's interior pixels (every tap inside the
/// image) in one call, each edge pixel alone with the tap columns inside the image.
/// Hybrid with multiplier 1 runs the same float path on the quantized input (`fastHybrid`): the
/// products of 8-bit values and their sums over at most 512 taps are integers below 2^24, exact
/// in float32 in any order, so the result is `referenceHybrid`'s bit for bit.
/// `referenceFloat` / `referenceHybrid` are the plain loops.
final class DepthwiseConv2DKernel: PreparedKernel {
    let input: Int, filter: Int, bias: Int?, output: Int
    let g: ConvGeometry
    let multiplier: Int
    let act: (min: Float, max: Float)
    let threads: Int
    /// Hybrid: raw int8 weights and per-channel scales.
    let hybrid: (weights: [Int8], scales: [Float])?
    /// The kernel table's depthwise interior, and whether it may fuse multiply-adds.
    let interior: FloatDepthwiseKernel, fused: Bool
    /// Hybrid on the float path (`fastHybrid`): the int8 filter as floats, and where the quantized
    /// input (int8) and its float copy live in the shared scratch.
    let hybridFloatFilter: [Float]?
    let quantizedOffset: Int, floatInputOffset: Int
    let scratch: SharedScratch?
    /// The kernel table's input quantization (the same values at every tier).
    let hybridKernels: HybridKernels

    init(input: Int, filter: Int, bias: Int?, output: Int, g: ConvGeometry, multiplier: Int,
         act: (min: Float, max: Float), threads: Int, hybrid: (weights: [Int8], scales: [Float])?,
         table: KernelTable = .baseline, fused: Bool = false, scratch: SharedScratch? = nil) {
        self.input = input; self.filter = filter; self.bias = bias; self.output = output
        self.g = g; self.multiplier = multiplier; self.act = act; self.threads = threads; self.hybrid = hybrid
        interior = table.depthwise; self.fused = fused && table.hasFusedMultiplyAdd
        hybridKernels = table.hybrid
        if let hybrid, let scratch, multiplier == 1, g.kH * g.kW <= 512 {
            hybridFloatFilter = hybrid.weights.map { Float($0) }
            let count = g.batch * g.inH * g.inW * g.inC
            let layout = SharedScratch.layout([count, count * 4])
            quantizedOffset = layout.offsets[0]; floatInputOffset = layout.offsets[1]
            scratch.reserve(layout.total)
            self.scratch = scratch
        } else {
            hybridFloatFilter = nil; quantizedOffset = 0; floatInputOffset = 0; self.scratch = nil
        }
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, rank: 4, types: [.float32])
        let w = try c.input(1, rank: 4, types: [.float32, .int8])
        let outC = w.shape[3]
        guard w.shape[0] == 1, x.shape[3] > 0, outC % x.shape[3] == 0 else {
            throw c.invalid("filter shape \(w.shape) does not fit input channels \(x.shape[3])")
        }
        let b = c.optionalInput(2)
        if let b { guard b.type == .float32, b.elementCount == outC else { throw c.invalid("bias must be float32 with \(outC) values") } }
        let p = c.parameters
        let window = try WindowGeometry.make(c, input: x, filterH: w.shape[1], filterW: w.shape[2],
                                             dilationH: p.dilationHeightFactor, dilationW: p.dilationWidthFactor)
        let g = ConvGeometry(window: window, inC: x.shape[3], outC: outC)
        try c.setOutput(0, shape: g.outputShape, type: .float32)
        var hybrid: (weights: [Int8], scales: [Float])? = nil
        if w.type == .int8 {
            guard let bytes = c.constantData(input: 1) else { throw c.invalid("hybrid filter must be constant") }
            guard let q = w.quantization, q.scales.count == outC || q.scales.count == 1 else {
                throw c.invalid("int8 filter needs one scale per output channel")
            }
            let scales = q.scales.count == 1 ? [Float](repeating: q.scales[0], count: outC) : q.scales
            hybrid = (Array(bytes.bindMemory(to: Int8.self).prefix(w.elementCount)), scales)
        }
        return DepthwiseConv2DKernel(input: x.index, filter: w.index, bias: b?.index, output: try c.output(0).index, g: g,
                                     multiplier: outC / x.shape[3], act: KernelSupport.activationRange(p.activation),
                                     threads: c.threadCount, hybrid: hybrid, table: c.kernelTable, fused: c.fusesMultiplyAdd,
                                     scratch: c.scratch)
    }

    var kernelName: String? {
        if hybrid != nil, hybridFloatFilter != nil {
            return "hybrid as exact float: " + interior.name
        }
        if hybrid != nil || multiplier != 1 { return "reference loops" }
        return interior.name
    }

    func eval(_ e: EvalContext) throws {
        let src = UnsafePointer(e.floats(input)), dst = e.floats(output)
        let biasPtr = bias.map { UnsafePointer(e.floats($0)) }
        if let hybrid, let floatFilter = hybridFloatFilter, let scratch {
            fastHybrid(src: src, filter: floatFilter, scales: hybrid.scales, bias: biasPtr, dst: dst, scratch: scratch.pointer)
        } else if let hybrid {
            DepthwiseConv2DKernel.referenceHybrid(g: g, multiplier: multiplier, input: src, filter: hybrid.weights,
                                                  scales: hybrid.scales, bias: biasPtr, output: dst, act: act)
        } else if multiplier == 1 {
            fast(src: src, filter: UnsafePointer(e.floats(filter)), bias: biasPtr, dst: dst, act: act)
        } else {
            DepthwiseConv2DKernel.referenceFloat(g: g, multiplier: multiplier, input: src, filter: UnsafePointer(e.floats(filter)),
                                                 bias: biasPtr, output: dst, act: act)
        }
    }

    /// Hybrid, multiplier 1: each batch quantized as `referenceHybrid` does, the quantized values
    /// minus the zero point as floats through `fast` (sums exact, see the type's note), then
    /// `acc · (scale[c] · inputScale) + bias[c]`, clamped: the reference's operations in its order.
    private func fastHybrid(src: UnsafePointer<Float>, filter: [Float], scales: [Float], bias: UnsafePointer<Float>?,
                            dst: UnsafeMutablePointer<Float>, scratch: UnsafeMutableRawPointer) {
        let g = self.g, act = self.act
        let batchSize = g.inH * g.inW * g.inC, outBatch = g.outH * g.outW * g.outC
        let q = (scratch + quantizedOffset).assumingMemoryBound(to: Int8.self)
        let xf = (scratch + floatInputOffset).assumingMemoryBound(to: Float.self)
        var inputScales: [Float] = []
        for b in 0..<g.batch {
            let r = HybridQuantization.asymmetric(src + b * batchSize, count: batchSize, into: q + b * batchSize,
                                                  kernels: hybridKernels, threads: threads)
            inputScales.append(r.scale)
            let qb = q + b * batchSize, xb = xf + b * batchSize
            KernelSupport.parallelChunks(batchSize, parts: batchSize >= 1 << 16 ? threads : 1) { range in
                for i in range { xb[i] = Float(Int32(qb[i]) &- r.offset) }
            }
        }
        filter.withUnsafeBufferPointer { fp in
            guard let f = fp.baseAddress else { return }
            fast(src: UnsafePointer(xf), filter: f, bias: nil, dst: dst, act: (-.infinity, .infinity))
        }
        var multipliers = [Float](repeating: 0, count: g.outC)
        for b in 0..<g.batch {
            for c in 0..<g.outC { multipliers[c] = scales[c] * inputScales[b] }
            let base = dst + b * outBatch
            multipliers.withUnsafeBufferPointer { mp in
                guard let m = mp.baseAddress else { return }
                KernelSupport.parallelChunks(g.outH * g.outW, parts: outBatch >= 1 << 16 ? threads : 1) { pixels in
                    for p in pixels {
                        let o = base + p * g.outC
                        for c in 0..<g.outC {
                            var v = o[c] * m[c]
                            if let bias { v += bias[c] }
                            o[c] = min(max(v, act.min), act.max)
                        }
                    }
                }
            }
        }
    }

    private func fast(src: UnsafePointer<Float>, filter: UnsafePointer<Float>, bias: UnsafePointer<Float>?, dst: UnsafeMutablePointer<Float>,
                      act: (min: Float, max: Float)) {
        let g = self.g
        let rows = g.batch * g.outH
        let C = g.outC
        let work = g.outputPixels * C * g.kH * g.kW
        let interior = self.interior.interior, fused = self.fused
        // The last output column whose taps are all inside the image (-1: none).
        let lastInterior = g.inW - 1 - (g.kW - 1) * g.dilationW + g.padLeft < 0 ? -1
            : min(g.outW - 1, (g.inW - 1 - (g.kW - 1) * g.dilationW + g.padLeft) / g.strideW)
        KernelSupport.parallelChunks(rows, parts: work >= 1 << 16 ? threads : 1) { range in
            for row in range {
                let b = row / g.outH, oy = row % g.outH
                let y0 = oy &* g.strideH &- g.padTop
                // Taps inside the image: ky in kyLo..<kyHi (same for the whole row).
                var kyLo = 0, kyHi = g.kH
                while kyLo < kyHi && y0 &+ kyLo &* g.dilationH < 0 { kyLo &+= 1 }
                while kyHi > kyLo && y0 &+ (kyHi &- 1) &* g.dilationH >= g.inH { kyHi &-= 1 }
                let rowBase = src + (b &* g.inH &+ y0) &* g.inW &* C
                let rowStep = g.dilationH &* g.inW &* C
                let colStep = g.dilationW &* C
                let pixStep = g.strideW &* C
                let out = dst + (b &* g.outH &+ oy) &* g.outW &* C
                // The interior columns (every kx tap inside the image) in one call, several output
                // pixels per step so each filter vector is loaded once for all of them; a column at
                // the left or right edge alone, with its taps inside the image. Per output the sum
                // order (ky, kx ascending, bias last) is the reference's.
                var ox = 0
                while ox < g.outW {
                    let x0 = ox &* g.strideW &- g.padLeft
                    if x0 >= 0 && ox <= lastInterior {
                        let count = lastInterior &- ox &+ 1
                        interior(rowBase + x0 &* C, filter, bias, out + ox &* C, C, count, kyLo, kyHi, g.kW, g.kW,
                                 rowStep, colStep, pixStep, act.min, act.max, fused)
                        ox &+= count
                        continue
                    }
                    var kxLo = 0, kxHi = g.kW
                    while kxLo < kxHi && x0 &+ kxLo &* g.dilationW < 0 { kxLo &+= 1 }
                    while kxHi > kxLo && x0 &+ (kxHi &- 1) &* g.dilationW >= g.inW { kxHi &-= 1 }
                    interior(rowBase + x0 &* C + kxLo &* colStep, filter + kxLo &* C, bias, out + ox &* C, C, 1,
                             kyLo, kyHi, g.kW, kxHi &- kxLo, rowStep, colStep, pixStep, act.min, act.max, fused)
                    ox &+= 1
                }
            }
        }
    }

    /// Plain float depthwise convolution (reference loop order).
    static func referenceFloat(g: ConvGeometry, multiplier: Int, input: UnsafePointer<Float>, filter: UnsafePointer<Float>,
                               bias: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>, act: (min: Float, max: Float)) {
        for b in 0..<g.batch {
            for oy in 0..<g.outH {
                for ox in 0..<g.outW {
                    for ic in 0..<g.inC {
                        for m in 0..<multiplier {
                            let oc = ic * multiplier + m
                            var total: Float = 0
                            for ky in 0..<g.kH {
                                let y = oy * g.strideH - g.padTop + ky * g.dilationH
                                if y < 0 || y >= g.inH { continue }
                                for kx in 0..<g.kW {
                                    let x = ox * g.strideW - g.padLeft + kx * g.dilationW
                                    if x < 0 || x >= g.inW { continue }
                                    total += input[((b * g.inH + y) * g.inW + x) * g.inC + ic] * filter[(ky * g.kW + kx) * g.outC + oc]
                                }
                            }
                            if let bias { total += bias[oc] }
                            output[((b * g.outH + oy) * g.outW + ox) * g.outC + oc] = min(max(total, act.min), act.max)
                        }
                    }
                }
            }
        }
    }

    /// Hybrid depthwise convolution as the runtime computes it: asymmetric int8 quantization
    /// of each batch, integer accumulation of filter · (q - offset), then
    /// acc · (channel scale · batch scale) + bias.
    static func referenceHybrid(g: ConvGeometry, multiplier: Int, input: UnsafePointer<Float>, filter: [Int8], scales: [Float],
                                bias: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>, act: (min: Float, max: Float)) {
        let batchSize = g.inH * g.inW * g.inC
        let q = UnsafeMutablePointer<Int8>.allocate(capacity: max(1, batchSize))
        q.initialize(repeating: 0, count: max(1, batchSize))
        defer { q.deallocate() }
        for b in 0..<g.batch {
            let r = HybridQuantization.asymmetric(input + b * batchSize, count: batchSize, into: q)
            for oy in 0..<g.outH {
                for ox in 0..<g.outW {
                    for ic in 0..<g.inC {
                        for m in 0..<multiplier {
                            let oc = ic * multiplier + m
                            var acc: Int32 = 0
                            for ky in 0..<g.kH {
                                let y = oy * g.strideH - g.padTop + ky * g.dilationH
                                if y < 0 || y >= g.inH { continue }
                                for kx in 0..<g.kW {
                                    let x = ox * g.strideW - g.padLeft + kx * g.dilationW
                                    if x < 0 || x >= g.inW { continue }
                                    acc &+= Int32(filter[(ky * g.kW + kx) * g.outC + oc]) * (Int32(q[(y * g.inW + x) * g.inC + ic]) - r.offset)
                                }
                            }
                            var v = Float(acc) * (scales[oc] * r.scale)
                            if let bias { v += bias[oc] }
                            output[((b * g.outH + oy) * g.outW + ox) * g.outC + oc] = min(max(v, act.min), act.max)
                        }
                    }
                }
            }
        }
    }
}
