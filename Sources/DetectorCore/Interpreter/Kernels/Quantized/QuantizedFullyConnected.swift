/// Quantized FULLY_CONNECTED: a 1×1 convolution over `batches` rows. TFLite's reference
/// `FullyConnected` arithmetic (Σ (w - zw)(x - zx) + bias, `MultiplyByQuantizedMultiplier`,
/// + output zero point, clamp); per-channel int8 weights use one multiplier per output unit.
public enum QuantizedFullyConnected {
    /// Builds the prepared parameters: weights `[units][inputDepth]`, `batches` input rows.
    public static func params<W: QuantizedElement>(batches: Int, inputDepth: Int, units: Int,
                                                   input: QuantizationParams, output: QuantizationParams,
                                                   filter: UnsafeBufferPointer<W>, filterScales: [Float], filterZeroPoints: [Int32],
                                                   bias: UnsafeBufferPointer<Int32>?, activation: QuantizedFusedActivation,
                                                   outputType: (some QuantizedElement).Type) -> QuantizedConvParams? {
        guard let g = WindowGeometry(batches: 1, inputHeight: max(batches, 1), inputWidth: 1, filterHeight: 1, filterWidth: 1,
                                     strideHeight: 1, strideWidth: 1, samePadding: false) else { return nil }
        return QuantizedConvParams(geometry: g, inputDepth: inputDepth, outputDepth: units, input: input, output: output,
                                   filter: filter, filterScales: filterScales, filterZeroPoints: filterZeroPoints,
                                   bias: bias, activation: activation, outputType: outputType)
    }

    /// Runs the GEMM path.
    public static func run<T: QuantizedElement>(_ p: QuantizedConvParams, input: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>, threads: Int = 1) {
        QuantizedConv2D.run(p, input: input, output: output, threads: threads)
    }
}
