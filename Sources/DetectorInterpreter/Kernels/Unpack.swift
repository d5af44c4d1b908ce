import DetectorModelFile
import DetectorPlatform
/// `UNPACK`: splits along `axis` into `num` tensors of one rank less. Type-agnostic.
enum UnpackKernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0)
        guard let size = x.type.byteSize else { throw c.invalid("type \(x.type) is not supported") }
        guard let axis = Shape.axis(c.parameters.axis, rank: x.rank) else { throw c.invalid("axis \(c.parameters.axis) is out of range") }
        let n = x.shape[axis]
        guard n == c.outputCount else { throw c.invalid("dimension \(n) differs from the \(c.outputCount) outputs") }
        var shape = x.shape
        shape.remove(at: axis)
        var outs: [Int] = []
        for i in 0..<n {
            try c.setOutput(i, shape: shape, type: x.type)
            outs.append(try c.output(i).index)
        }
        return ChunkCopyKernel(single: x.index, many: outs, chunkBytes: Shape.count(Array(x.shape[(axis + 1)...])) * size,
                               outer: Shape.count(Array(x.shape[..<axis])), scatter: true)
    }
}
