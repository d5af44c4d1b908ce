import DetectorModelFile
import DetectorPlatform
/// Prepared parameters of a quantized DEPTHWISE_CONV_2D (uint8 per-tensor or int8 per-channel).
///
/// Arithmetic is TFLite's reference `DepthwiseConv` (round-away-from-zero requantization) /
/// `DepthwiseConvPerChannel`: per output channel `oc = ic * depthMultiplier + m`,
/// Σ (w - zw)(x - zx) over the window's in-bounds taps + bias, requantized with
/// `double(inputScale) * double(filterScale[oc]) / double(outputScale)`.
package struct QuantizedDepthwiseConvParams: Sendable {
    package var geometry: WindowGeometry
    package var inputDepth: Int
    package var depthMultiplier: Int
    package var outputDepth: Int { inputDepth * depthMultiplier }
    package var inputZeroPoint: Int32
    package var outputZeroPoint: Int32
    package var multipliers: [QuantizedMultiplier]
    /// `multipliers` unpacked for the scalar requantization loop.
    package var steps: [RequantizationStep]
    /// Bias, multipliers and clamp laid out for the SIMD requantization (nil with a left shift).
    package var vectorRequantization: VectorRequantization?
    package var activationMin: Int32
    package var activationMax: Int32
    /// `[fh][fw][outputDepth]` as Int32 with the filter zero point removed.
    package var weights: [Int32]
    /// `weights` as `Int16` for the `pmaddwd` fast path (see `packWeights`).
    package var packedWeights: [Int16]
    /// The arrays of the kernel table's 8-bit depthwise kernel (`TierQuantizedDepthwise`); nil
    /// for depth multipliers other than 1, for multipliers with a left shift and for weights
    /// beyond 16 bits.
    package var tierPath: QuantizedDepthwiseTierPath?
    package var bias: [Int32]

    /// - Parameter filter: raw filter values `[1][fh][fw][inputDepth * depthMultiplier]`.
    package init?<W: QuantizedElement>(geometry: WindowGeometry, inputDepth: Int, depthMultiplier: Int,
                                      input: QuantizationParams, output: QuantizationParams,
                                      filter: UnsafeBufferPointer<W>, filterScales: [Float], filterZeroPoints: [Int32],
                                      bias: UnsafeBufferPointer<Int32>?, activation: QuantizedFusedActivation,
                                      outputType: (some QuantizedElement).Type, floatProductMultiplier: Bool = false,
                                      tier: InstructionSetTier = .baseline) {
        let od = inputDepth * depthMultiplier
        guard inputDepth > 0, depthMultiplier > 0,
              filter.count == geometry.filterHeight * geometry.filterWidth * od,
              filterScales.count == 1 || filterScales.count == od,
              filterZeroPoints.count == 1 || filterZeroPoints.count == od,
              (bias.map({ $0.count == od }) ?? true) else { return nil }
        self.geometry = geometry
        self.inputDepth = inputDepth
        self.depthMultiplier = depthMultiplier
        inputZeroPoint = input.zeroPoint
        outputZeroPoint = output.zeroPoint
        multipliers = (0..<od).map { c in
            let fs = filterScales.count == 1 ? filterScales[0] : filterScales[c]
            return floatProductMultiplier
                ? QuantizedMultiplier(Double(input.scale * fs) / Double(output.scale))
                : QuantizedMultiplier(Double(input.scale) * Double(fs) / Double(output.scale))
        }
        steps = multipliers.map(RequantizationStep.init)
        (activationMin, activationMax) = quantizedActivationRange(activation, output: output, as: outputType)
        weights = (0..<filter.count).map { i in
            let c = i % od
            return Int32(filter[i]) - (filterZeroPoints.count == 1 ? filterZeroPoints[0] : filterZeroPoints[c])
        }
        packedWeights = Self.packWeights(weights, taps: geometry.filterHeight * geometry.filterWidth, channels: od)
        self.bias = bias.map { Array($0) } ?? [Int32](repeating: 0, count: od)
        vectorRequantization = VectorRequantization(multipliers: multipliers, bias: self.bias, outputZeroPoint: output.zeroPoint,
                                                    activationMin: activationMin, activationMax: activationMax, tier: tier)
        tierPath = QuantizedDepthwiseTierPath(weights: weights, taps: geometry.filterHeight * geometry.filterWidth, channels: od,
                                              depthMultiplier: depthMultiplier, bias: self.bias, inputZeroPoint: input.zeroPoint,
                                              requantization: vectorRequantization,
                                              kernel: KernelTable.for(tier).quantizedDepthwise)
    }

    /// Packs `[taps][channels]` weights as `[ceil(channels / 8)][taps][16]`: for each block of 8
    /// channels and tap, the even channels' weights with zeros between them, then the odd
    /// channels' (`w0 0 w2 0 w4 0 w6 0 | 0 w1 0 w3 0 w5 0 w7`), so `pmaddwd` of 8 input values
    /// with each half gives the even and the odd channels' products. Channels past the end are 0.
    static func packWeights(_ weights: [Int32], taps: Int, channels: Int) -> [Int16] {
        let blocks = (channels + 7) / 8
        var out = [Int16](repeating: 0, count: blocks * taps * 16)
        for t in 0..<taps {
            for c in 0..<channels {
                let block = c / 8, lane = c % 8
                out[(block * taps + t) * 16 + (lane % 2) * 8 + lane] = Int16(truncatingIfNeeded: weights[t * channels + c])
            }
        }
        return out
    }
}

/// Quantized DEPTHWISE_CONV_2D kernels.
package enum QuantizedDepthwiseConv2D {
    /// Fast path: the kernel table's 8-bit depthwise kernel (every tier) where the depth
    /// multiplier is 1 and the layer has no left shift, `runTier` (the 8-bit input read in
    /// place, several pixels per step, requantized in registers). Otherwise the
    /// input is converted once to `Int16` with its zero point removed; with a depth multiplier
    /// of 1 each output pixel sums its in-bounds taps 8 channels at a time with two `pmaddwd`
    /// per tap (`packWeights`); exact `Int32` sums in any order; output rows split over
    /// `threads`. Other depth multipliers use plain `Int32` loops.
    package static func run<T: QuantizedElement>(_ p: QuantizedDepthwiseConvParams, input: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>, threads: Int = 1) {
        if let path = p.tierPath {
            runTier(p, path, input: input, output: output, threads: threads)
            return
        }
        let g = p.geometry
        let od = p.outputDepth, ic = p.inputDepth, dm = p.depthMultiplier
        let inputPixels = g.batches * g.inputHeight * g.inputWidth
        // 8 spare values: the last channel block of the last pixel loads up to 7 values past the
        // end (their weights are 0).
        let x16 = UnsafeMutablePointer<Int16>.allocate(capacity: inputPixels * ic + 8)
        defer { x16.deallocate() }
        QuantizedConv2D.convertInput(input, count: inputPixels, depth: ic, rowStride: ic, zeroPoint: p.inputZeroPoint, into: x16)
        (x16 + inputPixels * ic).initialize(repeating: 0, count: 8)
        let taps = g.filterHeight * g.filterWidth
        let blocks = (od + 7) / 8
        p.packedWeights.withUnsafeBufferPointer { wb in
        p.weights.withUnsafeBufferPointer { w32b in
        VectorRequantization.withRows(p.vectorRequantization) { requantization in
            guard let w = wb.baseAddress, let w32 = w32b.baseAddress else { return }
            parallelChunks(count: g.batches * g.outputHeight, threads: threads) { begin, end in
                let acc = UnsafeMutablePointer<Int32>.allocate(capacity: blocks * 8)
                let tapOffset = UnsafeMutablePointer<Int>.allocate(capacity: taps)
                let tapIndex = UnsafeMutablePointer<Int>.allocate(capacity: taps)
                defer { acc.deallocate(); tapOffset.deallocate(); tapIndex.deallocate() }
                for row in begin..<end {
                    let b = row / g.outputHeight, oy = row % g.outputHeight
                    for ox in 0..<g.outputWidth {
                        // The window's in-bounds taps: input offset and filter tap index.
                        var valid = 0
                        for fy in 0..<g.filterHeight {
                            let iy = oy * g.strideHeight - g.padTop + fy * g.dilationHeight
                            if iy < 0 || iy >= g.inputHeight { continue }
                            for fx in 0..<g.filterWidth {
                                let ix = ox * g.strideWidth - g.padLeft + fx * g.dilationWidth
                                if ix < 0 || ix >= g.inputWidth { continue }
                                tapOffset[valid] = ((b * g.inputHeight + iy) * g.inputWidth + ix) * ic
                                tapIndex[valid] = fy * g.filterWidth + fx
                                valid += 1
                            }
                        }
                        if dm == 1 {
                            for block in 0..<blocks {
                                accumulateBlock(x16 + block * 8, weights: w + block * taps * 16, taps: valid,
                                                offsets: tapOffset, indices: tapIndex, into: acc + block * 8)
                            }
                        } else {
                            acc.update(repeating: 0, count: od)
                            for t in 0..<valid {
                                let src = x16 + tapOffset[t], wt = w32 + tapIndex[t] * od
                                for c in 0..<ic { for m in 0..<dm {
                                    acc[c * dm + m] = acc[c * dm + m] &+ Int32(src[c]) &* wt[c * dm + m]
                                } }
                            }
                        }
                        let dst = output + ((b * g.outputHeight + oy) * g.outputWidth + ox) * od
                        if let requantization {
                            requantization.apply(acc, count: od, output: dst)
                        } else {
                            requantizeRow(p, acc: acc, output: dst)
                        }
                    }
                }
            }
        } } }
    }

    /// Sums 8 channels over the listed taps: per tap one load of 8 input values and two
    /// `pmaddwd` with the block's even/odd weight halves; stores the sums in channel order.
    @inline(__always)
    static func accumulateBlock(_ input: UnsafePointer<Int16>, weights: UnsafePointer<Int16>, taps: Int,
                                offsets: UnsafePointer<Int>, indices: UnsafePointer<Int>,
                                into acc: UnsafeMutablePointer<Int32>) {
        var even = SIMD4<Int32>(), odd = SIMD4<Int32>()
        for t in 0..<taps {
            let x = UnsafeRawPointer(input + offsets[t]).loadUnaligned(as: SIMD8<Int16>.self)
            let wt = weights + indices[t] * 16
            even &+= multiplyAddAdjacentPairs(x, UnsafeRawPointer(wt).loadUnaligned(as: SIMD8<Int16>.self))
            odd &+= multiplyAddAdjacentPairs(x, UnsafeRawPointer(wt + 8).loadUnaligned(as: SIMD8<Int16>.self))
        }
        UnsafeMutableRawPointer(acc).storeBytes(of: SIMD4<Int32>(even[0], odd[0], even[1], odd[1]), as: SIMD4<Int32>.self)
        UnsafeMutableRawPointer(acc + 4).storeBytes(of: SIMD4<Int32>(even[2], odd[2], even[3], odd[3]), as: SIMD4<Int32>.self)
    }

    /// 8 Int16 products summed pairwise into 4 Int32 lanes; compiles to one `pmaddwd`.
    @inline(__always)
    static func multiplyAddAdjacentPairs(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD4<Int32> {
        let t = widen(a) &* widen(b)
        return t.evenHalf &+ t.oddHalf
    }

    /// Sign-extends 8 lanes. Written lane by lane (LLVM folds it into one vector extension)
    /// rather than with the generic `SIMD8(truncatingIfNeeded:)`, which the optimizer sometimes
    /// leaves as an out-of-line call in large functions, and then no `pmaddwd` is formed.
    @inline(__always)
    static func widen(_ a: SIMD8<Int16>) -> SIMD8<Int32> {
        SIMD8<Int32>(Int32(a[0]), Int32(a[1]), Int32(a[2]), Int32(a[3]), Int32(a[4]), Int32(a[5]), Int32(a[6]), Int32(a[7]))
    }

    /// Scalar bias, multiplier, zero point and clamp for one output pixel's `outputDepth` sums
    /// (layers without a `VectorRequantization`).
    static func requantizeRow<T: QuantizedElement>(_ p: QuantizedDepthwiseConvParams, acc: UnsafePointer<Int32>,
                                                   output: UnsafeMutablePointer<T>) {
        RequantizationStep.requantizeRow(acc, count: p.outputDepth, bias: p.bias, steps: p.steps, outputZeroPoint: p.outputZeroPoint,
                                         activationMin: p.activationMin, activationMax: p.activationMax, into: output)
    }

    /// Plain reference implementation (test oracle), loop order of TFLite's reference kernel.
    package static func reference<T: QuantizedElement>(_ p: QuantizedDepthwiseConvParams, input: UnsafePointer<T>,
                                                      output: UnsafeMutablePointer<T>) {
        let g = p.geometry, od = p.outputDepth
        for b in 0..<g.batches { for oy in 0..<g.outputHeight { for ox in 0..<g.outputWidth {
            for ic in 0..<p.inputDepth { for m in 0..<p.depthMultiplier {
                let oc = ic * p.depthMultiplier + m
                var acc: Int32 = 0
                for fy in 0..<g.filterHeight { for fx in 0..<g.filterWidth {
                    let iy = oy * g.strideHeight - g.padTop + fy * g.dilationHeight
                    let ix = ox * g.strideWidth - g.padLeft + fx * g.dilationWidth
                    guard iy >= 0, iy < g.inputHeight, ix >= 0, ix < g.inputWidth else { continue }
                    let x = Int32(input[((b * g.inputHeight + iy) * g.inputWidth + ix) * p.inputDepth + ic]) - p.inputZeroPoint
                    acc = acc &+ x &* p.weights[(fy * g.filterWidth + fx) * od + oc]
                } }
                acc = acc &+ p.bias[oc]
                let v = p.multipliers[oc].apply(acc) &+ p.outputZeroPoint
                output[((b * g.outputHeight + oy) * g.outputWidth + ox) * od + oc] = T.clamped(v, p.activationMin, p.activationMax)
            } }
        } } }
    }
}

/// Interpreter kernel for uint8/int8 DEPTHWISE_CONV_2D.
final class QuantizedDepthwiseConvKernel: PreparedKernel {
    /// Element type chosen at prepare (int8 or uint8); eval dispatches to code specialized for it.
    let int8: Bool
    let params: QuantizedDepthwiseConvParams
    let input: Int, output: Int
    init(int8: Bool, params: QuantizedDepthwiseConvParams, input: Int, output: Int) { self.int8 = int8;
        self.params = params; self.input = input; self.output = output
    }
    var kernelName: String? {
        params.tierPath?.kernel.name ?? (params.depthMultiplier == 1 ? "8-bit depthwise pmaddwd" : "8-bit depthwise loops")
    }

    func eval(_ e: EvalContext) throws {
        if int8 { try evalTyped(e, Int8.self) } else { try evalTyped(e, UInt8.self) }
    }

    @inline(__always)
    private func evalTyped<T: QuantizedElement>(_ e: EvalContext, _: T.Type) throws {
        QuantizedDepthwiseConv2D.run(params, input: e.pointer(input, as: T.self), output: e.pointer(output, as: T.self),
                                     threads: e.threadCount)
    }
}

extension QuantizedDepthwiseConv2D {
    /// Prepare for DEPTHWISE_CONV_2D with uint8/int8 activations: constant filter `[1][fh][fw][out]`.
    @Sendable package static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, rank: 4, types: [.uint8, .int8])
        let f = try c.input(1, rank: 4, types: [.uint8, .int8])
        let p = c.parameters
        let inputDepth = x.shape[3], outputDepth = f.shape[3]
        guard inputDepth > 0, outputDepth % inputDepth == 0, f.shape[0] == 1 else {
            throw c.invalid("filter shape \(f.shape) does not fit input depth \(inputDepth)")
        }
        let dm = outputDepth / inputDepth
        let g = try WindowGeometry.make(c, input: x, filterH: f.shape[1], filterW: f.shape[2],
                                        dilationH: p.dilationHeightFactor, dilationW: p.dilationWidthFactor, allowsEmptyOutput: false)
        try c.setOutput(0, shape: [g.batches, g.outputHeight, g.outputWidth, outputDepth], type: x.type)
        let out = try c.output(0)
        let qi = try c.activationQuantization(of: x, "input"), qo = try c.quantization(of: out, "output")
        let (scales, zps) = try c.filterQuantization(f, channels: outputDepth, channelAxis: 3)
        let bias = try c.optionalBias(input: 2, count: outputDepth)
        let activation = try c.quantizedActivation()
        func build<W: QuantizedElement, A: QuantizedElement>(_: W.Type, _: A.Type) throws -> any PreparedKernel {
            let filter = try c.constantElements(input: 1, as: W.self, count: f.elementCount)
            let params = bias.withOptionalBuffer { b in
                QuantizedDepthwiseConvParams(geometry: g, inputDepth: inputDepth, depthMultiplier: dm, input: qi, output: qo,
                                             filter: filter, filterScales: scales, filterZeroPoints: zps, bias: b,
                                             activation: activation, outputType: A.self,
                                             floatProductMultiplier: x.type == .uint8, tier: c.tier)
            }
            guard let params else { throw c.invalid("filter, scales or bias do not match the shapes") }
            return QuantizedDepthwiseConvKernel(int8: A.self == Int8.self, params: params, input: x.index, output: out.index)
        }
        return try withQuantizedType(f.type, c) { w in try withQuantizedType(x.type, c) { a in try build(w, a) } }
    }
}
