import DetectorModelFile
import DetectorPlatform
/// `SPLIT`: input 0 is the axis (constant scalar), input 1 the tensor, split into
/// `num_splits` equal parts. Type-agnostic.
enum SplitKernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(1)
        guard let size = x.type.byteSize else { throw c.invalid("type \(x.type) is not supported") }
        guard let axisValues = try c.constantInts(input: 0), axisValues.count == 1,
              let axis = Shape.axis(axisValues[0], rank: x.rank) else {
            throw c.invalid("its axis must be one constant integer within the rank \(x.rank)")
        }
        let n = c.outputCount
        guard n > 0, x.shape[axis] % n == 0 else { throw c.invalid("dimension \(x.shape[axis]) does not split into \(n) parts") }
        var shape = x.shape
        shape[axis] /= n
        var outs: [Int] = []
        for i in 0..<n {
            try c.setOutput(i, shape: shape, type: x.type)
            outs.append(try c.output(i).index)
        }
        return ChunkCopyKernel(single: x.index, many: outs, chunkBytes: Shape.count(Array(shape[axis...])) * size,
                               outer: Shape.count(Array(x.shape[..<axis])), scatter: true)
    }
}
