import DetectorModelFile
import DetectorPlatform
/// Prepared quantized LEAKY_RELU: identity multiplier `inputScale / outputScale` and alpha
/// multiplier `inputScale * alpha / outputScale` (both computed in `Float` like the runtime).
package struct QuantizedLeakyReluParams: Sendable, Equatable {
    package var inputZeroPoint: Int32, outputZeroPoint: Int32
    package var identity: QuantizedMultiplier, alpha: QuantizedMultiplier

    package init(input: QuantizationParams, output: QuantizationParams, alpha a: Float) {
        inputZeroPoint = input.zeroPoint
        outputZeroPoint = output.zeroPoint
        let alphaReal: Float = input.scale * a / output.scale
        let identityReal: Float = input.scale / output.scale
        alpha = QuantizedMultiplier(Double(alphaReal))
        identity = QuantizedMultiplier(Double(identityReal))
    }
}

/// Quantized LEAKY_RELU (TFLite reference `QuantizeLeakyRelu`).
package enum QuantizedLeakyRelu {
    package static func run<T: QuantizedElement>(_ p: QuantizedLeakyReluParams, input: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>, count: Int) {
        for i in 0..<count {
            let x = Int32(input[i]) &- p.inputZeroPoint
            let m = x >= 0 ? p.identity : p.alpha
            output[i] = T.clamped(m.apply(x) &+ p.outputZeroPoint, T.quantizedMin, T.quantizedMax)
        }
    }
}
