import DetectorModelFile
import DetectorPlatform
/// `DENSIFY`: expands a sparse constant tensor (TFLite sparsity: traversal order, block map,
/// DENSE / SPARSE_CSR dimension metadata) into a dense tensor. The input is constant, so this
/// runs once at prepare (constant folding): a DENSIFY → DEQUANTIZE → CONV_2D chain leaves
/// only the convolution, with its weights packed from the folded dense tensor. Any element type
/// of fixed size (float32, float16, int8, …).
final class DensifyKernel: PreparedKernel {
    let input: Int, output: Int
    let elementSize: Int
    let layout: SparseTensorLayout

    init(input: Int, output: Int, elementSize: Int, layout: SparseTensorLayout) {
        self.input = input; self.output = output; self.elementSize = elementSize; self.layout = layout
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.float32, .float16, .int8, .uint8, .int16, .int32])
        guard let g = c.graphTensor(input: 0), let sparsity = g.sparsity else { throw c.invalid("input has no sparsity metadata") }
        guard let bytes = c.constantData(input: 0) else { throw c.invalid("input is not constant") }
        let size = x.type.byteSize ?? 1
        let layout: SparseTensorLayout
        do {
            layout = try SparseTensorLayout(shape: x.shape, sparsity: sparsity, storedCount: bytes.count / size)
        } catch {
            throw c.invalid("the sparsity metadata of input tensor \(x.index) ('\(g.name)') is inconsistent: \(error.description)")
        }
        try c.setOutput(0, shape: x.shape, type: x.type)
        return DensifyKernel(input: x.index, output: try c.output(0).index, elementSize: size, layout: layout)
    }

    func eval(_ e: EvalContext) throws {
        layout.scatter(from: e.raw(input), to: e.raw(output), elementSize: elementSize)
    }
}
