/// Prepared parameters of a quantized DEPTHWISE_CONV_2D (uint8 per-tensor or int8 per-channel).
///
/// Arithmetic is TFLite's reference `DepthwiseConv` (round-away-from-zero requantization) /
/// `DepthwiseConvPerChannel`: per output channel `oc = ic * depthMultiplier + m`,
/// Σ (w - zw)(x - zx) over the window's in-bounds taps + bias, requantized with
/// `double(inputScale) * double(filterScale[oc]) / double(outputScale)`.
public struct QuantizedDepthwiseConvParams: Sendable {
    public var geometry: QuantizedWindowGeometry
    public var inputDepth: Int
    public var depthMultiplier: Int
    public var outputDepth: Int { inputDepth * depthMultiplier }
    public var inputZeroPoint: Int32
    public var outputZeroPoint: Int32
    public var multipliers: [QuantizedMultiplier]
    /// `multipliers` unpacked for the requantization loop.
    public var steps: [RequantizationStep]
    public var activationMin: Int32
    public var activationMax: Int32
    /// `[fh][fw][outputDepth]` as Int32 with the filter zero point removed.
    public var weights: [Int32]
    /// `weights` as `Float` for the exact float fast path.
    public var floatWeights: [Float]
    public var bias: [Int32]

    /// - Parameter filter: raw filter values `[1][fh][fw][inputDepth * depthMultiplier]`.
    public init?<W: QuantizedElement>(geometry: QuantizedWindowGeometry, inputDepth: Int, depthMultiplier: Int,
                                      input: QuantizationParams, output: QuantizationParams,
                                      filter: UnsafeBufferPointer<W>, filterScales: [Float], filterZeroPoints: [Int32],
                                      bias: UnsafeBufferPointer<Int32>?, activation: QuantizedFusedActivation,
                                      outputType: (some QuantizedElement).Type, floatProductMultiplier: Bool = false) {
        let od = inputDepth * depthMultiplier
        guard inputDepth > 0, depthMultiplier > 0,
              filter.count == geometry.filterHeight * geometry.filterWidth * od,
              filterScales.count == 1 || filterScales.count == od,
              filterZeroPoints.count == 1 || filterZeroPoints.count == od,
              bias == nil || bias!.count == od else { return nil }
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
        floatWeights = weights.map { Float($0) }
        self.bias = bias.map { Array($0) } ?? [Int32](repeating: 0, count: od)
    }
}

/// Quantized DEPTHWISE_CONV_2D kernels.
public enum QuantizedDepthwiseConv2D {
    /// Fast path: per output pixel, accumulate all channels at once in `Float` (exact: each
    /// product of zero-point-shifted 8-bit values is below 2^16 and windows of at most 64 taps
    /// keep sums below 2^22), output rows split over `threads`. Larger windows use the reference.
    public static func run<T: QuantizedElement>(_ p: QuantizedDepthwiseConvParams, input: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>, threads: Int = 1) {
        let g = p.geometry
        // Exact while |sum| ≤ taps · 255² < 2^22 (the limit of `ExactFloatGemm.exactInt32`).
        guard g.filterHeight * g.filterWidth <= 64 else { reference(p, input: input, output: output); return }
        let od = p.outputDepth, ic = p.inputDepth, dm = p.depthMultiplier
        let inputCount = g.batches * g.inputHeight * g.inputWidth * ic
        let xf = UnsafeMutablePointer<Float>.allocate(capacity: max(inputCount, 1))
        defer { xf.deallocate() }
        let izp = p.inputZeroPoint
        for i in 0..<inputCount { xf[i] = Float(Int32(input[i]) &- izp) }
        p.floatWeights.withUnsafeBufferPointer { wb in
        p.bias.withUnsafeBufferPointer { biasb in
        p.steps.withUnsafeBufferPointer { mul in
            guard let w = wb.baseAddress, let bias = biasb.baseAddress else { return }
            parallelChunks(count: g.batches * g.outputHeight, threads: threads) { begin, end in
                let acc = UnsafeMutablePointer<Float>.allocate(capacity: od)
                defer { acc.deallocate() }
                for row in begin..<end {
                    let b = row / g.outputHeight, oy = row % g.outputHeight
                    for ox in 0..<g.outputWidth {
                        if dm == 1 {
                            // Channels in blocks of 8 summed in registers over the window's taps
                            // (exact in any order, see above), then the remaining channels.
                            var c = 0
                            while c < od {
                                let lanes = min(8, od &- c)
                                var s = SIMD8<Float>()
                                var t = SIMD8<Float>()
                                for fy in 0..<g.filterHeight {
                                    let iy = oy &* g.strideHeight &- g.padTop &+ fy &* g.dilationHeight
                                    if iy < 0 || iy >= g.inputHeight { continue }
                                    for fx in 0..<g.filterWidth {
                                        let ix = ox &* g.strideWidth &- g.padLeft &+ fx &* g.dilationWidth
                                        if ix < 0 || ix >= g.inputWidth { continue }
                                        let src = xf + (((b &* g.inputHeight &+ iy) &* g.inputWidth &+ ix) &* ic &+ c)
                                        let wt = w + ((fy &* g.filterWidth &+ fx) &* od &+ c)
                                        if lanes == 8 {
                                            s += UnsafeRawPointer(src).loadUnaligned(as: SIMD8<Float>.self)
                                                * UnsafeRawPointer(wt).loadUnaligned(as: SIMD8<Float>.self)
                                        } else {
                                            for l in 0..<lanes { t[l] += src[l] * wt[l] }
                                        }
                                    }
                                }
                                if lanes == 8 {
                                    UnsafeMutableRawPointer(acc + c).storeBytes(of: s, as: SIMD8<Float>.self)
                                } else {
                                    for l in 0..<lanes { acc[c &+ l] = t[l] }
                                }
                                c &+= lanes
                            }
                            let dst = output + ((b * g.outputHeight + oy) * g.outputWidth + ox) * od
                            for c in 0..<od {
                                let v = mul[c].apply(ExactFloatGemm.exactInt32(acc[c]) &+ bias[c]) &+ p.outputZeroPoint
                                dst[c] = T.clamped(v, p.activationMin, p.activationMax)
                            }
                            continue
                        }
                        acc.update(repeating: 0, count: od)
                        for fy in 0..<g.filterHeight {
                            let iy = oy * g.strideHeight - g.padTop + fy * g.dilationHeight
                            if iy < 0 || iy >= g.inputHeight { continue }
                            for fx in 0..<g.filterWidth {
                                let ix = ox * g.strideWidth - g.padLeft + fx * g.dilationWidth
                                if ix < 0 || ix >= g.inputWidth { continue }
                                let src = xf + ((b * g.inputHeight + iy) * g.inputWidth + ix) * ic
                                let wt = w + (fy * g.filterWidth + fx) * od
                                if dm == 1 {
                                    for c in 0..<od { acc[c] += src[c] * wt[c] }
                                } else {
                                    for c in 0..<ic { for m in 0..<dm {
                                        acc[c * dm + m] += src[c] * wt[c * dm + m]
                                    } }
                                }
                            }
                        }
                        let dst = output + ((b * g.outputHeight + oy) * g.outputWidth + ox) * od
                        for c in 0..<od {
                            let v = mul[c].apply(ExactFloatGemm.exactInt32(acc[c]) &+ bias[c]) &+ p.outputZeroPoint
                            dst[c] = T.clamped(v, p.activationMin, p.activationMax)
                        }
                    }
                }
            }
        } } }
    }

    /// Plain reference implementation (test oracle), loop order of TFLite's reference kernel.
    public static func reference<T: QuantizedElement>(_ p: QuantizedDepthwiseConvParams, input: UnsafePointer<T>,
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
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, rank: 4, types: [.uint8, .int8])
        let f = try c.input(1, rank: 4, types: [.uint8, .int8])
        let p = c.parameters
        let inputDepth = x.shape[3], outputDepth = f.shape[3]
        guard inputDepth > 0, outputDepth % inputDepth == 0, f.shape[0] == 1 else {
            throw c.invalid("filter shape \(f.shape) does not fit input depth \(inputDepth)")
        }
        let dm = outputDepth / inputDepth
        guard let g = QuantizedWindowGeometry(batches: x.shape[0], inputHeight: x.shape[1], inputWidth: x.shape[2],
                                     filterHeight: f.shape[1], filterWidth: f.shape[2],
                                     strideHeight: p.strideHeight, strideWidth: p.strideWidth,
                                     dilationHeight: p.dilationHeightFactor, dilationWidth: p.dilationWidthFactor,
                                     samePadding: p.padding == .same) else {
            throw c.invalid("invalid depthwise geometry: input \(x.shape), filter \(f.shape)")
        }
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
                                             floatProductMultiplier: x.type == .uint8)
            }
            guard let params else { throw c.invalid("filter, scales or bias do not match the shapes") }
            return QuantizedDepthwiseConvKernel(int8: A.self == Int8.self, params: params, input: x.index, output: out.index)
        }
        return try withQuantizedType(f.type, c) { w in try withQuantizedType(x.type, c) { a in try build(w, a) } }
    }
}
