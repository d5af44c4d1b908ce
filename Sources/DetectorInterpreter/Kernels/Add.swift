import DetectorModelFile
import DetectorPlatform
/// `ADD`: element-wise with numpy-style broadcasting (TFLite semantics), fused activation where the op has one.
enum AddKernel {
    static let types: [TensorDataType] = [.float32, .int32, .int64]
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        try BinaryElementwiseKernel.prepare(c, .add, types: types)
    }
}
