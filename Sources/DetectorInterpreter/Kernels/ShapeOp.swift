import DetectorModelFile
import DetectorPlatform
/// `SHAPE`: the input's shape as int32 (or int64 when the output tensor is int64).
/// Depends only on the input's shape, so it is always evaluated at prepare.
final class ShapeKernel: PreparedKernel {
    let output: Int
    let values: [Int]
    let is64: Bool
    var dependsOnlyOnInputShapes: Bool { true }

    init(output: Int, values: [Int], is64: Bool) { self.output = output; self.values = values; self.is64 = is64 }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0)
        let outType = try c.output(0).type == .int64 ? TensorDataType.int64 : .int32
        try c.setOutput(0, shape: [x.rank], type: outType)
        return ShapeKernel(output: try c.output(0).index, values: x.shape, is64: outType == .int64)
    }

    func eval(_ e: EvalContext) throws {
        if is64 {
            let p = e.pointer(output, as: Int64.self)
            for (i, v) in values.enumerated() { p[i] = Int64(v) }
        } else {
            let p = e.pointer(output, as: Int32.self)
            for (i, v) in values.enumerated() { p[i] = Int32(truncatingIfNeeded: v) }
        }
    }
}
