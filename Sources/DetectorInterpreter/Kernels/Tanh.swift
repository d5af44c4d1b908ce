import DetectorModelFile
import DetectorPlatform
import Foundation

/// `TANH`.
enum TanhKernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        try UnaryFloatKernel.prepare(c, .tanh)
    }
}
