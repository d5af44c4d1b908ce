import DetectorModelFile
import DetectorPlatform
/// Prepared parameters of a quantized CONV_2D (uint8 per-tensor or int8 per-channel), with the
/// weights packed once as `Int16` (`w - filterZeroPoint`) in TFLite's `[out][fh][fw][in]` order.
///
/// Arithmetic is TFLite's reference `Conv` / `ConvPerChannel`: Σ (w - zw)(x - zx) + bias in Int32,
/// then `MultiplyByQuantizedMultiplier` with the per-channel multiplier
/// `double(inputScale) * double(filterScale[c]) / double(outputScale)`, + output zero point, clamp.
/// Per-tensor multipliers of the legacy path (`GetQuantizedConvolutionMultipler`: uint8 conv and
/// depthwise, per-tensor FULLY_CONNECTED) take the scale product in `Float` first
/// (`floatProductMultiplier`); the official runtime's results depend on that single rounding.
package struct QuantizedConvParams: Sendable {
    package var geometry: WindowGeometry
    package var inputDepth: Int
    package var outputDepth: Int
    package var inputZeroPoint: Int32
    package var outputZeroPoint: Int32
    package var multipliers: [QuantizedMultiplier]
    /// `multipliers` unpacked for the scalar requantization loop.
    package var steps: [RequantizationStep]
    /// Bias, multipliers and clamp laid out for the SIMD requantization (nil with a left shift).
    package var vectorRequantization: VectorRequantization?
    package var activationMin: Int32
    package var activationMax: Int32
    /// The same weights packed into `IntegerGemm` panels (`IntegerGemm.packB`) for `integerGEMM`;
    /// empty when `byteWeights` are used instead.
    package var gemmWeights: [Int16]
    /// The weights for the byte GEMM (`vpdpbusd`), used when the kernel table has one (AVX-512
    /// VNNI); nil elsewhere.
    package var byteWeights: QuantizedByteWeights?
    /// The kernel-table entries that read `gemmWeights` / `byteWeights`.
    package var integerGEMM: IntegerGEMMKernel
    package var byteGEMM: ByteGEMMKernel?
    package var bias: [Int32]

    /// The bias the fast path adds: `bias` with the byte GEMM's correction folded in when it runs.
    package var gemmBias: [Int32] { byteWeights?.bias ?? bias }

    /// Number of values in one im2col patch.
    package var patchSize: Int { geometry.filterHeight * geometry.filterWidth * inputDepth }

    /// - Parameters:
    ///   - filter: raw filter values `[outputDepth][fh][fw][inputDepth]`.
    ///   - filterScales / filterZeroPoints: one entry (per-tensor) or `outputDepth` entries.
    ///   - bias: `outputDepth` Int32 values or nil.
    /// Returns nil when counts do not match.
    package init?<W: QuantizedElement>(geometry: WindowGeometry, inputDepth: Int, outputDepth: Int,
                                      input: QuantizationParams, output: QuantizationParams,
                                      filter: UnsafeBufferPointer<W>, filterScales: [Float], filterZeroPoints: [Int32],
                                      bias: UnsafeBufferPointer<Int32>?, activation: QuantizedFusedActivation,
                                      outputType: (some QuantizedElement).Type, floatProductMultiplier: Bool = false,
                                      tier: InstructionSetTier = .baseline) {
        let k = geometry.filterHeight * geometry.filterWidth * inputDepth
        guard inputDepth > 0, outputDepth > 0, filter.count == k * outputDepth,
              filterScales.count == 1 || filterScales.count == outputDepth,
              filterZeroPoints.count == 1 || filterZeroPoints.count == outputDepth,
              (bias.map({ $0.count == outputDepth }) ?? true) else { return nil }
        self.geometry = geometry
        self.inputDepth = inputDepth
        self.outputDepth = outputDepth
        self.inputZeroPoint = input.zeroPoint
        self.outputZeroPoint = output.zeroPoint
        multipliers = (0..<outputDepth).map { c in
            let fs = filterScales.count == 1 ? filterScales[0] : filterScales[c]
            return floatProductMultiplier
                ? QuantizedMultiplier(Double(input.scale * fs) / Double(output.scale))
                : QuantizedMultiplier(Double(input.scale) * Double(fs) / Double(output.scale))
        }
        steps = multipliers.map(RequantizationStep.init)
        (activationMin, activationMax) = quantizedActivationRange(activation, output: output, as: outputType)
        let table = KernelTable.for(tier)
        integerGEMM = table.integerGEMM
        byteGEMM = table.byteGEMM
        self.bias = bias.map { Array($0) } ?? [Int32](repeating: 0, count: outputDepth)
        byteWeights = table.byteGEMM != nil
            ? QuantizedByteWeights(filter: filter, patchSize: k, outputDepth: outputDepth, filterZeroPoints: filterZeroPoints,
                                   inputZeroPoint: input.zeroPoint, activation: outputType, bias: self.bias)
            : nil
        if byteWeights?.weightZeroPoints != nil, k < QuantizedByteWeights.minimumDepthWithRowSums { byteWeights = nil }
        if byteWeights != nil, byteWeights?.weightZeroPoints == nil, QuantizedConv2D.padsFilterRows(geometry, inputDepth: inputDepth) {
            byteWeights = QuantizedByteWeights(filter: filter, patchSize: k, outputDepth: outputDepth, filterZeroPoints: filterZeroPoints,
                                               inputZeroPoint: input.zeroPoint, activation: outputType, bias: self.bias,
                                               filterRows: geometry.filterHeight)
        }
        if table.byteGEMM != nil, byteWeights == nil || byteWeights?.weightZeroPoints != nil,
           QuantizedConv2D.padsChannels(geometry, inputDepth: inputDepth) {
            // Weights that need row sums cannot meet bytes read past a row: the input is widened to
            // 4 channels instead, the extra one zx' (its taps add (zx' − zx')(…) = 0 to S; the
            // algebra holds over the widened patch, K' taps and its Σw').
            let fh = geometry.filterHeight, fw = geometry.filterWidth, k4 = fh * fw * 4
            var wide = [W](repeating: W(truncatingIfNeeded: 128 + W.quantizedMin), count: outputDepth * k4)
            for tap in 0..<outputDepth * fh * fw {
                for ch in 0..<inputDepth { wide[tap * 4 + ch] = filter[tap * inputDepth + ch] }
            }
            let bias = self.bias
            let widened = wide.withUnsafeBufferPointer {
                QuantizedByteWeights(filter: $0, patchSize: k4, outputDepth: outputDepth, filterZeroPoints: filterZeroPoints,
                                     inputZeroPoint: input.zeroPoint, activation: outputType, bias: bias)
            }
            if var widened {
                widened.paddedChannels = 4
                byteWeights = widened
            }
        }
        // One packed copy: the byte panels, or the `Int16` panels (built from a temporary `w − zw`).
        gemmWeights = byteWeights != nil ? []
            : Self.weightsWithoutZeroPoint(filter, patchSize: k, outputDepth: outputDepth, filterZeroPoints: filterZeroPoints)
                .withUnsafeBufferPointer { IntegerGemm.packB($0, n: outputDepth, k: k, panelWidth: table.integerGEMM.panelWidth) }
        vectorRequantization = VectorRequantization(multipliers: multipliers, bias: byteWeights?.bias ?? self.bias,
                                                    outputZeroPoint: output.zeroPoint,
                                                    activationMin: activationMin, activationMax: activationMax, tier: tier)
    }

    /// `w − zw` as `Int16`, `[outputDepth][patchSize]` (one zero point, or one per channel).
    /// Example: uint8 weights [130, 120] with zw 128 give [2, −8].
    package static func weightsWithoutZeroPoint<W: QuantizedElement>(_ filter: UnsafeBufferPointer<W>, patchSize k: Int,
                                                                    outputDepth n: Int, filterZeroPoints: [Int32]) -> [Int16] {
        guard filter.count >= k * n, filterZeroPoints.count == 1 || filterZeroPoints.count == n else { return [] }
        return [Int16](unsafeUninitializedCapacity: k * n) { out, initialized in
            for c in 0..<n {
                let zp = filterZeroPoints.count == 1 ? filterZeroPoints[0] : filterZeroPoints[c]
                for i in c * k..<(c + 1) * k { out[i] = Int16(truncatingIfNeeded: Int32(filter[i]) &- zp) }
            }
            initialized = k * n
        }
    }
}

/// Quantized CONV_2D kernels.
package enum QuantizedConv2D {
    /// Fast path: the input is converted once to `Int16` with its zero point removed; pointwise
    /// (1×1, stride 1) convolutions use it directly as the GEMM's A (rows padded to the GEMM depth),
    /// others go through im2col tiles; products go through `IntegerGemm.multiply`, each tile is
    /// requantized right after, tiles split over `threads`. Where the kernel table has a byte GEMM
    /// (`byteWeights` set) `runBytes` runs instead, on bytes and `vpdpbusd`, with the same results.
    ///
    /// `scratch`: `scratchByteCount(p, threads:)` bytes of eval memory (the interpreter's
    /// shared scratch); nil allocates them for this call.
    package static func run<T: QuantizedElement>(_ p: QuantizedConvParams, input: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>, threads: Int = 1,
                                                scratch: UnsafeMutableRawPointer? = nil) {
        guard let scratch else {
            let block = UnsafeMutableRawPointer.allocate(byteCount: scratchByteCount(p, threads: threads), alignment: 64)
            defer { block.deallocate() }
            run(p, input: input, output: output, threads: threads, scratch: block)
            return
        }
        if let bytes = p.byteWeights {
            runBytes(p, bytes, input: input, output: output, threads: threads, scratch: scratch)
            return
        }
        let g = p.geometry
        let pixels = g.batches * g.outputHeight * g.outputWidth
        let k = p.patchSize, kp = IntegerGemm.paddedDepth(k), n = p.outputDepth, depth = p.inputDepth
        let pointwise = isPointwise(g)
        let inputPixels = g.batches * g.inputHeight * g.inputWidth
        let rowStride = pointwise ? kp : depth
        // `copySlackBytes` spare bytes after the input and each patch tile for `copyValues`' overrun.
        let slack = copySlackBytes / 2
        let layout = scratchLayout(p, threads: threads)
        let x16 = (scratch + layout.input).assumingMemoryBound(to: Int16.self)
        (x16 + inputPixels * rowStride).initialize(repeating: 0, count: slack)
        // The conversion split over the threads too (run on one, it made this op slower at 2
        // threads than at 1 on automl's narrow 1×1 layers). A pointwise layer's tiles convert
        // their own pixels instead (below), in the GEMM's parallel pass.
        let convertParts = pointwise ? 0 : inputPixels * depth >= 1 << 14 ? min(max(threads, 1), inputPixels) : 1
        KernelSupport.parallelFor(convertParts, threads: convertParts) { part in
            let first = inputPixels * part / convertParts, end = inputPixels * (part + 1) / convertParts
            convertInput(input + first * depth, count: end - first, depth: depth, rowStride: rowStride,
                         zeroPoint: p.inputZeroPoint, into: x16 + first * rowStride)
        }
        let rowsPerTile = layout.rowsPerTile
        let tiles = (pixels + rowsPerTile - 1) / rowsPerTile
        p.gemmWeights.withUnsafeBufferPointer { wb in
        VectorRequantization.withRows(p.vectorRequantization) { requantization in
            guard let w = wb.baseAddress else { return }
            let parts = min(max(threads, 1), tiles)
            KernelSupport.parallelRanges(tiles, parts: parts) { part, tileRange in
                let tileBegin = tileRange.lowerBound, tileEnd = tileRange.upperBound
                let patch = pointwise ? nil : (scratch + layout.patch(part)).assumingMemoryBound(to: Int16.self)
                let acc = (scratch + layout.sums(part)).assumingMemoryBound(to: Int32.self)
                for tile in tileBegin..<tileEnd {
                    let first = tile * rowsPerTile
                    let rows = min(rowsPerTile, pixels - first)
                    let a: UnsafePointer<Int16>
                    if let patch {
                        fillPatches(p, input: x16, first: first, rows: rows, into: patch, paddedDepth: kp)
                        a = UnsafePointer(patch)
                    } else {
                        convertInput(input + first * depth, count: rows, depth: depth, rowStride: rowStride,
                                     zeroPoint: p.inputZeroPoint, into: x16 + first * rowStride)
                        a = UnsafePointer(x16 + first * kp)
                    }
                    if let requantization {
                        IntegerGemm.multiplyRequantized(a: a, lda: kp, packedB: w, m: rows, n: n, kPadded: kp,
                                                        requantization: requantization, output: output + first * n, ldo: n,
                                                        kernel: p.integerGEMM)
                    } else {
                        IntegerGemm.multiply(a: a, lda: kp, packedB: w, m: rows, n: n, kPadded: kp, c: acc, ldc: n, kernel: p.integerGEMM)
                        requantizeRows(p, nil, acc: acc, rows: rows, output: output + first * n)
                    }
                }
            }
        } }
    }

    /// The byte-GEMM form of `run` (AVX-512 VNNI, see `QuantizedByteWeights`): the input as
    /// `x'` bytes (uint8 pointwise layers with a depth multiple of 4 use it as it is), im2col
    /// rows of bytes with `zx'` in padding taps, `IntegerGemm.multiplyBytes` (with the row
    /// correction when the weights have a zero point), then the same requantization with the
    /// corrected bias.
    static func runBytes<T: QuantizedElement>(_ p: QuantizedConvParams, _ bytes: QuantizedByteWeights, input: UnsafePointer<T>,
                                              output: UnsafeMutablePointer<T>, threads: Int, scratch: UnsafeMutableRawPointer) {
        let g = p.geometry
        let pixels = g.batches * g.outputHeight * g.outputWidth
        let k = p.patchSize, kp = IntegerGemm.paddedByteDepth(k), n = p.outputDepth, depth = p.inputDepth
        let pointwise = isPointwise(g)
        let inputPixels = g.batches * g.inputHeight * g.inputWidth
        if let padded = paddedRowGeometry(p) {
            runByteRows(p, bytes, padded: padded, input: input, output: output, threads: threads, scratch: scratch)
            return
        }
        let direct = readsInputInPlace(p, T.self)
        let rowStride = pointwise ? kp : depth
        let layout = scratchLayout(p, threads: threads)
        let converted = direct ? nil : (scratch + layout.input).assumingMemoryBound(to: UInt8.self)
        let flip = bytes.activationFlip
        let source = UnsafeRawPointer(input).assumingMemoryBound(to: UInt8.self)
        if let converted {
            (converted + inputPixels * rowStride).initialize(repeating: 0, count: copySlackBytes)
        }
        // A pointwise layer's tile reads only its own pixels, so each tile converts them itself
        // (below), in the same parallel pass as its GEMM: one pass and one wait fewer per layer.
        if let converted, !pointwise {
            // Split from 16 KB: on one thread this pass left the other idle for a sixth of
            // yolox int8's 2-thread invoke (64 KB still left its 20 × 20 layers on one thread;
            // 16 KB: 0.96× at 2 threads, paired runs).
            let convertThreads = inputPixels * depth >= 1 << 14 ? threads : 1
            KernelSupport.parallelChunks(inputPixels, parts: convertThreads) { pixels in
                flipRows(source, first: pixels.lowerBound, count: pixels.count, depth: depth, rowStride: rowStride,
                         flip: flip, into: converted)
            }
        }
        let x = converted.map { UnsafePointer($0) } ?? UnsafeRawPointer(input).assumingMemoryBound(to: UInt8.self)
        let rowsPerTile = layout.rowsPerTile
        let tiles = (pixels + rowsPerTile - 1) / rowsPerTile
        bytes.panels.withUnsafeBufferPointer { wb in
        (bytes.weightZeroPoints ?? []).withUnsafeBufferPointer { rowWeights in
        VectorRequantization.withRows(p.vectorRequantization) { requantization in
            guard let w = wb.baseAddress else { return }
            let parts = min(max(threads, 1), tiles)
            KernelSupport.parallelRanges(tiles, parts: parts) { part, tileRange in
                let tileBegin = tileRange.lowerBound, tileEnd = tileRange.upperBound
                let patch = pointwise ? nil : (scratch + layout.patch(part)).assumingMemoryBound(to: UInt8.self)
                let acc = (scratch + layout.sums(part)).assumingMemoryBound(to: Int32.self)
                for tile in tileBegin..<tileEnd {
                    let first = tile * rowsPerTile
                    let rows = min(rowsPerTile, pixels - first)
                    let a: UnsafePointer<UInt8>
                    if let patch {
                        fillPatches(p, input: x, first: first, rows: rows, into: patch, paddedDepth: kp, pad: bytes.paddingValue)
                        a = UnsafePointer(patch)
                    } else {
                        if let converted {
                            flipRows(source, first: first, count: rows, depth: depth, rowStride: rowStride, flip: flip, into: converted)
                        }
                        a = x + first * kp
                    }
                    let rw = bytes.weightZeroPoints == nil ? nil : rowWeights.baseAddress
                    if let requantization, p.byteGEMM != nil {
                        IntegerGemm.multiplyBytesRequantized(a: a, lda: kp, packedB: w, m: rows, n: n, kPadded: kp, rowWeights: rw,
                                                             requantization: requantization, output: output + first * n, ldo: n,
                                                             kernel: p.byteGEMM)
                        continue
                    }
                    IntegerGemm.multiplyBytes(a: a, lda: kp, packedB: w, m: rows, n: n, kPadded: kp, rowWeights: rw,
                                              c: acc, ldc: n, kernel: p.byteGEMM)
                    requantizeRows(p, requantization, acc: acc, rows: rows, output: output + first * n)
                }
            }
        } } }
    }

    /// Pixels `first ..< first + count` of `source` (`depth` bytes each) XOR `flip` into
    /// `converted`, rows `rowStride` apart, the bytes after each row's `depth` set to 0.
    private static func flipRows(_ source: UnsafePointer<UInt8>, first: Int, count: Int, depth: Int, rowStride: Int,
                                 flip: UInt8, into converted: UnsafeMutablePointer<UInt8>) {
        if rowStride == depth {
            let src = source + first * depth, dst = converted + first * depth
            for i in 0..<count * depth { dst[i] = src[i] ^ flip }
            return
        }
        for r in first..<(first + count) {
            let src = source + r * depth, row = converted + r * rowStride
            for i in 0..<depth { row[i] = src[i] ^ flip }
            (row + depth).initialize(repeating: 0, count: rowStride - depth)
        }
    }

    /// The byte path without im2col: when each filter row (`filterWidth × inputDepth` bytes, a
    /// multiple of 4) is contiguous (dilation 1), one GEMM per output row reads its pixels'
    /// filter rows where they lie in a padded copy of `x'` (borders `zx'`), `filterHeight` runs
    /// per pixel (`IntegerGemm.multiplyBytes`' `runs`): the copy is the input once, where im2col
    /// rows copied it `filterHeight × filterWidth / strides` times (17% of yolov8n full integer).
    /// The padded image's height and width; nil when this path does not apply.
    /// Filter rows of other lengths are packed padded to a multiple of 4 (`padsFilterRows`), the
    /// bytes read past each row meeting zero weights.
    static func paddedRowGeometry(_ p: QuantizedConvParams) -> (height: Int, width: Int)? {
        let g = p.geometry
        guard let bytes = p.byteWeights, !isPointwise(g), g.dilationHeight == 1, g.dilationWidth == 1,
              (g.filterWidth * p.inputDepth) % 4 == 0 || (bytes.filterRows == g.filterHeight && bytes.weightZeroPoints == nil)
                || bytes.paddedChannels != nil,
              g.outputHeight > 0, g.outputWidth > 0 else { return nil }
        return ((g.outputHeight - 1) * g.strideHeight + g.filterHeight, (g.outputWidth - 1) * g.strideWidth + g.filterWidth)
    }

    /// Whether a convolution whose filter rows (`filterWidth × inputDepth` bytes) are not a multiple
    /// of 4 takes the padded-rows path with each row padded to one (int8 weights, no row sums): when
    /// the padding adds at most half the depth of im2col rows (`3 × 3 × 3`: 36 against 28; the first
    /// layer of yolov8n full integer went from 3.4 to 0.8 ms, AMD EPYC Zen 4).
    static func padsFilterRows(_ g: WindowGeometry, inputDepth c: Int) -> Bool {
        let row = g.filterWidth * c
        guard !isPointwise(g), g.dilationHeight == 1, g.dilationWidth == 1, row % 4 != 0 else { return false }
        return 2 * g.filterHeight * IntegerGemm.paddedByteDepth(row) <= 3 * IntegerGemm.paddedByteDepth(g.filterHeight * row)
    }

    /// Whether a 1- to 3-channel convolution whose weights need row sums (uint8 weights, zero
    /// point other than 128) reads an input widened to 4 channels on the padded-rows path, where
    /// it would take the `Int16` GEMM on im2col rows (automl's first layer, 112 × 112 × 16 from
    /// 3 channels: about 0.2 ms against 0.5, AMD EPYC Zen 4).
    static func padsChannels(_ g: WindowGeometry, inputDepth c: Int) -> Bool {
        c < 4 && (g.filterWidth * c) % 4 != 0 && !isPointwise(g) && g.dilationHeight == 1 && g.dilationWidth == 1
    }

    static func runByteRows<T: QuantizedElement>(_ p: QuantizedConvParams, _ bytes: QuantizedByteWeights, padded: (height: Int, width: Int),
                                                 input: UnsafePointer<T>, output: UnsafeMutablePointer<T>, threads: Int,
                                                 scratch: UnsafeMutableRawPointer) {
        // `c` channels per pixel in the padded image (the input's `p.inputDepth`, or widened).
        let g = p.geometry, depth = p.inputDepth, c = bytes.paddedChannels ?? depth, n = p.outputDepth
        let hp = padded.height, wp = padded.width
        let layout = scratchLayout(p, threads: threads)
        let x = (scratch + layout.input).assumingMemoryBound(to: UInt8.self)
        let source = UnsafeRawPointer(input).assumingMemoryBound(to: UInt8.self)
        let flip = bytes.activationFlip, pad = bytes.paddingValue
        // Padded column x' holds input column x' − padLeft where that exists.
        let x0 = min(wp, max(0, g.padLeft)), x1 = max(x0, min(wp, g.padLeft + g.inputWidth))
        let paddedRows = g.batches * hp
        // Split from 16 KB, like `runBytes`' conversion: each thread's GEMM rows then read
        // mostly the padded rows it wrote.
        KernelSupport.parallelChunks(paddedRows, parts: paddedRows * wp * c >= 1 << 14 ? threads : 1) { rows in
            for r in rows {
                let b = r / hp, y = r - b * hp, sy = y - g.padTop
                let row = x + r * wp * c
                guard sy >= 0, sy < g.inputHeight else { row.update(repeating: pad, count: wp * c); continue }
                row.update(repeating: pad, count: x0 * c)
                let src = source + ((b * g.inputHeight + sy) * g.inputWidth + (x0 - g.padLeft)) * depth
                let dst = row + x0 * c
                if c == depth {
                    for i in 0..<(x1 - x0) * c { dst[i] = src[i] ^ flip }
                } else {
                    // Widened to 4 channels (depth 1…3): one 4-byte load per pixel while it stays
                    // inside the row, its low `depth` bytes flipped, the rest `pad`.
                    let count = x1 - x0, low = (UInt32(1) << UInt32(8 * depth)) &- 1
                    let flips = UInt32(flip) &* 0x0101_0101 & low, fill = UInt32(pad) &* 0x0101_0101 & ~low
                    var px = 0
                    while px * depth + 4 <= count * depth {
                        let v = UnsafeRawPointer(src + px * depth).loadUnaligned(as: UInt32.self)
                        UnsafeMutableRawPointer(dst + px * 4).storeBytes(of: (v & low) ^ flips | fill, as: UInt32.self)
                        px += 1
                    }
                    while px < count {
                        for i in 0..<depth { dst[px * c + i] = src[px * depth + i] ^ flip }
                        for i in depth..<c { dst[px * c + i] = pad }
                        px += 1
                    }
                }
                (row + x1 * c).update(repeating: pad, count: (wp - x1) * c)
            }
        }
        // Padded filter rows read up to 3 bytes past the image (weight 0).
        (x + paddedRows * wp * c).update(repeating: pad, count: 4)
        let driver = ByteRowsConvolution(batches: g.batches, outputHeight: g.outputHeight, outputWidth: g.outputWidth,
                                         sourceHeight: hp, sourceWidth: wp, channels: c, strideHeight: g.strideHeight,
                                         strideWidth: g.strideWidth, filterHeight: g.filterHeight, outputChannels: n,
                                         kPadded: bytes.packedDepth)
        bytes.panels.withUnsafeBufferPointer { wb in
        (bytes.weightZeroPoints ?? []).withUnsafeBufferPointer { rowWeights in
        VectorRequantization.withRows(p.vectorRequantization) { requantization in
            guard let w = wb.baseAddress else { return }
            let rw = bytes.weightZeroPoints == nil ? nil : rowWeights.baseAddress
            if let requantization, p.byteGEMM != nil {
                driver.runRequantized(input: UnsafePointer(x), panels: w, rowWeights: rw, kernel: p.byteGEMM, parts: threads,
                                      requantization: requantization, output: output)
                return
            }
            driver.run(input: UnsafePointer(x), panels: w, rowWeights: rw,
                       kernel: p.byteGEMM, parts: threads,
                       sums: { (scratch + layout.sums($0)).assumingMemoryBound(to: Int32.self) }) { acc, row, _ in
                requantizeRows(p, requantization, acc: acc, rows: g.outputWidth, output: output + row * g.outputWidth * n)
            }
        } } }
    }

    /// Where `run` keeps its eval memory in `scratch`: the converted input at `input`, then per
    /// thread part an im2col tile (`patch`) and its sums (`sums`), each 64-byte aligned.
    struct ScratchLayout {
        var input: Int, partBase: Int, partStride: Int, patchBytes: Int, total: Int, rowsPerTile: Int
        func patch(_ part: Int) -> Int { partBase + part * partStride }
        func sums(_ part: Int) -> Int { partBase + part * partStride + patchBytes }
    }

    /// uint8 pointwise layers with a depth multiple of 4 feed the byte GEMM their input as it is.
    static func readsInputInPlace<T: QuantizedElement>(_ p: QuantizedConvParams, _: T.Type) -> Bool {
        guard let bytes = p.byteWeights else { return false }
        return isPointwise(p.geometry) && T.self == UInt8.self && bytes.activationFlip == 0
            && p.inputDepth == IntegerGemm.paddedByteDepth(p.patchSize)
    }

    static func scratchLayout(_ p: QuantizedConvParams, threads: Int) -> ScratchLayout {
        let g = p.geometry, bytePath = p.byteWeights != nil, valueSize = bytePath ? 1 : 2
        if let padded = paddedRowGeometry(p) {
            // The padded input, then per thread one output row's sums.
            let channels = p.byteWeights?.paddedChannels ?? p.inputDepth
            let inputBytes = (g.batches * padded.height * padded.width * channels + 4 + 63) / 64 * 64
            let partStride = (g.outputWidth * p.outputDepth * 4 + 63) / 64 * 64
            return ScratchLayout(input: 0, partBase: inputBytes, partStride: partStride, patchBytes: 0,
                                 total: inputBytes + max(threads, 1) * partStride, rowsPerTile: g.outputWidth)
        }
        let pixels = g.batches * g.outputHeight * g.outputWidth, n = p.outputDepth
        let kp = bytePath ? IntegerGemm.paddedByteDepth(p.patchSize) : IntegerGemm.paddedDepth(p.patchSize)
        let pointwise = isPointwise(g)
        let inputPixels = g.batches * g.inputHeight * g.inputWidth
        let rowsPerTile = tileRows(kPadded: kp, valueSize: valueSize, n: n, pixels: pixels, threads: threads)
        // The byte path's converted input is not needed for in-place uint8 inputs; reserving it
        // anyway keeps the layout independent of the element type.
        let inputBytes = inputPixels * (pointwise ? kp : p.inputDepth) * valueSize + copySlackBytes
        let patchBytes = pointwise ? 0 : (rowsPerTile * kp * valueSize + copySlackBytes + 63) / 64 * 64
        let partStride = patchBytes + (rowsPerTile * n * 4 + 63) / 64 * 64
        let partBase = (inputBytes + 63) / 64 * 64
        return ScratchLayout(input: 0, partBase: partBase, partStride: partStride, patchBytes: patchBytes,
                             total: partBase + max(threads, 1) * partStride, rowsPerTile: rowsPerTile)
    }

    /// Bytes of eval memory `run` uses with `threads` threads.
    package static func scratchByteCount(_ p: QuantizedConvParams, threads: Int) -> Int {
        scratchLayout(p, threads: threads).total
    }

    /// Requantizes `rows` rows of `outputDepth` sums into `output` (vector or scalar form).
    @inline(__always)
    static func requantizeRows<T: QuantizedElement>(_ p: QuantizedConvParams, _ requantization: VectorRequantization.Rows?,
                                                    acc: UnsafeMutablePointer<Int32>, rows: Int, output: UnsafeMutablePointer<T>) {
        let n = p.outputDepth
        if let requantization {
            requantization.apply(acc, rows: rows, count: n, output: output)
            return
        }
        for r in 0..<rows { requantizeRow(p, acc: acc + r * n, output: output + r * n) }
    }

    /// 1×1, stride 1, no padding: the input pixels are the GEMM rows.
    static func isPointwise(_ g: WindowGeometry) -> Bool {
        g.filterHeight == 1 && g.filterWidth == 1 && g.strideHeight == 1 && g.strideWidth == 1
            && g.padTop == 0 && g.padLeft == 0 && g.inputHeight == g.outputHeight && g.inputWidth == g.outputWidth
    }

    /// Output pixels per GEMM tile: the A tile (`valueSize`-byte values) and its Int32 results
    /// fit in about 192 KB (L2), a multiple of the GEMM's register tile, between 4 and 256, and
    /// small enough that every thread gets a tile.
    static func tileRows(kPadded: Int, valueSize: Int, n: Int, pixels: Int, threads: Int) -> Int {
        let step = IntegerGemm.tileRowsMultiple
        let bySize = (192 * 1024) / (valueSize * kPadded + 4 * n) / step * step
        let perThread = ((pixels + threads - 1) / max(threads, 1) + step - 1) / step * step
        var rows = max(step, min(bySize, 256, perThread))
        // A tile count that is a multiple of `threads` (rows shrunk to match), so the threads'
        // contiguous shares of tiles are even: 7 tiles on 2 threads would be a 4:3 split.
        if threads > 1 {
            let tiles = (pixels + rows - 1) / rows
            let balanced = (tiles + threads - 1) / threads * threads
            rows = max(step, ((pixels + balanced - 1) / balanced + step - 1) / step * step)
        }
        return rows
    }

    /// `x - zeroPoint` as `Int16` for `count` pixels of `depth` values, rows `rowStride` apart
    /// with the padding after each row set to 0.
    static func convertInput<T: QuantizedElement>(_ input: UnsafePointer<T>, count: Int, depth: Int, rowStride: Int,
                                                  zeroPoint: Int32, into dst: UnsafeMutablePointer<Int16>) {
        let zp = Int16(truncatingIfNeeded: zeroPoint)
        if rowStride == depth {
            for i in 0..<count * depth { dst[i] = Int16(truncatingIfNeeded: input[i]) &- zp }
            return
        }
        for r in 0..<count {
            let src = input + r * depth, row = dst + r * rowStride
            for i in 0..<depth { row[i] = Int16(truncatingIfNeeded: src[i]) &- zp }
            (row + depth).update(repeating: 0, count: rowStride - depth)
        }
    }

    /// Writes one im2col row from the shifted input (the `Int16` values `x - zx`, or the bytes
    /// `x'` of the byte GEMM): `pad` for padding taps (0, or `zx'`), 0 for the depth padding up
    /// to `paddedDepth`. Values are written left to right, so the overrun of `copyValues` is
    /// always overwritten by the next segment or the final padding.
    @inline(__always)
    static func fillPatch<E: FixedWidthInteger>(_ p: QuantizedConvParams, input: UnsafePointer<E>, batch b: Int, y oy: Int,
                                                x ox: Int, into dst: UnsafeMutablePointer<E>, paddedDepth: Int, pad: E = 0) {
        let g = p.geometry
        let c = p.inputDepth
        let rowLength = g.filterWidth * c
        let ix0 = ox * g.strideWidth - g.padLeft
        // Taps fx in lo..<hi are inside the input; with dilation 1 they are contiguous in memory.
        let lo = min(g.filterWidth, max(0, -ix0))
        let hi = max(lo, min(g.filterWidth, g.inputWidth - ix0))
        for fy in 0..<g.filterHeight {
            let iy = oy * g.strideHeight - g.padTop + fy * g.dilationHeight
            let row = dst + fy * rowLength
            guard iy >= 0, iy < g.inputHeight else { row.update(repeating: pad, count: rowLength); continue }
            let src = input + (b * g.inputHeight + iy) * g.inputWidth * c
            if g.dilationWidth == 1 {
                // Interior pixels (the common case) have no padding taps: no fill calls.
                if lo > 0 { row.update(repeating: pad, count: lo * c) }
                copyValues(from: src + (ix0 + lo) * c, to: row + lo * c, count: (hi - lo) * c)
                if hi < g.filterWidth { (row + hi * c).update(repeating: pad, count: (g.filterWidth - hi) * c) }
            } else {
                for fx in 0..<g.filterWidth {
                    let ix = ix0 + fx * g.dilationWidth
                    if ix >= 0, ix < g.inputWidth {
                        copyValues(from: src + ix * c, to: row + fx * c, count: c)
                    } else {
                        (row + fx * c).update(repeating: pad, count: c)
                    }
                }
            }
        }
        let o = g.filterHeight * rowLength
        for i in o..<paddedDepth { dst[i] = 0 }
    }

    /// The im2col rows (`paddedDepth` apart from `dst`) of the `rows` output pixels from `first`
    /// on, stepping (batch, y, x) along instead of dividing per pixel.
    @inline(__always)
    static func fillPatches<E: FixedWidthInteger>(_ p: QuantizedConvParams, input: UnsafePointer<E>, first: Int, rows: Int,
                                                  into dst: UnsafeMutablePointer<E>, paddedDepth: Int, pad: E = 0) {
        let g = p.geometry
        var x = first % g.outputWidth
        let rest = first / g.outputWidth
        var y = rest % g.outputHeight, b = rest / g.outputHeight
        for r in 0..<rows {
            fillPatch(p, input: input, batch: b, y: y, x: x, into: dst + r * paddedDepth, paddedDepth: paddedDepth, pad: pad)
            x += 1
            if x == g.outputWidth {
                x = 0; y += 1
                if y == g.outputHeight { y = 0; b += 1 }
            }
        }
    }

    /// Spare bytes `copyValues` may read and write past `count` values.
    static let copySlackBytes = 32

    /// Copies `count` values 32 bytes at a time, reading and writing up to `copySlackBytes - 1`
    /// bytes past the end (short runs are common: 3-channel first layers, 1-tap rows).
    @inline(__always)
    static func copyValues<E: FixedWidthInteger>(from src: UnsafePointer<E>, to dst: UnsafeMutablePointer<E>, count: Int) {
        let s = UnsafeRawPointer(src), d = UnsafeMutableRawPointer(dst)
        let bytes = count * MemoryLayout<E>.stride
        var i = 0
        while i < bytes {
            (d + i).storeBytes(of: (s + i).loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
            (d + (i &+ 16)).storeBytes(of: (s + (i &+ 16)).loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
            i &+= 32
        }
    }

    /// Scalar bias, multiplier, zero point and clamp for one output pixel's `outputDepth` sums
    /// (layers without a `VectorRequantization`).
    static func requantizeRow<T: QuantizedElement>(_ p: QuantizedConvParams, acc: UnsafePointer<Int32>,
                                                   output: UnsafeMutablePointer<T>) {
        RequantizationStep.requantizeRow(acc, count: p.outputDepth, bias: p.gemmBias, steps: p.steps, outputZeroPoint: p.outputZeroPoint,
                                         activationMin: p.activationMin, activationMax: p.activationMax, into: output)
    }

    /// Plain reference implementation, loop for loop as TFLite's reference kernel (test oracle),
    /// on the raw `filter` and zero points `p` was made from (`p` keeps only packed weights).
    package static func reference<T: QuantizedElement, W: QuantizedElement>(_ p: QuantizedConvParams, filter: [W],
                                                                           filterZeroPoints: [Int32], input: UnsafePointer<T>,
                                                                           output: UnsafeMutablePointer<T>) {
        let g = p.geometry, k = p.patchSize
        for b in 0..<g.batches { for oy in 0..<g.outputHeight { for ox in 0..<g.outputWidth {
            for oc in 0..<p.outputDepth {
                var acc: Int32 = 0
                for fy in 0..<g.filterHeight { for fx in 0..<g.filterWidth {
                    let iy = oy * g.strideHeight - g.padTop + fy * g.dilationHeight
                    let ix = ox * g.strideWidth - g.padLeft + fx * g.dilationWidth
                    guard iy >= 0, iy < g.inputHeight, ix >= 0, ix < g.inputWidth else { continue }
                    for ic in 0..<p.inputDepth {
                        let x = Int32(input[((b * g.inputHeight + iy) * g.inputWidth + ix) * p.inputDepth + ic]) - p.inputZeroPoint
                        let zw = filterZeroPoints.count == 1 ? filterZeroPoints[0] : filterZeroPoints[oc]
                        let w = Int32(filter[oc * k + (fy * g.filterWidth + fx) * p.inputDepth + ic]) &- zw
                        acc = acc &+ x &* w
                    }
                } }
                acc = acc &+ p.bias[oc]
                let v = p.multipliers[oc].apply(acc) &+ p.outputZeroPoint
                output[((b * g.outputHeight + oy) * g.outputWidth + ox) * p.outputDepth + oc] =
                    T.clamped(v, p.activationMin, p.activationMax)
            }
        } } }
    }
}

/// Runs `body(begin, end)` over `0..<count` split into at most `threads` contiguous chunks
/// (`KernelSupport.parallelChunks` in the (begin, end) form the quantized kernels use).
func parallelChunks(count: Int, threads: Int, _ body: (Int, Int) -> Void) {
    guard count > 0 else { return }
    KernelSupport.parallelChunks(count, parts: threads) { body($0.lowerBound, $0.upperBound) }
}

/// Interpreter kernel for uint8/int8 CONV_2D (and FULLY_CONNECTED through the same params).
final class QuantizedGemmKernel: PreparedKernel {
    /// Element type chosen at prepare (int8 or uint8); eval dispatches to code specialized for it.
    let int8: Bool
    let params: QuantizedConvParams
    let input: Int, output: Int
    /// Eval memory shared with the interpreter's other kernels (`scratchByteCount` reserved for
    /// `threads`, the thread count the interpreter evaluates with).
    let scratch: SharedScratch
    let threads: Int
    init(int8: Bool, params: QuantizedConvParams, input: Int, output: Int, threads: Int, scratch: SharedScratch) {
        self.int8 = int8; self.params = params; self.input = input; self.output = output; self.scratch = scratch
        self.threads = threads
        scratch.reserve(QuantizedConv2D.scratchByteCount(params, threads: threads))
    }
    var kernelName: String? {
        let gemm = params.byteWeights != nil ? params.byteGEMM?.name ?? "byte GEMM loops" : params.integerGEMM.name
        return gemm + " + " + (params.vectorRequantization?.kernel.name ?? "scalar requantization")
    }

    func eval(_ e: EvalContext) throws {
        if int8 { try evalTyped(e, Int8.self) } else { try evalTyped(e, UInt8.self) }
    }

    @inline(__always)
    private func evalTyped<T: QuantizedElement>(_ e: EvalContext, _: T.Type) throws {
        QuantizedConv2D.run(params, input: e.pointer(input, as: T.self), output: e.pointer(output, as: T.self),
                            threads: e.threadCount, scratch: e.threadCount == threads ? scratch.pointer : nil)
    }
}

extension QuantizedConv2D {
    /// Prepare for CONV_2D with uint8/int8 activations: constant filter `[out][fh][fw][in]`
    /// (uint8 per-tensor or int8 per-channel), optional constant int32 bias.
    @Sendable package static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, rank: 4, types: [.uint8, .int8])
        let f = try c.input(1, rank: 4, types: [.uint8, .int8])
        let p = c.parameters
        let outputDepth = f.shape[0], inputDepth = x.shape[3]
        guard f.shape[3] == inputDepth else {
            throw c.invalid("filter depth \(f.shape[3]) differs from input depth \(inputDepth) (grouped quantized convolution is not supported)")
        }
        let g = try WindowGeometry.make(c, input: x, filterH: f.shape[1], filterW: f.shape[2],
                                        dilationH: p.dilationHeightFactor, dilationW: p.dilationWidthFactor, allowsEmptyOutput: false)
        try c.setOutput(0, shape: [g.batches, g.outputHeight, g.outputWidth, outputDepth], type: x.type)
        let out = try c.output(0)
        let qi = try c.activationQuantization(of: x, "input"), qo = try c.quantization(of: out, "output")
        let (scales, zps) = try c.filterQuantization(f, channels: outputDepth, channelAxis: 0)
        let bias = try c.optionalBias(input: 2, count: outputDepth)
        let activation = try c.quantizedActivation()
        func build<W: QuantizedElement, A: QuantizedElement>(_: W.Type, _: A.Type) throws -> any PreparedKernel {
            let filter = try c.constantElements(input: 1, as: W.self, count: f.elementCount)
            let params = bias.withOptionalBuffer { b in
                QuantizedConvParams(geometry: g, inputDepth: inputDepth, outputDepth: outputDepth, input: qi, output: qo,
                                    filter: filter, filterScales: scales, filterZeroPoints: zps, bias: b,
                                    activation: activation, outputType: A.self, floatProductMultiplier: x.type == .uint8,
                                    tier: c.tier)
            }
            guard let params else { throw c.invalid("filter, scales or bias do not match the shapes") }
            return QuantizedGemmKernel(int8: A.self == Int8.self, params: params, input: x.index, output: out.index,
                                       threads: c.threadCount, scratch: c.scratch)
        }
        return try withQuantizedType(f.type, c) { w in try withQuantizedType(x.type, c) { a in try build(w, a) } }
    }
}

extension Optional where Wrapped == [Int32] {
    /// Runs `body` with a buffer over the array, or nil.
    func withOptionalBuffer<R>(_ body: (UnsafeBufferPointer<Int32>?) throws -> R) rethrows -> R {
        switch self {
        case .some(let a): return try a.withUnsafeBufferPointer { try body($0) }
        case .none: return try body(nil)
        }
    }
}
