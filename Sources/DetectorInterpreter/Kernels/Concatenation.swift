import DetectorModelFile
import DetectorPlatform
/// `CONCATENATION` along `axis` (negative allowed). Type-agnostic byte copy; float32 outputs
/// get the fused activation clamp. (Quantized inputs with differing scales need the
/// quantized kernel, which is registered ahead of this one.)
final class ConcatenationKernel: PreparedKernel {
    let inputs: [Int], output: Int
    /// Bytes per outer step of each input.
    let chunkBytes: [Int]
    let outer: Int
    let clamp: (min: Float, max: Float)?
    let outputCount: Int

    init(inputs: [Int], output: Int, chunkBytes: [Int], outer: Int, clamp: (min: Float, max: Float)?, outputCount: Int) {
        self.inputs = inputs; self.output = output; self.chunkBytes = chunkBytes; self.outer = outer
        self.clamp = clamp; self.outputCount = outputCount
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        guard c.inputCount >= 1 else { throw c.invalid("it needs at least one input") }
        let first = try c.input(0)
        guard let size = first.type.byteSize else { throw c.invalid("type \(first.type) is not supported") }
        guard let axis = Shape.axis(c.parameters.axis, rank: first.rank) else {
            throw c.invalid("axis \(c.parameters.axis) is out of range for rank \(first.rank)")
        }
        var shape = first.shape
        shape[axis] = 0
        var infos: [TensorInfo] = []
        for i in 0..<c.inputCount {
            let t = try c.input(i, types: [first.type])
            guard t.rank == first.rank else { throw c.invalid("input \(i) has rank \(t.rank), input 0 has \(first.rank)") }
            for d in 0..<t.rank where d != axis && t.shape[d] != first.shape[d] {
                throw c.invalid("input \(i) shape \(t.shape) does not match \(first.shape) outside axis \(axis)")
            }
            shape[axis] += t.shape[axis]
            infos.append(t)
        }
        try c.setOutput(0, shape: shape, type: first.type)
        let outer = Shape.count(Array(first.shape[..<axis]))
        let chunks = infos.map { Shape.count(Array($0.shape[axis...])) * size }
        let act = c.parameters.activation
        let clamp = (first.type == .float32 && act != .none) ? KernelSupport.activationRange(act) : nil
        return ConcatenationKernel(inputs: infos.map(\.index), output: try c.output(0).index, chunkBytes: chunks,
                                   outer: outer, clamp: clamp, outputCount: Shape.count(shape))
    }

    func eval(_ e: EvalContext) throws {
        let rowBytes = chunkBytes.reduce(0, +), inputs = self.inputs, chunkBytes = self.chunkBytes
        // Output rows split over the threads when there is enough to copy.
        KernelSupport.parallelChunks(outer, parts: outer * rowBytes >= KernelSupport.parallelCopyBytes ? e.threadCount : 1) { rows in
            var dst = e.raw(output) + rows.lowerBound * rowBytes
            for o in rows {
                for (k, t) in inputs.enumerated() {
                    let n = chunkBytes[k]
                    copyBytes(dst, e.raw(t) + o * n, n)
                    dst += n
                }
            }
        }
        if let clamp {
            let p = e.floats(output)
            KernelSupport.parallelElements(outputCount, threads: outputCount * 4 >= KernelSupport.parallelCopyBytes ? e.threadCount : 1) { range in
                for i in range { p[i] = min(max(p[i], clamp.min), clamp.max) }
            }
        }
    }
}
