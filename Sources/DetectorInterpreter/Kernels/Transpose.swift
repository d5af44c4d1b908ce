import DetectorModelFile
import DetectorPlatform
/// `TRANSPOSE` by a constant permutation (input 1). Type-agnostic.
final class TransposeKernel: PreparedKernel {
    let input: Int, output: Int
    let outShape: [Int]
    /// For each output dimension, the input stride it walks.
    let strides: [Int]
    let elementSize: Int

    init(input: Int, output: Int, outShape: [Int], strides: [Int], elementSize: Int) {
        self.input = input; self.output = output; self.outShape = outShape; self.strides = strides; self.elementSize = elementSize
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0)
        guard let size = x.type.byteSize else { throw c.invalid("type \(x.type) is not supported") }
        guard let perm = try c.constantInts(input: 1) else { throw c.invalid("its permutation is not known at prepare") }
        guard perm.count == x.rank, Set(perm) == Set(0..<x.rank) else {
            throw c.invalid("permutation \(perm) is not a permutation of 0..<\(x.rank)")
        }
        let inStrides = Shape.strides(x.shape)
        let outShape = perm.map { x.shape[$0] }
        try c.setOutput(0, shape: outShape, type: x.type)
        return TransposeKernel(input: x.index, output: try c.output(0).index, outShape: outShape,
                               strides: perm.map { inStrides[$0] }, elementSize: size)
    }

    func eval(_ e: EvalContext) throws {
        withElementStorage(byteSize: elementSize) { t in run(e, t) }
    }

    private func run<T: FixedWidthInteger>(_ e: EvalContext, _: T.Type) {
        let src = e.pointer(input, as: T.self), dst = e.pointer(output, as: T.self)
        let rank = outShape.count
        let total = Shape.count(outShape)
        if total == 0 { return }
        if rank == 0 { dst[0] = src[0]; return }
        let inner = outShape[rank - 1], innerStep = strides[rank - 1]
        let outShape = self.outShape, strides = self.strides
        // Output rows split over the threads; each part starts at its first row's input offset.
        KernelSupport.parallelChunks(total / inner, parts: total * MemoryLayout<T>.stride >= KernelSupport.parallelCopyBytes ? e.threadCount : 1) { rows in
            RowWalk.forEach(rows, dimensions: rank - 1, sizes: outShape, stridesA: strides) { row, base, _ in
                var o = row * inner, s = base
                for _ in 0..<inner { dst[o] = src[s]; o += 1; s += innerStep }
            }
        }
    }
}
