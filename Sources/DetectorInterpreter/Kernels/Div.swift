import DetectorModelFile
import DetectorPlatform
/// `DIV`: element-wise with numpy-style broadcasting (TFLite semantics), fused activation where the op has one.
enum DivKernel {
    static let types: [TensorDataType] = [.float32, .int32]
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        try BinaryElementwiseKernel.prepare(c, .div, types: types)
    }
}
