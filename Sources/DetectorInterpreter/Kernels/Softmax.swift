import DetectorModelFile
import DetectorPlatform
import Foundation

/// `SOFTMAX` over the last dimension with `beta` (float32): exp((x - max) * beta) / sum.
///
/// Rows run through the kernel table's `elementwise.softmax` (`TierElementwise.softmax`:
/// `LaneMath.exp` on 16 lanes, the same bits at every tier) and are split across threads,
/// which never changes a row's arithmetic. `SoftmaxKernel.reference` is the scalar form
/// (the test oracle).
final class SoftmaxKernel: PreparedKernel {
    let input: Int, output: Int, rows: Int, depth: Int
    let beta: Float
    let threads: Int
    let kernels: FloatElementwiseKernels

    init(input: Int, output: Int, rows: Int, depth: Int, beta: Float, threads: Int, kernels: FloatElementwiseKernels) {
        self.input = input; self.output = output; self.rows = rows; self.depth = depth; self.beta = beta
        self.threads = threads; self.kernels = kernels
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.float32])
        guard x.rank >= 1 else { throw c.invalid("input must have rank ≥ 1") }
        try c.setOutput(0, shape: x.shape, type: .float32)
        let depth = x.shape[x.rank - 1]
        return SoftmaxKernel(input: x.index, output: try c.output(0).index,
                             rows: depth == 0 ? 0 : x.elementCount / depth, depth: depth, beta: c.parameters.beta,
                             threads: c.threadCount, kernels: c.kernelTable.elementwise)
    }

    func eval(_ e: EvalContext) throws {
        let src = UnsafePointer(e.floats(input)), dst = e.floats(output)
        let depth = self.depth, beta = self.beta, softmax = kernels.softmax
        guard rows > 0, depth > 0 else { return }
        KernelSupport.parallelElements(rows, threads: threads, minimumPerPart: max(1, (1 << 14) / depth)) { range in
            softmax(src + range.lowerBound &* depth, dst + range.lowerBound &* depth, range.count, depth, beta)
        }
    }

    /// The scalar form: `expf` and an in-order sum (the test oracle).
    static func reference(_ s: UnsafePointer<Float>, _ d: UnsafeMutablePointer<Float>, depth: Int, beta: Float) {
        var m = -Float.greatestFiniteMagnitude
        for i in 0..<depth { m = max(m, s[i]) }
        var sum: Float = 0
        for i in 0..<depth {
            let v = expf((s[i] - m) * beta)
            d[i] = v
            sum += v
        }
        for i in 0..<depth { d[i] /= sum }
    }
}
