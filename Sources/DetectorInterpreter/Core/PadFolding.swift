import DetectorModelFile
import DetectorPlatform
/// A spatial PAD whose only reader is a VALID convolution is folded into it at prepare: the
/// convolution reads the PAD's input and pads it implicitly (`WindowGeometry.make` with
/// `PrepareContext.foldedPadding`), and the PAD neither runs nor gets a buffer. Detectors
/// exported from PyTorch put such a PAD before every stride-2 convolution (yolov8n int8: seven
/// of them, 2 % of its invoke). Only convolutions with 8-bit filters (quantized and hybrid) take
/// it: they pad anyway (their padded byte copies or clipped windows), on bytes where the PAD
/// copied floats.
///
/// The outputs are the same: a PAD writes zeros (float) or the zero point (quantized, with the
/// same quantization on both sides), which is what the convolutions' implicit padding stands
/// for, and a hybrid convolution's input range includes 0 either way (`HybridQuantization`).
/// Not folded: PADV2 and PAD with a pad-value input, paddings of the batch or channel axis,
/// paddings reaching a whole filter past the input (a window of padding only), a PAD output
/// that is a graph output or has a second reader, and everything under `preserveAllTensors`.
///
/// Example: PAD [[0, 0], [1, 1], [1, 1], [0, 0]] → CONV_2D 3×3 stride 2 VALID on 640×640 runs
/// as one CONV_2D on the 640×640 input with padTop = padLeft = 1 (output 320×320 either way).
package enum PadFolding {
    /// Rows and columns of padding before and after the input.
    package struct Padding: Sendable, Equatable {
        package var top: Int, left: Int, bottom: Int, right: Int
    }

    /// A PAD op folded into the convolution `convolution`, which reads `source` (the PAD's input).
    struct Fold {
        var convolution: Int, source: Int, padding: Padding
        /// The PAD's output shape (what the convolution's window is computed over).
        var paddedShape: [Int]
    }
}

extension Interpreter {
    /// The fold of PAD op `k` (shapes of the ops before it resolved), or nil when it must run.
    /// `readers[t]`: how many op inputs name tensor `t`.
    func padFold(_ k: Int, readers: [Int]) -> PadFolding.Fold? {
        let n = graph.tensors.count, op = graph.operators[k]
        guard !options.preserveAllTensors, op.code == .pad, op.inputs.count == 2, op.outputs.count == 1 else { return nil }
        let source = op.inputs[0], paddings = op.inputs[1], out = op.outputs[0]
        guard source >= 0, source < n, paddings >= 0, paddings < n, out >= 0, out < n, source != out,
              !isConstant[source], isConstant[paddings], readers[out] == 1, !graph.outputs.contains(out),
              shapes[source].count == 4, types[source] == types[out] else { return nil }
        // The one reader: a VALID CONV_2D / DEPTHWISE_CONV_2D taking it as its input 0.
        guard let j = graph.operators.indices.first(where: { $0 > k && graph.operators[$0].inputs.contains(out) }) else { return nil }
        let conv = graph.operators[j]
        // 8-bit filters only (quantized and hybrid convolutions, which pad bytes): float ones read
        // a VALID input in place and padded it more slowly than the PAD (yolov8n int8's first
        // convolution: 2.3 → 3.0 ms against the PAD's 0.34 ms).
        guard conv.code == .conv2D || conv.code == .depthwiseConv2D, conv.inputs.count >= 2, conv.inputs[0] == out,
              conv.parameters.padding == .valid, conv.inputs[1] >= 0, conv.inputs[1] < n, shapes[conv.inputs[1]].count == 4,
              types[conv.inputs[1]] == .int8 || types[conv.inputs[1]] == .uint8 else { return nil }
        // Quantized tensors: the PAD fills with the zero point, the convolution pads with its input's.
        if let q = graph.tensors[source].quantization ?? graph.tensors[out].quantization, types[source] != .float32 {
            guard let r = graph.tensors[out].quantization, q.scales == r.scales, q.zeroPoints == r.zeroPoints else { return nil }
        }
        guard let bytes = constantBytes(paddings) else { return nil }
        let values: [Int]
        switch types[paddings] {
        case .int32 where bytes.count >= 32:
            values = (0..<8).map { Int(bytes.loadUnaligned(fromByteOffset: 4 * $0, as: Int32.self)) }
        case .int64 where bytes.count >= 64:
            values = (0..<8).map { Int(truncatingIfNeeded: bytes.loadUnaligned(fromByteOffset: 8 * $0, as: Int64.self)) }
        default:
            return nil
        }
        guard Shape.count(shapes[paddings]) == 8, values[0] == 0, values[1] == 0, values[6] == 0, values[7] == 0 else { return nil }
        let p = conv.parameters, filter = shapes[conv.inputs[1]]
        // Extents of the filter window minus one (≥ 0): no padding past them, so every window
        // reads the input. Filters and dilations from 2^20 on are invalid anyway (`WindowGeometry`),
        // which also keeps these products and the padded sizes far from overflowing.
        let limit = 1 << 20
        guard (1..<limit).contains(filter[1]), (1..<limit).contains(filter[2]),
              (1..<limit).contains(p.dilationHeightFactor), (1..<limit).contains(p.dilationWidthFactor) else { return nil }
        let reachH = (filter[1] - 1) * p.dilationHeightFactor, reachW = (filter[2] - 1) * p.dilationWidthFactor
        guard (2...5).allSatisfy({ values[$0] >= 0 }),
              values[2] <= reachH, values[3] <= reachH, values[4] <= reachW, values[5] <= reachW else { return nil }
        var padded = shapes[source]
        let (h, oh) = padded[1].addingReportingOverflow(values[2] + values[3])
        let (w, ow) = padded[2].addingReportingOverflow(values[4] + values[5])
        guard !oh, !ow else { return nil }
        padded[1] = h; padded[2] = w
        return PadFolding.Fold(convolution: j, source: source,
                               padding: PadFolding.Padding(top: values[2], left: values[4], bottom: values[3], right: values[5]),
                               paddedShape: padded)
    }
}
