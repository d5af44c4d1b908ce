/// Copies a strided N-d window of a tensor: output element at index i (per dimension) comes
/// from input index `begin[d] + i[d] * step[d]`. Shared by STRIDED_SLICE and SLICE.
final class StridedCopyKernel: PreparedKernel {
    let input: Int, output: Int
    let inStrides: [Int], begin: [Int], step: [Int], sizes: [Int]
    let elementSize: Int

    init(input: Int, output: Int, inShape: [Int], begin: [Int], step: [Int], sizes: [Int], elementSize: Int) {
        self.input = input; self.output = output
        self.inStrides = Shape.strides(inShape)
        self.begin = begin; self.step = step; self.sizes = sizes; self.elementSize = elementSize
    }

    func eval(_ e: EvalContext) throws {
        withElementStorage(byteSize: elementSize) { t in run(e, t) }
    }

    private func run<T: FixedWidthInteger>(_ e: EvalContext, _: T.Type) {
        let src = e.pointer(input, as: T.self), dst = e.pointer(output, as: T.self)
        let rank = sizes.count
        let total = Shape.count(sizes)
        if total == 0 { return }
        if rank == 0 { dst[0] = src[0]; return }
        var start = 0
        for d in 0..<rank { start += begin[d] * inStrides[d] }
        let inner = sizes[rank - 1], innerStep = step[rank - 1] * inStrides[rank - 1]
        let dimStep = (0..<rank).map { step[$0] * inStrides[$0] }
        var index = [Int](repeating: 0, count: rank)
        var base = start, o = 0
        for _ in 0..<(total / inner) {
            var s = base
            for _ in 0..<inner { dst[o] = src[s]; o += 1; s += innerStep }
            var d = rank - 2
            while d >= 0 {
                index[d] += 1; base += dimStep[d]
                if index[d] < sizes[d] { break }
                base -= dimStep[d] * sizes[d]; index[d] = 0
                d -= 1
            }
        }
    }
}
