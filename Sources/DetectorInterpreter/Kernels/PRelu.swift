import DetectorModelFile
import DetectorPlatform
/// `PRELU`: element-wise with numpy-style broadcasting (TFLite semantics), fused activation where the op has one.
enum PReluKernel {
    static let types: [TensorDataType] = [.float32]
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        try BinaryElementwiseKernel.prepare(c, .prelu, types: types)
    }
}
