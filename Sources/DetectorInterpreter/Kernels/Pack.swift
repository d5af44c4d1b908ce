import DetectorModelFile
import DetectorPlatform
/// `PACK`: stacks `values_count` equal-shaped tensors along a new `axis`. Type-agnostic.
enum PackKernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let first = try c.input(0)
        guard let size = first.type.byteSize else { throw c.invalid("type \(first.type) is not supported") }
        var axis = c.parameters.axis
        if axis < 0 { axis += first.rank + 1 }
        guard axis >= 0, axis <= first.rank else { throw c.invalid("axis \(c.parameters.axis) is out of range") }
        var ins: [Int] = []
        for i in 0..<c.inputCount {
            let t = try c.input(i, types: [first.type])
            guard t.shape == first.shape else { throw c.invalid("input \(i) shape \(t.shape) differs from \(first.shape)") }
            ins.append(t.index)
        }
        var shape = first.shape
        shape.insert(ins.count, at: axis)
        try c.setOutput(0, shape: shape, type: first.type)
        return ChunkCopyKernel(single: try c.output(0).index, many: ins,
                               chunkBytes: Shape.count(Array(first.shape[axis...])) * size,
                               outer: Shape.count(Array(first.shape[..<axis])), scatter: false)
    }
}
