import DetectorModelFile
import DetectorPlatform
extension KernelRegistry {
    /// Kernels for uint8/int8 activations (and other quantized-only ops), looked up before
    /// `floatRegistrations`. One line per kernel.
    static let quantizedRegistrations: [KernelRegistration] = [
        KernelRegistration("CONV_2D", types: [.uint8, .int8], prepare: QuantizedConv2D.prepare),
        KernelRegistration("DEPTHWISE_CONV_2D", types: [.uint8, .int8], prepare: QuantizedDepthwiseConv2D.prepare),
        KernelRegistration("FULLY_CONNECTED", types: [.uint8, .int8], prepare: QuantizedFullyConnected.prepare),
        KernelRegistration("ADD", types: [.uint8, .int8], prepare: QuantizedAdd.prepare),
        KernelRegistration("SUB", types: [.uint8, .int8], prepare: QuantizedSub.prepare),
        KernelRegistration("MUL", types: [.uint8, .int8], prepare: QuantizedMul.prepare),
        KernelRegistration("MAXIMUM", types: [.uint8, .int8], prepare: QuantizedMaximumMinimum.prepareMaximum),
        KernelRegistration("MINIMUM", types: [.uint8, .int8], prepare: QuantizedMaximumMinimum.prepareMinimum),
        KernelRegistration("CONCATENATION", types: [.uint8, .int8], prepare: QuantizedConcatenation.prepare),
        KernelRegistration("AVERAGE_POOL_2D", types: [.uint8, .int8], prepare: QuantizedPooling.prepareAverage),
        KernelRegistration("MAX_POOL_2D", types: [.uint8, .int8], prepare: QuantizedPooling.prepareMax),
        KernelRegistration("LOGISTIC", types: [.uint8, .int8], prepare: QuantizedLogistic.prepare),
        KernelRegistration("TANH", types: [.uint8, .int8], prepare: QuantizedTanh.prepare),
        KernelRegistration("SOFTMAX", types: [.uint8, .int8], prepare: QuantizedSoftmax.prepare),
        KernelRegistration("HARD_SWISH", types: [.uint8, .int8], prepare: QuantizedHardSwish.prepare),
        KernelRegistration("LEAKY_RELU", types: [.uint8, .int8], prepare: QuantizedLeakyRelu.prepare),
        KernelRegistration("QUANTIZE", types: [.float32, .uint8, .int8], prepare: QuantizedQuantize.prepare),
        KernelRegistration("RESIZE_BILINEAR", types: [.uint8, .int8], prepare: QuantizedResizeBilinear.prepare),
        KernelRegistration("MEAN", types: [.uint8, .int8], prepare: QuantizedMean.prepare),
        KernelRegistration(DetectionPostProcessOptions.customCode, prepare: DetectionPostProcessKernel.prepare),
    ]
}
