import DetectorModelFile
import DetectorPlatform
/// `LOGISTIC`: 1 / (1 + exp(-x)), with the reference kernel's cut-offs.
enum LogisticKernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        try UnaryFloatKernel.prepare(c, .logistic)
    }
}
