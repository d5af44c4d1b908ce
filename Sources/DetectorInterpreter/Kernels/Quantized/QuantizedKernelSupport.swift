import DetectorModelFile
import DetectorPlatform
// Broadcasting shared by the quantized kernels (the window geometry is `WindowGeometry`).

/// Numpy-style broadcasting of two shapes (ranks up to 6), precomputed as per-input strides
/// over a rank-6 output so kernels iterate without allocation. Adjacent dimensions that both
/// inputs walk the same way (both contiguous, or one broadcast across both) are merged, so
/// same-shape inputs become one contiguous row and broadcasts keep their rows as long as possible.
package struct BroadcastPlan: Sendable, Equatable {
    /// Merged output dimensions, left-padded with 1 to rank 6 (same element count as the output).
    package var outputDims: [Int]
    /// Element strides of input 1 / input 2 over `outputDims` (0 on broadcast dimensions).
    package var strides1: [Int], strides2: [Int]
    /// The unpadded output shape.
    package var outputShape: [Int]

    /// Nil when the shapes are not broadcast-compatible or have rank > 6.
    package init?(_ a: [Int], _ b: [Int]) {
        let rank = max(a.count, b.count)
        guard rank <= 6 else { return nil }
        let pa = Array(repeating: 1, count: 6 - a.count) + a
        let pb = Array(repeating: 1, count: 6 - b.count) + b
        var out = [Int](repeating: 1, count: 6)
        for d in 0..<6 {
            guard pa[d] >= 0, pb[d] >= 0 else { return nil }
            if pa[d] == pb[d] || pb[d] == 1 { out[d] = pa[d] } else if pa[d] == 1 { out[d] = pb[d] } else { return nil }
        }
        outputShape = Array(out.suffix(rank))
        // Merge from the innermost dimension outwards; size-1 output dimensions vanish.
        var sizes: [Int] = [], broadcast1: [Bool] = [], broadcast2: [Bool] = []
        for d in stride(from: 5, through: 0, by: -1) where out[d] != 1 {
            let b1 = pa[d] == 1, b2 = pb[d] == 1
            if let last = sizes.indices.last, broadcast1[last] == b1, broadcast2[last] == b2 {
                sizes[last] *= out[d]
            } else {
                sizes.append(out[d]); broadcast1.append(b1); broadcast2.append(b2)
            }
        }
        func strides(_ broadcast: [Bool]) -> [Int] {
            var s = [Int](repeating: 0, count: 6)
            var acc = 1
            for (g, size) in sizes.enumerated() {
                s[5 - g] = broadcast[g] ? 0 : acc
                if !broadcast[g] { acc *= size }
            }
            return s
        }
        outputDims = [Int](repeating: 1, count: 6 - sizes.count) + sizes.reversed()
        strides1 = strides(broadcast1)
        strides2 = strides(broadcast2)
    }

    /// Calls `body(outIndex, index1, index2, count, step1, step2)` for every contiguous run of
    /// the innermost dimension.
    @inlinable
    package func forEachRow(_ body: (Int, Int, Int, Int, Int, Int) -> Void) {
        let d = outputDims, s1 = strides1, s2 = strides2
        var o = 0
        for i0 in 0..<d[0] { for i1 in 0..<d[1] { for i2 in 0..<d[2] { for i3 in 0..<d[3] { for i4 in 0..<d[4] {
            let b1 = i0 * s1[0] + i1 * s1[1] + i2 * s1[2] + i3 * s1[3] + i4 * s1[4]
            let b2 = i0 * s2[0] + i1 * s2[1] + i2 * s2[2] + i3 * s2[3] + i4 * s2[4]
            body(o, b1, b2, d[5], s1[5], s2[5])
            o += d[5]
        } } } } }
    }
}

extension PrepareContext {
    /// Per-tensor scale and zero point of a quantized tensor; throws when it has none.
    package func quantization(of t: TensorInfo, _ role: String) throws -> QuantizationParams {
        guard let q = t.quantization, let s = q.scales.first, s > 0, s.isFinite else {
            throw invalid("\(role) tensor \(t.index) ('\(t.name)') has no usable quantization scale")
        }
        let zp = q.zeroPoints.first ?? 0
        guard zp >= -32768, zp <= 65535 else { throw invalid("\(role) zero point \(zp) is out of range") }
        return QuantizationParams(scale: s, zeroPoint: Int32(zp))
    }

    /// Per-tensor quantization of an 8-bit activation whose zero point must lie in the 8-bit range
    /// (the Int16 GEMM and depthwise kernels rely on |x - zeroPoint| <= 383).
    func activationQuantization(of t: TensorInfo, _ role: String) throws -> QuantizationParams {
        let q = try quantization(of: t, role)
        guard q.zeroPoint >= -128, q.zeroPoint <= 255 else {
            throw invalid("\(role) zero point \(q.zeroPoint) is outside the 8-bit range")
        }
        return q
    }

    /// The fused activation as a quantized clamp; TANH/SIGN_BIT are not supported on quantized outputs.
    func quantizedActivation() throws -> QuantizedFusedActivation {
        switch parameters.activation {
        case .none: return .none
        case .relu: return .relu
        case .relu6: return .relu6
        case .reluN1To1: return .reluN1To1
        case .tanh, .signBit: throw invalid("fused activation \(parameters.activation) is not supported on quantized outputs")
        }
    }

    /// A constant input viewed as typed elements (bounds-checked against its shape).
    func constantElements<E>(input i: Int, as type: E.Type, count: Int) throws -> UnsafeBufferPointer<E> {
        guard let raw = constantData(input: i) else { throw invalid("input \(i) must be a constant tensor") }
        let (bytes, overflow) = count.multipliedReportingOverflow(by: MemoryLayout<E>.stride)
        guard !overflow, raw.count >= bytes, let base = raw.baseAddress else {
            throw invalid("constant input \(i) holds \(raw.count) bytes, fewer than its \(count) elements need")
        }
        return UnsafeBufferPointer(start: base.assumingMemoryBound(to: E.self), count: count)
    }

    /// Per-channel (or per-tensor) filter scales and zero points of a constant filter input.
    func filterQuantization(_ f: TensorInfo, channels: Int, channelAxis: Int) throws -> (scales: [Float], zeroPoints: [Int32]) {
        guard let q = f.quantization, !q.scales.isEmpty else {
            throw invalid("filter tensor \(f.index) ('\(f.name)') is not quantized")
        }
        if q.scales.count > 1 {
            guard q.scales.count == channels, q.quantizedDimension == channelAxis else {
                throw invalid("filter has \(q.scales.count) scales along axis \(q.quantizedDimension); expected \(channels) along axis \(channelAxis)")
            }
        }
        guard q.scales.allSatisfy({ $0 > 0 && $0.isFinite }) else { throw invalid("filter has a non-positive scale") }
        let zps = q.zeroPoints.isEmpty ? [Int32(0)] : q.zeroPoints.map { Int32(clamping: $0) }
        // The Int16 GEMM and depthwise kernels rely on |w - zeroPoint| <= 383.
        guard zps.allSatisfy({ $0 >= -128 && $0 <= 255 }) else {
            throw invalid("filter zero points \(zps.prefix(4)) are outside the 8-bit range")
        }
        return (q.scales, zps.count == q.scales.count ? zps : [zps[0]])
    }

    /// Optional int32 bias input of `count` elements, copied.
    func optionalBias(input i: Int, count: Int) throws -> [Int32]? {
        guard let b = optionalInput(i) else { return nil }
        guard b.type == .int32 else { throw invalid("bias must be int32, not \(b.type)") }
        guard b.elementCount == count else { throw invalid("bias has \(b.elementCount) elements, expected \(count)") }
        return Array(try constantElements(input: i, as: Int32.self, count: count))
    }
}

/// Calls `body` with the Swift element type of a quantized tensor type.
func withQuantizedType<R>(_ type: TensorDataType, _ c: PrepareContext,
                          _ body: (any QuantizedElement.Type) throws -> R) throws -> R {
    switch type {
    case .uint8: return try body(UInt8.self)
    case .int8: return try body(Int8.self)
    default: throw c.invalid("type \(type) is not a quantized 8-bit type")
    }
}
