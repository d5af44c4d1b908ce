import DetectorModelFile
import DetectorPlatform
/// `RESHAPE`: new shape from the shape tensor (input 1, int32 1-D, constant or computed at
/// prepare) or else the `new_shape` option; one dimension may be -1 (inferred).
enum ReshapeKernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0)
        var requested: [Int]? = nil
        if let s = c.optionalInput(1), s.rank == 1 {
            guard let values = try c.constantInts(input: 1) else {
                throw c.invalid("its shape tensor is computed from data at run time (not supported)")
            }
            requested = values
        }
        if requested == nil { requested = c.parameters.newShape }
        guard var shape = requested else {
            // Neither: keep the output's model shape.
            return try CopyKernel.prepare(c, input: x, outputShape: try c.output(0).shape)
        }
        let total = x.elementCount
        if let stretch = shape.firstIndex(of: -1) {
            guard shape.filter({ $0 == -1 }).count == 1 else { throw c.invalid("new shape \(shape) has more than one -1") }
            var known = 1
            for (i, d) in shape.enumerated() where i != stretch {
                guard d >= 0 else { throw c.invalid("new shape \(shape) has a negative dimension") }
                known = known.multipliedReportingOverflow(by: d).partialValue
            }
            guard known > 0, total % known == 0 else {
                throw c.invalid("cannot infer -1 in \(shape) for \(total) elements")
            }
            shape[stretch] = total / known
        }
        return try CopyKernel.prepare(c, input: x, outputShape: shape)
    }
}
