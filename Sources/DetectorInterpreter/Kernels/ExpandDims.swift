import DetectorModelFile
import DetectorPlatform
/// `EXPAND_DIMS`: inserts a size-1 dimension at the axis given by input 1 (in [-rank-1, rank]).
enum ExpandDimsKernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0)
        guard let values = try c.constantInts(input: 1), values.count == 1 else {
            throw c.invalid("its axis must be one constant integer")
        }
        var axis = values[0]
        if axis < 0 { axis += x.rank + 1 }
        guard axis >= 0, axis <= x.rank else { throw c.invalid("axis \(values[0]) is out of range for rank \(x.rank)") }
        var shape = x.shape
        shape.insert(1, at: axis)
        return try CopyKernel.prepare(c, input: x, outputShape: shape)
    }
}
