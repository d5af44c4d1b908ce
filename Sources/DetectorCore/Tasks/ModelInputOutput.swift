import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
/// The glue between images and a model's tensors that both tasks use: how a model's image
/// input wants its values, copying a converted image in, and reading scores out as floats.
extension TensorInputType {
    /// The value conversion for a model's image input: float32 normalized as given, uint8 raw
    /// pixels, int8 quantized with the tensor's scale and zero point (after normalization).
    static func forModelInput(_ input: TensorDescription, normalization: TensorNormalization) throws -> TensorInputType {
        switch input.type {
        case .float32:
            return .float32(normalization)
        case .uint8:
            return .uint8
        case .int8:
            guard let q = input.quantization, let scale = q.scales.first, let zero = q.zeroPoints.first else {
                throw TaskError.unsupportedModel("the model's int8 input '\(input.name)' has no quantization parameters")
            }
            return .int8(scale: scale, zeroPoint: Int(zero), normalization: normalization)
        default:
            throw TaskError.unsupportedModel("the model's input type \(input.type.name) is not an image type (float32, uint8 or int8)")
        }
    }
}

extension Interpreter {
    /// Copies a converted image into input `position`.
    func copyInput(_ values: TensorValues, at position: Int) throws {
        switch values {
        case let .float32(v): try copyInput(v, at: position)
        case let .uint8(v): try copyInput(v, at: position)
        case let .int8(v): try v.withUnsafeBytes { try copyInput($0, at: position) }
        }
    }

    /// Output `position` as floats; uint8/int8 outputs are dequantized as `(q − zero point) · scale`
    /// in float32, as MediaPipe and the YOLO reference do.
    func dequantizedOutput(at position: Int) throws -> [Float] {
        let info = outputs[position]
        switch info.type {
        case .float32:
            return try outputFloats(at: position)
        case .uint8, .int8:
            let scale = info.quantization?.scales.first ?? 1
            let zero = Float(info.quantization?.zeroPoints.first ?? 0)
            return try withOutputBytes(at: position) { raw in
                info.type == .uint8 ? raw.map { (Float($0) - zero) * scale }
                    : raw.bindMemory(to: Int8.self).map { (Float($0) - zero) * scale }
            }
        default:
            throw TaskError.unsupportedModel("output \(position) has type \(info.type.name); float32, uint8 or int8 scores are needed")
        }
    }
}
