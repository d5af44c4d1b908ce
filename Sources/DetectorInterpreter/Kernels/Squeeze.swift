import DetectorModelFile
import DetectorPlatform
/// `SQUEEZE`: removes the listed size-1 dimensions (negative allowed), or every size-1 dimension.
enum SqueezeKernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0)
        var remove = [Bool](repeating: false, count: x.rank)
        if c.parameters.squeezeDims.isEmpty {
            for (i, d) in x.shape.enumerated() where d == 1 { remove[i] = true }
        } else {
            for d in c.parameters.squeezeDims {
                guard let a = Shape.axis(d, rank: x.rank) else { throw c.invalid("squeeze dimension \(d) is out of range for rank \(x.rank)") }
                guard x.shape[a] == 1 else { throw c.invalid("dimension \(d) of \(x.shape) is not 1") }
                remove[a] = true
            }
        }
        let shape = x.shape.enumerated().filter { !remove[$0.offset] }.map(\.element)
        return try CopyKernel.prepare(c, input: x, outputShape: shape)
    }
}
