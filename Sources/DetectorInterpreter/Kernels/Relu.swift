import DetectorModelFile
import DetectorPlatform
/// `RELU`: max(0, x).
enum ReluKernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        try UnaryFloatKernel.prepare(c, .clamp(min: 0, max: .greatestFiniteMagnitude))
    }
}
