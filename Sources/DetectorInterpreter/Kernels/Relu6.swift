import DetectorModelFile
import DetectorPlatform
/// `RELU6`: min(6, max(0, x)).
enum Relu6Kernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        try UnaryFloatKernel.prepare(c, .clamp(min: 0, max: 6))
    }
}
