import DetectorModelFile
import DetectorPlatform
/// `SLICE`: begin and size tensors (size -1 = to the end). Type-agnostic.
enum SliceKernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0)
        guard let size = x.type.byteSize else { throw c.invalid("type \(x.type) is not supported") }
        guard let b = try c.constantInts(input: 1), let s = try c.constantInts(input: 2) else {
            throw c.invalid("its begin/size are not known at prepare")
        }
        guard b.count == x.rank, s.count == x.rank else { throw c.invalid("begin/size must have \(x.rank) values") }
        var sizes = s
        for d in 0..<x.rank {
            guard b[d] >= 0, b[d] <= x.shape[d] else { throw c.invalid("slice begin \(b) is outside shape \(x.shape)") }
            if sizes[d] == -1 { sizes[d] = x.shape[d] - b[d] }
            guard sizes[d] >= 0, sizes[d] <= x.shape[d] - b[d] else {
                throw c.invalid("slice begin \(b) size \(s) is outside shape \(x.shape)")
            }
        }
        try c.setOutput(0, shape: sizes, type: x.type)
        return StridedCopyKernel(input: x.index, output: try c.output(0).index, inShape: x.shape, begin: b,
                                 step: [Int](repeating: 1, count: x.rank), sizes: sizes, elementSize: size)
    }
}
