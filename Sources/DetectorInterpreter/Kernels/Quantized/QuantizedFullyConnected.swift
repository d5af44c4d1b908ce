import DetectorModelFile
import DetectorPlatform
/// Quantized FULLY_CONNECTED: a 1×1 convolution over `batches` rows. TFLite's reference
/// `FullyConnected` arithmetic (Σ (w - zw)(x - zx) + bias, `MultiplyByQuantizedMultiplier`,
/// + output zero point, clamp); per-channel int8 weights use one multiplier per output unit.
package enum QuantizedFullyConnected {
    /// Builds the prepared parameters: weights `[units][inputDepth]`, `batches` input rows.
    package static func params<W: QuantizedElement>(batches: Int, inputDepth: Int, units: Int,
                                                   input: QuantizationParams, output: QuantizationParams,
                                                   filter: UnsafeBufferPointer<W>, filterScales: [Float], filterZeroPoints: [Int32],
                                                   bias: UnsafeBufferPointer<Int32>?, activation: QuantizedFusedActivation,
                                                   outputType: (some QuantizedElement).Type,
                                                   tier: InstructionSetTier = .baseline) -> QuantizedConvParams? {
        guard let g = WindowGeometry(batches: 1, inputHeight: max(batches, 1), inputWidth: 1, filterHeight: 1, filterWidth: 1,
                                     strideHeight: 1, strideWidth: 1, samePadding: false) else { return nil }
        return QuantizedConvParams(geometry: g, inputDepth: inputDepth, outputDepth: units, input: input, output: output,
                                   filter: filter, filterScales: filterScales, filterZeroPoints: filterZeroPoints,
                                   bias: bias, activation: activation, outputType: outputType,
                                   floatProductMultiplier: filterScales.count == 1, tier: tier)
    }

    /// Runs the GEMM path.
    package static func run<T: QuantizedElement>(_ p: QuantizedConvParams, input: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>, threads: Int = 1) {
        QuantizedConv2D.run(p, input: input, output: output, threads: threads)
    }
}

extension QuantizedFullyConnected {
    /// Prepare for FULLY_CONNECTED with uint8/int8 activations: constant weights `[units][depth]`.
    @Sendable package static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.uint8, .int8])
        let f = try c.input(1, rank: 2, types: [.uint8, .int8])
        guard c.parameters.weightsFormat == 0 else { throw c.invalid("shuffled weights format is not supported") }
        let units = f.shape[0], depth = f.shape[1]
        guard depth > 0, x.elementCount % depth == 0 else {
            throw c.invalid("input of \(x.elementCount) elements is not a multiple of the weights depth \(depth)")
        }
        let batches = x.elementCount / depth
        guard batches > 0 else { throw c.invalid("input has no rows") }
        let shape = c.parameters.keepNumDims ? Array(x.shape.dropLast()) + [units] : [batches, units]
        try c.setOutput(0, shape: shape, type: x.type)
        let out = try c.output(0)
        let qi = try c.activationQuantization(of: x, "input"), qo = try c.quantization(of: out, "output")
        let (scales, zps) = try c.filterQuantization(f, channels: units, channelAxis: 0)
        let bias = try c.optionalBias(input: 2, count: units)
        let activation = try c.quantizedActivation()
        func build<W: QuantizedElement, A: QuantizedElement>(_: W.Type, _: A.Type) throws -> any PreparedKernel {
            let filter = try c.constantElements(input: 1, as: W.self, count: f.elementCount)
            let params = bias.withOptionalBuffer { b in
                QuantizedFullyConnected.params(batches: batches, inputDepth: depth, units: units, input: qi, output: qo,
                                               filter: filter, filterScales: scales, filterZeroPoints: zps, bias: b,
                                               activation: activation, outputType: A.self, tier: c.tier)
            }
            guard let params else { throw c.invalid("weights, scales or bias do not match the shapes") }
            return QuantizedGemmKernel(int8: A.self == Int8.self, params: params, input: x.index, output: out.index,
                                       threads: c.threadCount, scratch: c.scratch)
        }
        return try withQuantizedType(f.type, c) { w in try withQuantizedType(x.type, c) { a in try build(w, a) } }
    }
}
