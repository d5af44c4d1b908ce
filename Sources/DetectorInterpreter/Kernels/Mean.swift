import DetectorModelFile
import DetectorPlatform
/// `MEAN` over the axes in input 1 (negative allowed, duplicates ignored), `keep_dims`.
/// float32; sums in float like the reference kernel, then divides by the reduced count.
final class MeanKernel: PreparedKernel {
    let input: Int, output: Int
    let inShape: [Int], reduced: [Bool]
    let outCount: Int, reducedCount: Int

    init(input: Int, output: Int, inShape: [Int], reduced: [Bool], outCount: Int, reducedCount: Int) {
        self.input = input; self.output = output; self.inShape = inShape; self.reduced = reduced
        self.outCount = outCount; self.reducedCount = reducedCount
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.float32])
        guard let axes = try c.constantInts(input: 1) else { throw c.invalid("its axes are not known at prepare") }
        var reduced = [Bool](repeating: false, count: x.rank)
        for a in axes {
            guard let n = Shape.axis(a, rank: x.rank) else { throw c.invalid("axis \(a) is out of range for rank \(x.rank)") }
            reduced[n] = true
        }
        var shape: [Int] = []
        for d in 0..<x.rank {
            if reduced[d] { if c.parameters.keepDims { shape.append(1) } } else { shape.append(x.shape[d]) }
        }
        try c.setOutput(0, shape: shape, type: .float32)
        let rc = (0..<x.rank).filter { reduced[$0] }.reduce(1) { $0 * x.shape[$1] }
        return MeanKernel(input: x.index, output: try c.output(0).index, inShape: x.shape, reduced: reduced,
                          outCount: Shape.count(shape), reducedCount: rc)
    }

    func eval(_ e: EvalContext) throws {
        let src = e.floats(input), dst = e.floats(output)
        for i in 0..<outCount { dst[i] = 0 }
        let rank = inShape.count
        let total = Shape.count(inShape)
        // Output stride of each input dimension (0 for reduced ones).
        var outStride = [Int](repeating: 0, count: rank)
        var acc = 1
        for d in stride(from: rank - 1, through: 0, by: -1) where !reduced[d] {
            outStride[d] = acc
            acc *= inShape[d]
        }
        var index = [Int](repeating: 0, count: rank)
        var o = 0
        for i in 0..<total {
            dst[o] += src[i]
            var d = rank - 1
            while d >= 0 {
                index[d] += 1; o += outStride[d]
                if index[d] < inShape[d] { break }
                o -= outStride[d] * inShape[d]; index[d] = 0
                d -= 1
            }
        }
        if reducedCount > 0 {
            let n = Float(reducedCount)
            for i in 0..<outCount { dst[i] /= n }
        }
    }
}
