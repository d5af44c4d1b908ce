import DetectorModelFile
import DetectorPlatform
/// `LEAKY_RELU`: x > 0 ? x : alpha * x.
enum LeakyReluKernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let alpha = c.parameters.alpha
        return try UnaryFloatKernel.prepare(c, .leakyRelu(alpha: alpha))
    }
}
