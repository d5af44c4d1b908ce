import DetectorModelFile
import DetectorPlatform
import Foundation

/// `SOFTMAX` over the last dimension with `beta` (float32): exp((x - max) * beta) / sum.
final class SoftmaxKernel: PreparedKernel {
    let input: Int, output: Int, rows: Int, depth: Int
    let beta: Float

    init(input: Int, output: Int, rows: Int, depth: Int, beta: Float) {
        self.input = input; self.output = output; self.rows = rows; self.depth = depth; self.beta = beta
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.float32])
        guard x.rank >= 1 else { throw c.invalid("input must have rank ≥ 1") }
        try c.setOutput(0, shape: x.shape, type: .float32)
        let depth = x.shape[x.rank - 1]
        return SoftmaxKernel(input: x.index, output: try c.output(0).index,
                             rows: depth == 0 ? 0 : x.elementCount / depth, depth: depth, beta: c.parameters.beta)
    }

    func eval(_ e: EvalContext) throws {
        let src = e.floats(input), dst = e.floats(output)
        for r in 0..<rows {
            let s = src + r * depth, d = dst + r * depth
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
}
