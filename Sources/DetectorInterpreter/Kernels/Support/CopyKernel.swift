import DetectorModelFile
import DetectorPlatform
/// Copies the input bytes unchanged into the output (RESHAPE, SQUEEZE, EXPAND_DIMS):
/// only the shape changes. Works for every element type.
final class CopyKernel: PreparedKernel {
    let input: Int, output: Int, byteCount: Int

    init(input: Int, output: Int, byteCount: Int) {
        self.input = input; self.output = output; self.byteCount = byteCount
    }

    /// Sets output 0 to `shape` (same element count as input 0) and returns the copy kernel.
    static func prepare(_ c: PrepareContext, input x: TensorInfo, outputShape shape: [Int]) throws -> any PreparedKernel {
        guard let n = Shape.elementCount(shape), n == x.elementCount else {
            throw c.invalid("output shape \(shape) does not hold the \(x.elementCount) elements of input shape \(x.shape)")
        }
        guard let size = x.type.byteSize else { throw c.invalid("element type \(x.type) is not supported") }
        try c.setOutput(0, shape: shape, type: x.type)
        return CopyKernel(input: x.index, output: try c.output(0).index, byteCount: n * size)
    }

    func eval(_ e: EvalContext) throws {
        let src = e.raw(input), dst = e.raw(output)
        if src != dst && byteCount > 0 { dst.copyMemory(from: src, byteCount: byteCount) }
    }
}

/// Runs a generic body with an unsigned integer type of the given byte size (1, 2, 4, 8),
/// so data-movement kernels move whole elements of any tensor type.
@inline(__always)
func withElementStorage<R>(byteSize: Int, _ body: (any FixedWidthInteger.Type) -> R) -> R {
    switch byteSize {
    case 1: return body(UInt8.self)
    case 2: return body(UInt16.self)
    case 4: return body(UInt32.self)
    default: return body(UInt64.self)
    }
}
