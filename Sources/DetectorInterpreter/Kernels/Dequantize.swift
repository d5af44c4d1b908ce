import DetectorModelFile
import DetectorPlatform
/// `DEQUANTIZE` to float32: float16 → float32, and int8/uint8/int16 → (q - zero_point) * scale
/// (per-tensor or per-channel along `quantized_dimension`). Constant inputs (float16 weights)
/// are converted once at prepare by constant folding.
final class DequantizeKernel: PreparedKernel {
    let input: Int, output: Int, count: Int
    let type: TensorDataType
    /// Per-channel parameters (one entry for per-tensor) and the channel layout.
    let scales: [Float], zeroPoints: [Int32]
    let channelStride: Int, channels: Int

    init(input: Int, output: Int, count: Int, type: TensorDataType, scales: [Float], zeroPoints: [Int32], channelStride: Int, channels: Int) {
        self.input = input; self.output = output; self.count = count; self.type = type
        self.scales = scales; self.zeroPoints = zeroPoints; self.channelStride = channelStride; self.channels = channels
    }

    static let types: [TensorDataType] = [.float16, .int8, .uint8, .int16]

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, types: types)
        try c.setOutput(0, shape: x.shape, type: .float32)
        var scales: [Float] = [1], zps: [Int32] = [0]
        var stride = 1, channels = 1
        if x.type != .float16 {
            guard let q = x.quantization, !q.scales.isEmpty else { throw c.invalid("input has no quantization parameters") }
            scales = q.scales
            zps = q.zeroPoints.map { Int32(truncatingIfNeeded: $0) }
            if zps.isEmpty { zps = [0] }
            if scales.count > 1 {
                guard let axis = Shape.axis(q.quantizedDimension, rank: x.rank), x.shape[axis] == scales.count,
                      zps.count == scales.count || zps.count == 1 else {
                    throw c.invalid("per-channel parameters do not match shape \(x.shape)")
                }
                if zps.count == 1 { zps = [Int32](repeating: zps[0], count: scales.count) }
                channels = scales.count
                stride = Shape.count(Array(x.shape[(axis + 1)...]))
            }
        }
        return DequantizeKernel(input: x.index, output: try c.output(0).index, count: x.elementCount, type: x.type,
                                scales: scales, zeroPoints: zps, channelStride: stride, channels: channels)
    }

    func eval(_ e: EvalContext) throws {
        let dst = e.floats(output)
        switch type {
        case .float16:
            let src = e.pointer(input, as: UInt16.self)
            KernelSupport.halfToFloat(src, dst, count: count)
        case .int8: run(e.pointer(input, as: Int8.self), dst)
        case .uint8: run(e.pointer(input, as: UInt8.self), dst)
        case .int16: run(e.pointer(input, as: Int16.self), dst)
        default: break
        }
    }

    private func run<T: BinaryInteger>(_ src: UnsafeMutablePointer<T>, _ dst: UnsafeMutablePointer<Float>) {
        if channels == 1 {
            let s = scales[0], z = zeroPoints[0]
            for i in 0..<count { dst[i] = Float(Int32(src[i]) - z) * s }
        } else {
            for i in 0..<count {
                let ch = (i / channelStride) % channels
                dst[i] = Float(Int32(src[i]) - zeroPoints[ch]) * scales[ch]
            }
        }
    }
}
