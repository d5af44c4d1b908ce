import DetectorModelFile
import DetectorPlatform
/// `HARD_SWISH`: x * relu6(x + 3) / 6.
enum HardSwishKernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        try UnaryFloatKernel.prepare(c, .hardSwish)
    }
}
