import DetectorModelFile
import DetectorPlatform
extension KernelRegistry {
    /// Kernels for uint8/int8 activations (and other quantized-only ops), looked up before
    /// `floatRegistrations`. One line per kernel.
    static let quantizedRegistrations: [KernelRegistration] = [
        KernelRegistration(.conv2D, types: [.uint8, .int8], prepare: QuantizedConv2D.prepare),
        KernelRegistration(.depthwiseConv2D, types: [.uint8, .int8], prepare: QuantizedDepthwiseConv2D.prepare),
        KernelRegistration(.fullyConnected, types: [.uint8, .int8], prepare: QuantizedFullyConnected.prepare),
        KernelRegistration(.add, types: [.uint8, .int8], prepare: QuantizedAdd.prepare),
        KernelRegistration(.sub, types: [.uint8, .int8], prepare: QuantizedSub.prepare),
        KernelRegistration(.mul, types: [.uint8, .int8], prepare: QuantizedMul.prepare),
        KernelRegistration(.maximum, types: [.uint8, .int8], prepare: QuantizedMaximumMinimum.prepareMaximum),
        KernelRegistration(.minimum, types: [.uint8, .int8], prepare: QuantizedMaximumMinimum.prepareMinimum),
        KernelRegistration(.concatenation, types: [.uint8, .int8], prepare: QuantizedConcatenation.prepare),
        KernelRegistration(.averagePool2D, types: [.uint8, .int8], prepare: QuantizedPooling.prepareAverage),
        KernelRegistration(.maxPool2D, types: [.uint8, .int8], prepare: QuantizedPooling.prepareMax),
        KernelRegistration(.logistic, types: [.uint8, .int8], prepare: QuantizedLogistic.prepare),
        KernelRegistration(.tanh, types: [.uint8, .int8], prepare: QuantizedTanh.prepare),
        KernelRegistration(.softmax, types: [.uint8, .int8], prepare: QuantizedSoftmax.prepare),
        KernelRegistration(.hardSwish, types: [.uint8, .int8], prepare: QuantizedHardSwish.prepare),
        KernelRegistration(.leakyRelu, types: [.uint8, .int8], prepare: QuantizedLeakyRelu.prepare),
        KernelRegistration(.quantize, types: [.float32, .uint8, .int8], prepare: QuantizedQuantize.prepare),
        KernelRegistration(.resizeBilinear, types: [.uint8, .int8], prepare: QuantizedResizeBilinear.prepare),
        KernelRegistration(.mean, types: [.uint8, .int8], prepare: QuantizedMean.prepare),
        KernelRegistration(custom: DetectionPostProcessOptions.customCode, prepare: DetectionPostProcessKernel.prepare),
    ]
}
