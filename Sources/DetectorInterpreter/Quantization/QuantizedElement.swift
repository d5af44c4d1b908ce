import DetectorModelFile
import DetectorPlatform
/// The 8-bit integer element types of quantized tensors (`UInt8` asymmetric legacy models,
/// `Int8` for the newer quantization spec).
package protocol QuantizedElement: FixedWidthInteger, Sendable {
    /// Smallest representable value as `Int32`.
    static var quantizedMin: Int32 { get }
    /// Largest representable value as `Int32`.
    static var quantizedMax: Int32 { get }
}

extension UInt8: QuantizedElement {
    package static var quantizedMin: Int32 { 0 }
    package static var quantizedMax: Int32 { 255 }
}

extension Int8: QuantizedElement {
    package static var quantizedMin: Int32 { -128 }
    package static var quantizedMax: Int32 { 127 }
}

extension QuantizedElement {
    /// Clamps an `Int32` to `[lo, hi]` and converts (the bounds must lie within the type's range).
    @inlinable @inline(__always)
    static func clamped(_ v: Int32, _ lo: Int32, _ hi: Int32) -> Self {
        Self(truncatingIfNeeded: v < lo ? lo : (v > hi ? hi : v))
    }
}

/// Scale and zero point of a per-tensor quantized tensor: `real = scale * (q - zeroPoint)`.
package struct QuantizationParams: Sendable, Equatable {
    package var scale: Float
    package var zeroPoint: Int32
    package init(scale: Float, zeroPoint: Int32) {
        self.scale = scale
        self.zeroPoint = zeroPoint
    }
}

/// TFLite fused activation functions as they apply to quantized outputs.
package enum QuantizedFusedActivation: Sendable, Equatable {
    case none, relu, reluN1To1, relu6
    /// TANH / SIGN_BIT fused activations are not supported on quantized outputs by TFLite.
}

/// TFLite `CalculateActivationRangeQuantized`: the clamp bounds of a fused activation in
/// the output's quantized domain (`zeroPoint + round(f / scale)`, rounding half away from zero,
/// computed in `Float`).
package func quantizedActivationRange<T: QuantizedElement>(
    _ activation: QuantizedFusedActivation, output: QuantizationParams, as type: T.Type
) -> (min: Int32, max: Int32) {
    let qmin = T.quantizedMin, qmax = T.quantizedMax
    func quantize(_ f: Float) -> Int32 {
        let r = (f / output.scale).rounded(.toNearestOrAwayFromZero)
        guard r.isFinite else { return r > 0 ? Int32.max : Int32.min }
        return output.zeroPoint &+ Int32(clamping: Int64(r < -4e18 ? -4e18 : (r > 4e18 ? 4e18 : r)))
    }
    switch activation {
    case .none: return (qmin, qmax)
    case .relu: return (max(qmin, quantize(0)), qmax)
    case .relu6: return (max(qmin, quantize(0)), min(qmax, quantize(6)))
    case .reluN1To1: return (max(qmin, quantize(-1)), min(qmax, quantize(1)))
    }
}

