import DetectorModelFile
import DetectorPlatform
/// Affine quantization of a tensor: `real = scale · (q − zeroPoint)`, per tensor or per channel.
///
/// ```swift
/// let interpreter = try Interpreter(contentsOfFile: "coco_ssd_mobilenet_v1.tflite")
/// if let q = interpreter.inputs[0].quantization {
///     print(q.scale, q.zeroPoint)   // 0.0078125 128
/// }
/// ```
public struct TensorQuantization: Sendable, Equatable {
    public var scales: [Float]
    public var zeroPoints: [Int64]
    /// Axis the per-channel scales run along (0 for per-tensor).
    public var quantizedDimension: Int

    public init(scales: [Float], zeroPoints: [Int64], quantizedDimension: Int = 0) {
        self.scales = scales
        self.zeroPoints = zeroPoints
        self.quantizedDimension = quantizedDimension
    }

    /// Scale of a per-tensor quantization (first scale), 0 when empty.
    public var scale: Float { scales.first ?? 0 }
    /// Zero point of a per-tensor quantization (first zero point), 0 when empty.
    public var zeroPoint: Int { Int(zeroPoints.first ?? 0) }
}
