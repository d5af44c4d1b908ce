import DetectorModelFile
import DetectorPlatform
/// `RELU_N1_TO_1`: min(1, max(-1, x)).
enum ReluN1To1Kernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        try UnaryFloatKernel.prepare(c, .clamp(min: -1, max: 1))
    }
}
