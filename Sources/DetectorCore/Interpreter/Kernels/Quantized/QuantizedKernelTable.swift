extension KernelRegistry {
    /// Kernels for uint8/int8 activations (and other quantized-only ops), looked up before
    /// `floatRegistrations`. Owned by the quantized-kernel work: add one line per kernel, e.g.
    /// `KernelRegistration("CONV_2D", types: [.uint8, .int8], prepare: QuantizedConv2D.prepare)`.
    static let quantizedRegistrations: [KernelRegistration] = [
    ]
}
