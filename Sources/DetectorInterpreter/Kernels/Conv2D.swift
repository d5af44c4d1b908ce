import DetectorModelFile
import DetectorPlatform

/// `CONV_2D` (NHWC input, OHWI filter, optional bias): float32, grouped (input channels a
/// multiple of the filter's), SAME/VALID padding, strides, dilation, fused activation; and the
/// hybrid form (float32 input/output, int8 filter) computed like the official runtime's hybrid
/// kernels. Fast paths: `WinogradConvolution` for 3×3 stride-1 float filters, else im2col
/// tiles + `FloatGEMM`, over `threadCount` threads; `referenceFloat` and `referenceHybrid` are
/// the plain loops kept as oracles.
final class Conv2DKernel: PreparedKernel {
    enum Mode {
        /// Float weights packed for the GEMM.
        case gemm(FloatGEMM.PackedMatrix)
        /// 3×3 stride-1 float weights, transformed for Winograd F(2×2, 3×3).
        case winograd(WinogradConvolution)
        /// Plain loops (grouped conv, or weights that are not constant).
        case reference
        /// Hybrid: int8 weights.
        case hybrid(HybridWeights)
        /// Few input channels: output pixels in the lanes.
        case planar(PlanarConvolution)
    }

    /// int8 weights of a hybrid conv, packed for `IntegerGemm` (exact Int32 sums of the
    /// int8 weight × (quantized input − offset) products, like the runtime's hybrid kernels):
    /// as `Int16` for `IntegerGemm.multiply`, or as bytes for the byte GEMM when the kernel
    /// table has one (AVX-512 VNNI).
    final class HybridWeights {
        /// The weights for `IntegerGemm.multiply` (empty when `bytes` is set).
        let packed: [Int16]
        /// With a byte GEMM: the weights for `IntegerGemm.multiplyBytes`.
        let bytes: HybridByteWeights?
        /// The kernel-table entries that read `packed` or `bytes` and quantize and rescale around them.
        let integerGEMM: IntegerGEMMKernel, byteGEMM: ByteGEMMKernel?, hybrid: HybridKernels
        let raw: [Int8]
        /// Per output channel scale (all equal for per-tensor filters).
        let scales: [Float]
        /// TFLite uses the asymmetric per-channel path only when the channel scales differ.
        let perChannel: Bool
        init(raw: [Int8], outC: Int, k: Int, scales: [Float], perChannel: Bool, table: KernelTable) {
            self.raw = raw; self.scales = scales; self.perChannel = perChannel
            integerGEMM = table.integerGEMM; hybrid = table.hybrid
            if let byteGEMM = table.byteGEMM, raw.count == outC * k {
                self.byteGEMM = byteGEMM
                bytes = HybridByteWeights(raw: raw, outC: outC, k: k)
                packed = []
            } else {
                byteGEMM = nil
                bytes = nil
                packed = raw.map { Int16($0) }.withUnsafeBufferPointer {
                    IntegerGemm.packB($0, n: outC, k: k, panelWidth: table.integerGEMM.panelWidth)
                }
            }
        }
    }

    /// A hybrid conv's int8 weights for the byte GEMM (`IntegerGemm.multiplyBytes`, AVX-512
    /// VNNI `vpdpbusd`, unsigned × signed bytes). The input is fed as `x' = q + 128` (`q` XOR
    /// 0x80, in 0…255) and the weights as they are (symmetric, zero point 0), so
    ///
    ///     Σ (q − offset)·w = Σ x'·w − (128 + offset)·Σ w
    ///
    /// with `Σ w` per output channel (`weightSums`) known at prepare and the input's offset per
    /// batch at invoke. Padding taps hold `x' = 128 + offset` (they add 0, as the `Int16`
    /// path's 0); the depth padding to a multiple of 4 has weight 0. Every sum is exact
    /// (wrapping) `Int32` arithmetic, so the rescaled outputs are bit-identical to the `Int16`
    /// path's. Example: q = [5, −3], w = [2, 4], offset −1: x' = [133, 125], Σx'w = 766,
    /// (128 − 1)·6 = 762, 766 − 762 = 4 = (5 + 1)·2 + (−3 + 1)·4.
    struct HybridByteWeights {
        /// The weights packed by `IntegerGemm.packBytes`.
        let panels: [Int8]
        /// `Σ_k w[c][k]` per output channel.
        let weightSums: [Int32]

        init(raw: [Int8], outC: Int, k: Int) {
            panels = raw.withUnsafeBufferPointer { IntegerGemm.packBytes($0, n: outC, k: k) }
            weightSums = (0..<outC).map { c in raw[(c * k)..<(c * k + k)].reduce(Int32(0)) { $0 &+ Int32($1) } }
        }
    }

    let input: Int, filter: Int, bias: Int?, output: Int
    let g: ConvGeometry
    let groups: Int
    let act: (min: Float, max: Float)
    let threads: Int
    /// The kernel table the kernel was prepared with.
    let table: KernelTable
    let mode: Mode
    /// A SiLU folded in by `ActivationFusion`: the output is x · logistic(x), computed in the
    /// GEMM/Winograd epilogue (`silu`), or in a pass after the other paths (`siluAfter`),
    /// with LOGISTIC's and MUL's own roundings in graphs with hybrid kernels.
    let silu: Bool, siluAfter: Bool, faithfulSiLU: Bool
    /// A residual ADD folded in by `ActivationFusion` (`Epilogue.residual`): its other operand,
    /// the operand order and the ADD's clamp. It runs on the tier's same-shape ADD (the ADD
    /// op's own kernel, so the same bits), per chunk of rows right after the GEMM wrote them
    /// on the 1×1 path, over the whole output on the others.
    struct Residual {
        let tensor: Int, outputFirst: Bool
        let lo: Float, hi: Float, clamps: Bool
    }
    let residual: Residual?
    let tileRows = 60
    /// Output pixels per tile of the hybrid byte GEMM (a multiple of its 8-row register tile).
    let byteTileRows = 64
    /// The interpreter's shared eval memory, which holds `scratchParts` per-thread parts
    /// (im2col rows, hybrid accumulators) `partStride` bytes apart, then (hybrid) the
    /// quantized input and the batch terms at their offsets.
    let shared: SharedScratch
    let scratchParts: Int, partStride: Int
    /// Hybrid: the quantized input (int8 `q`, then `q − offset` as `Int16` rows; or the bytes
    /// `q + 128` for the byte GEMM).
    let quantizedOffset: Int?
    /// Hybrid: per batch, the input scale (`Float`), then (byte GEMM) per batch and output
    /// channel the sum correction `(128 + offset)·Σw` (`Int32`), then per batch the padding byte.
    let batchTermsOffset: Int?
    /// GEMM path with padding: the input with its padding written out, read in place
    /// instead of through im2col rows.
    let paddedInput: PaddedInput?
    /// Hybrid byte GEMM reading each output pixel's filter rows where they lie (no im2col): the
    /// geometry it reads (the input's own when no window leaves it, else the over-padded copy's).
    let byteRowSource: ConvGeometry?
    /// Offset in `shared` of the over-padded copy of the quantized input bytes (rewritten, borders
    /// = the batch's padding byte, at each eval).
    let paddedBytesOffset: Int?

    init(input: Int, filter: Int, bias: Int?, output: Int, g: ConvGeometry, groups: Int,
         act: (min: Float, max: Float), threads: Int, table: KernelTable = .baseline, mode: Mode, silu: Bool = false,
         siluAfter: Bool = false, faithfulSiLU: Bool = false, residual: Residual? = nil, scratch: SharedScratch) {
        self.input = input; self.filter = filter; self.bias = bias; self.output = output
        self.residual = residual
        self.table = table
        self.g = g; self.groups = groups; self.act = act; self.threads = threads; self.mode = mode
        self.silu = silu; self.siluAfter = siluAfter; self.faithfulSiLU = faithfulSiLU
        let k = g.kH * g.kW * g.inC
        var perThread = 0
        switch mode {
        case .gemm, .planar: perThread = 0
        case .winograd(let w): perThread = w.scratchBytes
        case .reference: perThread = 0
        case .hybrid(let weights):
            if weights.bytes != nil, Conv2DKernel.byteRowSource(g) != nil {
                perThread = max(g.outW, 1) * g.outC * 4
            } else if weights.bytes != nil {
                perThread = (Conv2DKernel.readsBytesInPlace(g) ? 0 : byteTileRows * IntegerGemm.paddedByteDepth(k)) + byteTileRows * g.outC * 4
            } else {
                perThread = (g.isPointwise ? 0 : tileRows * IntegerGemm.paddedDepth(k) * 2) + tileRows * g.outC * 4
            }
        }
        var padded: PaddedInput?
        if case .gemm = mode, !g.isPointwise, !g.readsInPlace {
            padded = PaddedInput(g)
            if padded == nil { perThread = tileRows * k * 4 }
        }
        paddedInput = padded
        shared = scratch
        scratchParts = max(1, threads)
        partStride = (perThread + 63) / 64 * 64
        var sizes = [scratchParts * partStride]
        if case .hybrid(let weights) = mode {
            if weights.bytes != nil {
                // q + 128 as bytes, the pixels' rows as they are.
                sizes.append(g.batch * g.inH * g.inW * g.inC)
            } else {
                // int8 input, then (q − offset) as Int16 rows (padded to the GEMM depth when pointwise).
                let rowStride = g.isPointwise ? IntegerGemm.paddedDepth(k) : g.inC
                sizes.append(g.batch * g.inH * g.inW * (g.inC + 2 * rowStride))
            }
            sizes.append(g.batch * (4 + 4 * g.outC + 1))
        }
        var paddedBytesSize: Int? = nil
        if case .hybrid(let weights) = mode, weights.bytes != nil, let source = Conv2DKernel.byteRowSource(g) {
            byteRowSource = source
            let sameInput = source.inH == g.inH && source.inW == g.inW && g.padTop == 0 && g.padLeft == 0
            if !sameInput { paddedBytesSize = g.batch * source.inH * source.inW * g.inC }
        } else {
            byteRowSource = nil
        }
        if let paddedBytesSize { sizes.append(paddedBytesSize) }
        let layout = SharedScratch.layout(sizes)
        quantizedOffset = sizes.count > 1 ? layout.offsets[1] : nil
        batchTermsOffset = sizes.count > 2 ? layout.offsets[2] : nil
        paddedBytesOffset = paddedBytesSize != nil ? layout.offsets[3] : nil
        scratch.reserve(layout.total)
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, rank: 4, types: [.float32])
        let w = try c.input(1, rank: 4, types: [.float32, .int8])
        let b = c.optionalInput(2)
        if let b { guard b.type == .float32, b.elementCount == w.shape[0] else { throw c.invalid("bias must be float32 with \(w.shape[0]) values") } }
        let outC = w.shape[0], kH = w.shape[1], kW = w.shape[2], filterC = w.shape[3]
        guard filterC > 0, x.shape[3] % filterC == 0 else {
            throw c.invalid("input channels \(x.shape[3]) are not a multiple of filter channels \(filterC)")
        }
        let groups = x.shape[3] / filterC
        guard groups > 0, outC % groups == 0 else { throw c.invalid("output channels \(outC) do not split into \(groups) groups") }
        let p = c.parameters
        let window = try WindowGeometry.make(c, input: x, filterH: kH, filterW: kW,
                                             dilationH: p.dilationHeightFactor, dilationW: p.dilationWidthFactor)
        var g = ConvGeometry(window: window, inC: x.shape[3], outC: outC)
        try c.setOutput(0, shape: g.outputShape, type: .float32)
        let out = try c.output(0)
        let act = KernelSupport.activationRange(p.activation)
        let k = kH * kW * filterC
        var mode = Mode.reference
        if w.type == .int8 {
            guard groups == 1 else { throw c.invalid("hybrid grouped convolution is not supported") }
            guard let bytes = c.constantData(input: 1) else { throw c.invalid("hybrid filter must be constant") }
            guard let q = w.quantization, !q.scales.isEmpty else { throw c.invalid("int8 filter has no scale") }
            let raw = Array(bytes.bindMemory(to: Int8.self).prefix(w.elementCount))
            var scales = q.scales
            if scales.count == 1 { scales = [Float](repeating: scales[0], count: outC) }
            guard scales.count == outC else { throw c.invalid("filter has \(q.scales.count) scales for \(outC) channels") }
            let perChannel = q.scales.count > 1 && q.scales.contains { $0 != q.scales[0] }
            mode = .hybrid(HybridWeights(raw: raw, outC: outC, k: k, scales: scales, perChannel: perChannel, table: c.kernelTable))
            // The runtime's hybrid conv ignores dilation when computing (it forces 1).
            if p.dilationHeightFactor != 1 || p.dilationWidthFactor != 1 {
                var undilated = window
                undilated.dilationHeight = 1; undilated.dilationWidth = 1
                g = ConvGeometry(window: undilated, inC: x.shape[3], outC: outC)
            }
        } else if groups == 1, let bytes = c.constantData(input: 1) {
            let wf = bytes.bindMemory(to: Float.self)
            if !c.roundsLikeReference, WinogradConvolution.applies(to: g, groups: groups, table: c.kernelTable), let base = wf.baseAddress {
                mode = .winograd(WinogradConvolution(g: g, weights: base, table: c.kernelTable, fused: c.fusesMultiplyAdd))
            } else if let base = wf.baseAddress, wf.count >= k * outC,
                      let planar = PlanarConvolution(g: g, groups: groups, weights: base, table: c.kernelTable,
                                                     fused: c.fusesMultiplyAdd, threads: c.threadCount) {
                mode = .planar(planar)
            } else {
                guard let base = wf.baseAddress, wf.count >= k * outC else { throw c.invalid("its filter holds \(wf.count) values, fewer than \(k * outC)") }
                mode = .gemm(FloatGEMM.PackedMatrix(k: k, n: outC, table: c.kernelTable, fused: c.fusesMultiplyAdd,
                                                    source: base, kStride: 1, nStride: k))
            }
        }
        // The epilogue SiLU where nothing needs reference rounding and a fast path runs.
        var fastSiLU = !c.roundsLikeReference
        if case .reference = mode { fastSiLU = false }
        if case .hybrid = mode { fastSiLU = false }
        var residual: Residual? = nil
        if case .residual(let r)? = c.epilogue {
            let range = KernelSupport.activationRange(r.activation)
            residual = Residual(tensor: r.tensor, outputFirst: r.outputFirst, lo: range.min, hi: range.max,
                                clamps: range.min > -.greatestFiniteMagnitude || range.max < .greatestFiniteMagnitude)
        }
        return Conv2DKernel(input: x.index, filter: w.index, bias: b?.index, output: out.index, g: g, groups: groups,
                            act: act, threads: c.threadCount, table: c.kernelTable, mode: mode, silu: c.epilogue == .silu && fastSiLU,
                            siluAfter: c.epilogue == .silu && !fastSiLU, faithfulSiLU: c.roundsLikeReference, residual: residual,
                            scratch: c.scratch)
    }

    var kernelName: String? {
        switch mode {
        case .gemm(let packed): return packed.kernel.name
        case .winograd(let w): return "winograd F(2x2,3x3) + " + (w.filters.first?.kernel.name ?? "")
        case .reference: return "reference loops"
        case .planar(let p): return p.kernel.name
        case .hybrid(let weights): return (weights.byteGEMM?.name ?? weights.integerGEMM.name) + " + " + weights.hybrid.name
        }
    }

    func eval(_ e: EvalContext) throws {
        let src = UnsafePointer(e.floats(input)), dst = e.floats(output)
        let biasPtr = bias.map { UnsafePointer(e.floats($0)) }
        switch mode {
        case .reference:
            Conv2DKernel.referenceFloat(g: g, groups: groups, input: src, filter: e.floats(filter), bias: biasPtr,
                                        output: dst, act: act)
        case .gemm(let packed):
            runGEMM(src: src, dst: dst, bias: biasPtr, packed: packed, other: residual.map { UnsafePointer(e.floats($0.tensor)) })
        case .planar(let p):
            p.run(input: src, bias: biasPtr, output: dst, lo: act.min, hi: act.max, silu: silu,
                  parts: parts(g.outputPixels * g.kH * g.kW * g.inC * g.outC))
        case .winograd(let w):
            let tiles = w.tileCount, act = self.act, silu = self.silu, base = shared.pointer, stride = partStride
            let p = min(parts(g.outputPixels * g.kH * g.kW * g.inC * g.outC), scratchParts)
            KernelSupport.parallelRanges(tiles, parts: p) { slot, range in
                w.run(tiles: range, input: src, bias: biasPtr, output: dst, act: act, silu: silu, scratch: base + slot * stride)
            }
        case .hybrid(let weights):
            runHybrid(src: src, dst: dst, bias: biasPtr, weights: weights, silu: siluAfter)
            if let residual { addResidual(residual, e, dst) }
            return
        }
        if siluAfter { siluInPlace(dst, count: g.outputPixels * g.outC) }
        if let residual, !residualAddedByGEMM { addResidual(residual, e, dst) }
    }

    /// Whether the 1×1 GEMM path adds the residual per chunk itself (`runGEMM`).
    private var residualAddedByGEMM: Bool {
        if case .gemm = mode, g.isPointwise { return true }
        return false
    }

    /// The whole output's residual ADD (`addResidual(_:into:other:count:)`), over the threads.
    private func addResidual(_ r: Residual, _ e: EvalContext, _ dst: UnsafeMutablePointer<Float>) {
        let other = UnsafePointer(e.floats(r.tensor)), count = g.outputPixels * g.outC
        KernelSupport.parallelElements(count, threads: count >= 1 << 14 ? threads : 1, minimumPerPart: 1 << 13) { range in
            addResidual(r, into: dst + range.lowerBound, other: other + range.lowerBound, count: range.count)
        }
    }

    /// `o = clamp(o + x)` for `count` values, operands in the ADD's order: the ADD op's own
    /// same-shape kernel (`elementwise.binary`).
    @inline(__always)
    private func addResidual(_ r: Residual, into o: UnsafeMutablePointer<Float>, other x: UnsafePointer<Float>, count: Int) {
        if r.outputFirst {
            table.elementwise.binary(0, o, x, o, count, r.lo, r.hi, r.clamps)
        } else {
            table.elementwise.binary(0, x, o, o, count, r.lo, r.hi, r.clamps)
        }
    }

    /// The filter, where eval reads only the packed weights (GEMM and Winograd).
    var packedInputs: [Int] {
        switch mode {
        case .gemm, .winograd, .planar: return [filter]
        case .reference, .hybrid: return []
        }
    }

    private func parts(_ work: Int) -> Int { work >= 1 << 16 ? threads : 1 }

    /// The SiLU after the float paths, in chunks over the threads; the faithful form (LOGISTIC's
    /// and MUL's roundings) from the kernel table (`HybridKernels.faithfulSiLU`, the same values
    /// at every width).
    private func siluInPlace(_ p: UnsafeMutablePointer<Float>, count: Int) {
        let faithful = faithfulSiLU, faithfulSiLU = table.hybrid.faithfulSiLU
        // Parts on 64-element boundaries: each value takes the same SIMD step on any thread count.
        KernelSupport.parallelElements(count, threads: threads, minimumPerPart: 1 << 15) { chunk in
            if faithful {
                faithfulSiLU(p + chunk.lowerBound, chunk.count)
            } else {
                FloatVectorMath.siluInPlace(p + chunk.lowerBound, count: chunk.count)
            }
        }
    }

    /// `other`: the residual ADD's other operand, when one is folded in (added per chunk on the 1×1 path).
    private func runGEMM(src: UnsafePointer<Float>, dst: UnsafeMutablePointer<Float>, bias: UnsafePointer<Float>?,
                         packed: FloatGEMM.PackedMatrix, other: UnsafePointer<Float>?) {
        let g = self.g, m = g.outputPixels, k = packed.k
        let act = self.act, tile = tileRows, base = shared.pointer, stride = partStride, silu = self.silu
        let work = m * k * g.outC
        if g.isPointwise {
            if let residual, let other {
                // The ADD over each chunk of rows right after the GEMM wrote them (still in cache).
                let outC = g.outC
                KernelSupport.parallelChunks(m, parts: parts(work), align: 24) { rows in
                    FloatGEMM.multiply(rows: rows, a: src, lda: k, b: packed, bias: bias, c: dst, ldc: outC,
                                       clampMin: act.min, clampMax: act.max, silu: silu)
                    addResidual(residual, into: dst + rows.lowerBound * outC, other: other + rows.lowerBound * outC,
                                count: rows.count * outC)
                }
                return
            }
            FloatGEMM.parallelMultiply(m: m, parts: parts(work), a: src, lda: k, b: packed, bias: bias, c: dst, ldc: g.outC,
                                       clampMin: act.min, clampMax: act.max, silu: silu)
            return
        }
        if g.readsInPlace || paddedInput != nil {
            // Each output row is one GEMM reading the (padded) input where it is.
            let input = paddedInput.map { $0.fill(from: src, threads: parts(work)) } ?? src
            let g = paddedInput?.padded ?? g
            let layout = FloatGEMM.RowLayout(count: g.kH, length: g.kW * g.inC, stride: g.inW * g.inC)
            KernelSupport.parallelChunks(g.batch * g.outH, parts: parts(work)) { outputRows in
                for row in outputRows {
                    let b = row / g.outH, y = row - b * g.outH
                    FloatGEMM.multiply(rows: 0..<g.outW, a: input + ((b * g.inH + y * g.strideH) * g.inW) * g.inC,
                                       lda: g.strideW * g.inC, b: packed, bias: bias, c: dst + row * g.outW * g.outC,
                                       ldc: g.outC, clampMin: act.min, clampMax: act.max, silu: silu, layout: layout)
                }
            }
            return
        }
        let tiles = (m + tile - 1) / tile
        let p = min(parts(work), scratchParts)
        KernelSupport.parallelRanges(tiles, parts: p) { slot, range in
            let a = (base + slot * stride).assumingMemoryBound(to: Float.self)
            var t = range.lowerBound
            let tEnd = range.upperBound
            while t < tEnd {
                let p0 = t * tile, p1 = min(m, p0 + tile)
                g.im2col(src, pixels: p0..<p1, channels: g.inC, padValue: 0, into: a)
                FloatGEMM.multiply(rows: 0..<(p1 - p0), a: a, lda: k, b: packed, bias: bias, c: dst + p0 * g.outC,
                                   ldc: g.outC, clampMin: act.min, clampMax: act.max, silu: silu)
                t += 1
            }
        }
    }

    /// `silu`: the folded SiLU, as `FloatVectorMath.logisticProduct` (LOGISTIC's and MUL's
    /// roundings), in the rescaling loop.
    private func runHybrid(src: UnsafePointer<Float>, dst: UnsafeMutablePointer<Float>, bias: UnsafePointer<Float>?,
                           weights: HybridWeights, silu: Bool) {
        if let bytes = weights.bytes, let byteGEMM = weights.byteGEMM {
            runHybridBytes(src: src, dst: dst, bias: bias, weights: weights, bytes: bytes, byteGEMM: byteGEMM, silu: silu)
            return
        }
        let g = self.g, m = g.outputPixels, k = g.kH * g.kW * g.inC, kp = IntegerGemm.paddedDepth(k)
        let batchSize = g.inH * g.inW * g.inC
        guard let quantizedOffset, let batchTermsOffset else { return }
        let quantized = shared.pointer + quantizedOffset, batchTerms = shared.pointer + batchTermsOffset
        let q8 = quantized.assumingMemoryBound(to: Int8.self)
        let x16 = (quantized + g.batch * batchSize).assumingMemoryBound(to: Int16.self)
        let rowStride = g.isPointwise ? kp : g.inC
        let batchScale = batchTerms.assumingMemoryBound(to: Float.self)
        for b in 0..<g.batch {
            let s = src + b * batchSize, q = q8 + b * batchSize
            let (scale, offset) = quantizeBatch(s, count: batchSize, weights: weights, unsignedBytes: false, into: q)
            batchScale[b] = scale
            // (q − offset) ∈ [-255, 255]; the tail of pointwise rows up to kp is not written (it
            // meets weight 0, so whatever the shared scratch holds there adds 0).
            let pixels = g.inH * g.inW
            for pixel in 0..<pixels {
                let from = q + pixel * g.inC, to = x16 + (b * pixels + pixel) * rowStride
                for c in 0..<g.inC { to[c] = Int16(truncatingIfNeeded: Int32(from[c]) &- offset) }   // both in [-128, 127]
            }
        }
        let act = self.act, tile = tileRows, outC = g.outC
        let pixelsPerBatch = g.outH * g.outW
        let perChannel = weights.perChannel, gemm = weights.integerGEMM, rescale = weights.hybrid.rescale
        weights.scales.withUnsafeBufferPointer { scales in
        weights.packed.withUnsafeBufferPointer { packed in
            guard let w = packed.baseAddress, let scales = scales.baseAddress else { return }
            forEachTile(pixels: m, tile: tile, work: m * k * outC) { base, pixels in
                let acc = base.assumingMemoryBound(to: Int32.self)
                let p0 = pixels.lowerBound, p1 = pixels.upperBound, rows = pixels.count
                let aRows: UnsafePointer<Int16>
                if g.isPointwise {
                    aRows = UnsafePointer(x16 + p0 * kp)
                } else {
                    // im2col rows of kp values; the tail beyond k is not written (it meets weight 0).
                    let patch = (base + tile * outC * 4).assumingMemoryBound(to: Int16.self)
                    im2colRows(UnsafePointer(x16), pixels: pixels, rowStride: kp, pad: { _ in 0 }, into: patch)
                    aRows = UnsafePointer(patch)
                }
                IntegerGemm.multiply(a: aRows, lda: kp, packedB: w, m: rows, n: outC, kPadded: kp, c: acc, ldc: outC, kernel: gemm)
                // Rows of one batch at a time (one input scale).
                var pixel = p0
                while pixel < p1 {
                    let b = pixel / pixelsPerBatch, end = min(p1, (b + 1) * pixelsPerBatch)
                    rescale(acc + (pixel - p0) * outC, end - pixel, outC, scales, perChannel, batchScale[b], nil, bias,
                            act.min, act.max, silu, dst + pixel * outC)
                    pixel = end
                }
            }
        }
        }
    }

    /// Runs `body(scratch, pixels)` for each tile of `tile` output pixels (of `m`); the tiles
    /// split over the threads in contiguous runs (`parts(work)`), one scratch buffer a thread.
    private func forEachTile(pixels m: Int, tile: Int, work: Int, _ body: (UnsafeMutableRawPointer, Range<Int>) -> Void) {
        let tiles = (m + tile - 1) / tile, scratch = shared.pointer, stride = partStride
        let p = min(parts(work), scratchParts)
        KernelSupport.parallelRanges(tiles, parts: p) { slot, range in
            let base = scratch + slot * stride
            for t in range { body(base, (t * tile)..<min(m, t * tile + tile)) }
        }
    }

    /// The im2col rows of output `pixels` into `patch`, `rowStride` apart (the tail beyond the
    /// patch size untouched), split at batch boundaries: taps outside batch b's image get `pad(b)`.
    private func im2colRows<T>(_ x: UnsafePointer<T>, pixels: Range<Int>, rowStride kp: Int, pad: (Int) -> T,
                               into patch: UnsafeMutablePointer<T>) {
        let k = g.kH * g.kW * g.inC, pixelsPerBatch = g.outH * g.outW
        var pixel = pixels.lowerBound
        while pixel < pixels.upperBound {
            let b = pixel / pixelsPerBatch, end = min(pixels.upperBound, (b + 1) * pixelsPerBatch), value = pad(b)
            if kp == k {
                g.im2col(x, pixels: pixel..<end, channels: g.inC, padValue: value, into: patch + (pixel - pixels.lowerBound) * kp)
            } else {
                for r in pixel..<end {
                    g.im2col(x, pixels: r..<(r + 1), channels: g.inC, padValue: value, into: patch + (r - pixels.lowerBound) * kp)
                }
            }
            pixel = end
        }
    }

    /// Quantizes one batch of the input with the weights' kernel-table entry over the kernel's threads:
    /// symmetric (scale × the filter's scale, offset 0) or, with per-channel scales, asymmetric.
    private func quantizeBatch(_ x: UnsafePointer<Float>, count: Int, weights: HybridWeights, unsignedBytes: Bool,
                               into q: UnsafeMutablePointer<Int8>) -> (scale: Float, offset: Int32) {
        if weights.perChannel {
            return HybridQuantization.asymmetric(x, count: count, into: q, kernels: weights.hybrid, threads: threads,
                                                 unsignedBytes: unsignedBytes)
        }
        let scale = HybridQuantization.symmetric(x, count: count, into: q, kernels: weights.hybrid, threads: threads,
                                                 unsignedBytes: unsignedBytes)
        return (scale * (weights.scales.first ?? 1), 0)
    }

    /// The byte GEMM reads the quantized input rows where they are: pointwise, depth a multiple of 4.
    static func readsBytesInPlace(_ g: ConvGeometry) -> Bool {
        g.isPointwise && g.inC == IntegerGemm.paddedByteDepth(g.inC)
    }

    /// The geometry the byte GEMM reads filter rows from in place (`kW × inC` bytes each, a
    /// multiple of 4 when `inC` is): the input's own when every window lies inside it, else
    /// the over-padded copy's (at most 64 MB); nil for pointwise rows read directly, depths that
    /// are not a multiple of 4, or dilation (these take im2col rows).
    static func byteRowSource(_ g: ConvGeometry) -> ConvGeometry? {
        guard !readsBytesInPlace(g), g.inC % 4 == 0, g.dilationH == 1, g.dilationW == 1 else { return nil }
        if g.readsInPlace { return g }
        guard let p = g.overPaddedInput else { return nil }
        let (plane, o1) = p.inH.multipliedReportingOverflow(by: p.inW)
        let (count, o2) = plane.multipliedReportingOverflow(by: p.inC)
        let (total, o3) = count.multipliedReportingOverflow(by: p.batch)
        guard !o1, !o2, !o3, total <= 64 << 20 else { return nil }
        return p
    }

    /// The hybrid convolution on the byte GEMM (AVX-512 VNNI) (see `HybridByteWeights`): each batch
    /// quantized straight to `x' = q + 128` bytes, im2col rows of bytes with `128 + offset` in
    /// padding taps (pointwise inputs with a depth multiple of 4 read in place),
    /// `IntegerGemm.multiplyBytes`, then the rescale with the batch's `(128 + offset)·Σw`
    /// taken off each sum first.
    private func runHybridBytes(src: UnsafePointer<Float>, dst: UnsafeMutablePointer<Float>, bias: UnsafePointer<Float>?,
                                weights: HybridWeights, bytes: HybridByteWeights, byteGEMM: ByteGEMMKernel, silu: Bool) {
        let g = self.g, m = g.outputPixels, k = g.kH * g.kW * g.inC, kp = IntegerGemm.paddedByteDepth(k)
        let batchSize = g.inH * g.inW * g.inC, outC = g.outC
        guard let quantizedOffset, let batchTermsOffset, bytes.weightSums.count == outC else { return }
        let x = (shared.pointer + quantizedOffset).assumingMemoryBound(to: UInt8.self)
        let batchTerms = shared.pointer + batchTermsOffset
        let batchScale = batchTerms.assumingMemoryBound(to: Float.self)
        let corrections = (batchTerms + 4 * g.batch).assumingMemoryBound(to: Int32.self)
        let pads = (batchTerms + 4 * g.batch + 4 * g.batch * outC).assumingMemoryBound(to: UInt8.self)
        for b in 0..<g.batch {
            let (scale, offset) = quantizeBatch(src + b * batchSize, count: batchSize, weights: weights, unsignedBytes: true,
                                                into: UnsafeMutableRawPointer(x + b * batchSize).assumingMemoryBound(to: Int8.self))
            batchScale[b] = scale
            let shifted = 128 &+ offset   // offset ∈ [-128, 127]: the padding byte, 0…255
            pads[b] = UInt8(truncatingIfNeeded: shifted)
            for c in 0..<outC { corrections[b * outC + c] = shifted &* bytes.weightSums[c] }
        }
        if let source = byteRowSource {
            runHybridByteRows(x: UnsafePointer(x), source: source, bias: bias, weights: weights, bytes: bytes, byteGEMM: byteGEMM, silu: silu,
                              batchScale: batchScale, corrections: corrections, pads: pads, dst: dst)
            return
        }
        let act = self.act, tile = byteTileRows
        let pixelsPerBatch = g.outH * g.outW
        let perChannel = weights.perChannel, rescale = weights.hybrid.rescale
        let inPlace = Conv2DKernel.readsBytesInPlace(g)
        weights.scales.withUnsafeBufferPointer { scales in
        bytes.panels.withUnsafeBufferPointer { panels in
            guard let w = panels.baseAddress, let scales = scales.baseAddress else { return }
            forEachTile(pixels: m, tile: tile, work: m * k * outC) { base, pixels in
                let acc = base.assumingMemoryBound(to: Int32.self)
                let p0 = pixels.lowerBound, p1 = pixels.upperBound
                let aRows: UnsafePointer<UInt8>
                if inPlace {
                    aRows = UnsafePointer(x + p0 * kp)
                } else {
                    // im2col rows of kp bytes; the tail beyond k meets weight 0 (its bytes do not matter).
                    let patch = (base + tile * outC * 4).assumingMemoryBound(to: UInt8.self)
                    im2colRows(UnsafePointer(x), pixels: pixels, rowStride: kp, pad: { pads[$0] }, into: patch)
                    aRows = UnsafePointer(patch)
                }
                IntegerGemm.multiplyBytes(a: aRows, lda: kp, packedB: w, m: pixels.count, n: outC, kPadded: kp, c: acc, ldc: outC,
                                          kernel: byteGEMM)
                // Rows of one batch at a time (one input scale and correction).
                var pixel = p0
                while pixel < p1 {
                    let b = pixel / pixelsPerBatch, end = min(p1, (b + 1) * pixelsPerBatch)
                    rescale(acc + (pixel - p0) * outC, end - pixel, outC, scales, perChannel, batchScale[b], corrections + b * outC,
                            bias, act.min, act.max, silu, dst + pixel * outC)
                    pixel = end
                }
            }
        }
        }
    }

    /// `runHybridBytes` without im2col: one GEMM per output row, whose pixels' filter rows
    /// (`kH` runs of `kW × inC` bytes) the byte GEMM reads where they lie in `x` or in its
    /// over-padded copy (borders = each batch's padding byte, written here).
    private func runHybridByteRows(x: UnsafePointer<UInt8>, source s: ConvGeometry, bias: UnsafePointer<Float>?,
                                   weights: HybridWeights, bytes: HybridByteWeights, byteGEMM: ByteGEMMKernel, silu: Bool,
                                   batchScale: UnsafePointer<Float>, corrections: UnsafePointer<Int32>,
                                   pads: UnsafePointer<UInt8>, dst: UnsafeMutablePointer<Float>) {
        let g = self.g, c = g.inC, outC = g.outC, k = g.kH * g.kW * c
        var input = x
        if let paddedBytesOffset {
            let padded = (shared.pointer + paddedBytesOffset).assumingMemoryBound(to: UInt8.self)
            // Output column x' reads input column x' − padLeft: the columns that exist.
            let x0 = min(s.inW, max(0, g.padLeft)), x1 = max(x0, min(s.inW, g.padLeft + g.inW))
            // Rows split over the threads, as the GEMM rows that read them are.
            let rows = g.batch * s.inH
            KernelSupport.parallelChunks(rows, parts: rows * s.inW * c >= KernelSupport.parallelCopyBytes ? threads : 1) { part in
                for r in part {
                    let b = r / s.inH, y = r - b * s.inH
                    let row = padded + r * s.inW * c, sy = y - g.padTop
                    guard sy >= 0, sy < g.inH else { row.update(repeating: pads[b], count: s.inW * c); continue }
                    row.update(repeating: pads[b], count: x0 * c)
                    (row + x0 * c).update(from: x + ((b * g.inH + sy) * g.inW + (x0 - g.padLeft)) * c, count: (x1 - x0) * c)
                    (row + x1 * c).update(repeating: pads[b], count: (s.inW - x1) * c)
                }
            }
            input = UnsafePointer(padded)
        }
        let act = self.act, scratch = shared.pointer, stride = partStride, perChannel = weights.perChannel
        let rescale = weights.hybrid.rescale
        let rows = g.batch * g.outH
        let p = min(parts(g.outputPixels * k * outC), scratchParts, max(rows, 1))
        let driver = ByteRowsConvolution(batches: g.batch, outputHeight: g.outH, outputWidth: g.outW,
                                         sourceHeight: s.inH, sourceWidth: s.inW, channels: c, strideHeight: s.strideH,
                                         strideWidth: s.strideW, filterHeight: g.kH, outputChannels: outC, kPadded: k)
        weights.scales.withUnsafeBufferPointer { scales in
        bytes.panels.withUnsafeBufferPointer { panels in
            guard let w = panels.baseAddress, let scales = scales.baseAddress else { return }
            driver.run(input: input, panels: w, rowWeights: nil, kernel: byteGEMM, parts: p,
                       sums: { (scratch + $0 * stride).assumingMemoryBound(to: Int32.self) }) { acc, row, b in
                rescale(acc, g.outW, outC, scales, perChannel, batchScale[b], corrections + b * outC, bias, act.min, act.max,
                        silu, dst + row * g.outW * outC)
            }
        }
        }
    }

    /// Plain float convolution (TFLite reference loop order), the oracle of the fast path.
    static func referenceFloat(g: ConvGeometry, groups: Int, input: UnsafePointer<Float>, filter: UnsafePointer<Float>,
                               bias: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>, act: (min: Float, max: Float)) {
        let filterC = g.inC / groups
        let outPerGroup = g.outC / groups
        for b in 0..<g.batch {
            for oy in 0..<g.outH {
                for ox in 0..<g.outW {
                    for oc in 0..<g.outC {
                        let group = oc / outPerGroup
                        var total: Float = 0
                        for ky in 0..<g.kH {
                            let y = oy * g.strideH - g.padTop + ky * g.dilationH
                            if y < 0 || y >= g.inH { continue }
                            for kx in 0..<g.kW {
                                let x = ox * g.strideW - g.padLeft + kx * g.dilationW
                                if x < 0 || x >= g.inW { continue }
                                let ip = input + ((b * g.inH + y) * g.inW + x) * g.inC + group * filterC
                                let fp = filter + ((oc * g.kH + ky) * g.kW + kx) * filterC
                                for ic in 0..<filterC { total += ip[ic] * fp[ic] }
                            }
                        }
                        if let bias { total += bias[oc] }
                        output[((b * g.outH + oy) * g.outW + ox) * g.outC + oc] = min(max(total, act.min), act.max)
                    }
                }
            }
        }
    }

    /// Plain hybrid convolution: quantize each batch (symmetric, or asymmetric when
    /// `perChannel`), integer accumulate, rescale; the oracle of the fast hybrid path.
    static func referenceHybrid(g: ConvGeometry, input: UnsafePointer<Float>, filter: [Int8], scales: [Float], perChannel: Bool,
                                bias: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>, act: (min: Float, max: Float)) {
        let batchSize = g.inH * g.inW * g.inC
        let q = UnsafeMutablePointer<Int8>.allocate(capacity: max(1, batchSize))
        q.initialize(repeating: 0, count: max(1, batchSize))
        defer { q.deallocate() }
        for b in 0..<g.batch {
            var sf: Float, offset: Int32 = 0
            if perChannel {
                let r = HybridQuantization.asymmetric(input + b * batchSize, count: batchSize, into: q)
                sf = r.scale; offset = r.offset
            } else {
                sf = HybridQuantization.symmetric(input + b * batchSize, count: batchSize, into: q) * scales[0]
            }
            for oy in 0..<g.outH {
                for ox in 0..<g.outW {
                    for oc in 0..<g.outC {
                        var acc: Int32 = 0
                        for ky in 0..<g.kH {
                            let y = oy * g.strideH - g.padTop + ky * g.dilationH
                            if y < 0 || y >= g.inH { continue }
                            for kx in 0..<g.kW {
                                let x = ox * g.strideW - g.padLeft + kx * g.dilationW
                                if x < 0 || x >= g.inW { continue }
                                for ic in 0..<g.inC {
                                    let qv = Int32(q[(y * g.inW + x) * g.inC + ic]) - offset
                                    acc &+= Int32(filter[((oc * g.kH + ky) * g.kW + kx) * g.inC + ic]) * qv
                                }
                            }
                        }
                        var v = perChannel ? Float(acc) * scales[oc] * sf : Float(acc) * sf
                        if let bias { v += bias[oc] }
                        output[((b * g.outH + oy) * g.outW + ox) * g.outC + oc] = min(max(v, act.min), act.max)
                    }
                }
            }
        }
    }
}
