import DetectorModelFile
import DetectorPlatform
/// `FULLY_CONNECTED` (weights [units, depth], optional bias, `keep_num_dims`): float32 through
/// `FloatGEMM` (packed at prepare when the weights are constant), and the hybrid form (int8
/// weights, per-row symmetric or — with `asymmetric_quantize_inputs` — asymmetric input
/// quantization, per-tensor or per-channel scales) as the runtime's hybrid kernel computes it.
final class FullyConnectedKernel: PreparedKernel {
    let input: Int, weights: Int, bias: Int?, output: Int
    let rows: Int, depth: Int, units: Int
    let act: (min: Float, max: Float)
    let threads: Int
    let packed: FloatGEMM.PackedMatrix?
    let hybrid: (weights: [Int8], scales: [Float], perChannel: Bool, asymmetric: Bool)?

    init(input: Int, weights: Int, bias: Int?, output: Int, rows: Int, depth: Int, units: Int, act: (min: Float, max: Float),
         threads: Int, packed: FloatGEMM.PackedMatrix?, hybrid: (weights: [Int8], scales: [Float], perChannel: Bool, asymmetric: Bool)?) {
        self.input = input; self.weights = weights; self.bias = bias; self.output = output
        self.rows = rows; self.depth = depth; self.units = units; self.act = act; self.threads = threads
        self.packed = packed; self.hybrid = hybrid
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.float32])
        let w = try c.input(1, rank: 2, types: [.float32, .int8])
        let units = w.shape[0], depth = w.shape[1]
        guard depth > 0, x.elementCount % depth == 0 else { throw c.invalid("input shape \(x.shape) is not a multiple of depth \(depth)") }
        guard c.parameters.weightsFormat == 0 else { throw c.invalid("shuffled weights format is not supported") }
        let b = c.optionalInput(2)
        if let b { guard b.type == .float32, b.elementCount == units else { throw c.invalid("bias must be float32 with \(units) values") } }
        let rows = x.elementCount / depth
        let shape = c.parameters.keepNumDims ? Array(x.shape.dropLast()) + [units] : [rows, units]
        try c.setOutput(0, shape: shape, type: .float32)
        var packed: FloatGEMM.PackedMatrix? = nil
        var hybrid: (weights: [Int8], scales: [Float], perChannel: Bool, asymmetric: Bool)? = nil
        if w.type == .int8 {
            guard let bytes = c.constantData(input: 1), let q = w.quantization, q.scales.count == 1 || q.scales.count == units else {
                throw c.invalid("hybrid weights must be constant with one scale or one per unit")
            }
            hybrid = (Array(bytes.bindMemory(to: Int8.self).prefix(w.elementCount)),
                      q.scales.count == 1 ? [Float](repeating: q.scales[0], count: units) : q.scales,
                      q.scales.count > 1, c.parameters.asymmetricQuantizeInputs)
        } else if let bytes = c.constantData(input: 1) {
            let wf = bytes.bindMemory(to: Float.self)
            guard let base = wf.baseAddress, wf.count >= depth * units else { throw c.invalid("its weights hold \(wf.count) values, fewer than \(depth * units)") }
            packed = FloatGEMM.PackedMatrix(k: depth, n: units, table: c.kernelTable, fused: c.fusesMultiplyAdd,
                                            source: base, kStride: 1, nStride: depth)
        }
        return FullyConnectedKernel(input: x.index, weights: w.index, bias: b?.index, output: try c.output(0).index,
                                    rows: rows, depth: depth, units: units, act: KernelSupport.activationRange(c.parameters.activation),
                                    threads: c.threadCount, packed: packed, hybrid: hybrid)
    }

    var kernelName: String? { hybrid != nil ? "reference hybrid loops" : packed?.kernel.name ?? "reference loops" }
    /// The weights, where eval reads only their packed copy.
    var packedInputs: [Int] { hybrid == nil && packed != nil ? [weights] : [] }

    func eval(_ e: EvalContext) throws {
        let src = UnsafePointer(e.floats(input)), dst = e.floats(output)
        let biasPtr = bias.map { UnsafePointer(e.floats($0)) }
        if let hybrid {
            FullyConnectedKernel.referenceHybrid(rows: rows, depth: depth, units: units, input: src, weights: hybrid.weights,
                                                 scales: hybrid.scales, perChannel: hybrid.perChannel, asymmetric: hybrid.asymmetric,
                                                 bias: biasPtr, output: dst, act: act)
        } else if let packed {
            let (d, u, a) = (depth, units, act)
            FloatGEMM.parallelMultiply(m: rows, parts: rows * depth * units >= 1 << 16 ? threads : 1, a: src, lda: d, b: packed,
                                       bias: biasPtr, c: dst, ldc: u, clampMin: a.min, clampMax: a.max)
        } else {
            FullyConnectedKernel.referenceFloat(rows: rows, depth: depth, units: units, input: src, weights: UnsafePointer(e.floats(weights)),
                                                bias: biasPtr, output: dst, act: act)
        }
    }

    /// Plain float fully connected (oracle).
    static func referenceFloat(rows: Int, depth: Int, units: Int, input: UnsafePointer<Float>, weights: UnsafePointer<Float>,
                               bias: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>, act: (min: Float, max: Float)) {
        for r in 0..<rows {
            for u in 0..<units {
                var total: Float = 0
                for d in 0..<depth { total += input[r * depth + d] * weights[u * depth + d] }
                if let bias { total += bias[u] }
                output[r * units + u] = min(max(total, act.min), act.max)
            }
        }
    }

    /// Hybrid fully connected: each input row quantized (symmetric, or asymmetric with an
    /// offset), integer dot products, `bias + dot · scale`.
    static func referenceHybrid(rows: Int, depth: Int, units: Int, input: UnsafePointer<Float>, weights: [Int8], scales: [Float],
                                perChannel: Bool, asymmetric: Bool, bias: UnsafePointer<Float>?,
                                output: UnsafeMutablePointer<Float>, act: (min: Float, max: Float)) {
        let q = UnsafeMutablePointer<Int8>.allocate(capacity: max(1, depth))
        q.initialize(repeating: 0, count: max(1, depth))
        defer { q.deallocate() }
        for r in 0..<rows {
            var sf: Float, offset: Int32 = 0
            if asymmetric {
                let res = HybridQuantization.asymmetric(input + r * depth, count: depth, into: q)
                sf = res.scale; offset = res.offset
            } else {
                sf = HybridQuantization.symmetric(input + r * depth, count: depth, into: q)
            }
            if !perChannel { sf *= scales[0] }
            for u in 0..<units {
                var dot: Int32 = 0, rowSum: Int32 = 0
                for d in 0..<depth {
                    let wv = Int32(weights[u * depth + d])
                    dot &+= wv * Int32(q[d])
                    rowSum &+= wv
                }
                dot &-= rowSum &* offset
                let scale = perChannel ? sf * scales[u] : sf
                var v = (bias?[u] ?? 0) + Float(dot) * scale
                v = min(max(v, act.min), act.max)
                output[r * units + u] = v
            }
        }
    }
}
