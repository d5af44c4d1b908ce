import DetectorModelFile
import DetectorPlatform
import Foundation

/// `SOFTMAX` over the last dimension with `beta` (float32): exp((x - max) * beta) / sum.
///
/// Each row runs 8 lanes at a time through `LaneMath.exp` (the reference formula, within 2 ulp
/// of `expf`); a row's last `depth % 8` values go through the same exp on one lane, so a value's
/// result depends only on its row. The sum adds the 8 lane sums pairwise, then the tail in
/// order. Rows are split across threads; the split never changes a row's arithmetic.
/// `SoftmaxKernel.reference` is the scalar form (the test oracle).
final class SoftmaxKernel: PreparedKernel {
    let input: Int, output: Int, rows: Int, depth: Int
    let beta: Float
    let threads: Int

    init(input: Int, output: Int, rows: Int, depth: Int, beta: Float, threads: Int) {
        self.input = input; self.output = output; self.rows = rows; self.depth = depth; self.beta = beta
        self.threads = threads
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.float32])
        guard x.rank >= 1 else { throw c.invalid("input must have rank ≥ 1") }
        try c.setOutput(0, shape: x.shape, type: .float32)
        let depth = x.shape[x.rank - 1]
        return SoftmaxKernel(input: x.index, output: try c.output(0).index,
                             rows: depth == 0 ? 0 : x.elementCount / depth, depth: depth, beta: c.parameters.beta,
                             threads: c.threadCount)
    }

    func eval(_ e: EvalContext) throws {
        let src = UnsafePointer(e.floats(input)), dst = e.floats(output)
        let depth = self.depth, beta = self.beta
        guard rows > 0, depth > 0 else { return }
        let rowsPerPart = max(1, (1 << 14) / depth)
        KernelSupport.parallelElements(rows, threads: threads, minimumPerPart: rowsPerPart) { range in
            for r in range {
                Self.row(src + r &* depth, dst + r &* depth, depth: depth, beta: beta)
            }
        }
    }

    /// One row: `d[i] = exp((s[i] - max) · beta) / Σ`.
    @inline(__always)
    static func row(_ s: UnsafePointer<Float>, _ d: UnsafeMutablePointer<Float>, depth: Int, beta: Float) {
        let vectorEnd = depth & ~7
        var m = -Float.greatestFiniteMagnitude
        if vectorEnd > 0 {
            // Lane-wise maximum by the sign of the difference (the generic `max()` and
            // `replace(with:where:)` are calls per row, which cost more than the row at depth 16).
            var vm = UnsafeRawPointer(s).loadUnaligned(as: SIMD8<Float>.self)
            var i = 8
            while i < vectorEnd {
                let v = UnsafeRawPointer(s + i).loadUnaligned(as: SIMD8<Float>.self)
                vm = LaneMath.select(LaneMath.negativeMask(vm - v), v, vm)
                i &+= 8
            }
            let high = SIMD8<Float>(lowHalf: vm.highHalf, highHalf: vm.highHalf)
            let h4 = LaneMath.select(LaneMath.negativeMask(vm - high), high, vm)
            m = Swift.max(Swift.max(h4[0], h4[1]), Swift.max(h4[2], h4[3]))
        }
        for i in vectorEnd..<depth { m = max(m, s[i]) }
        let vmax = SIMD8<Float>(repeating: m), vbeta = SIMD8<Float>(repeating: beta)
        var vsum = SIMD8<Float>()
        var i = 0
        while i < vectorEnd {
            let v = LaneMath.exp((UnsafeRawPointer(s + i).loadUnaligned(as: SIMD8<Float>.self) - vmax) * vbeta)
            UnsafeMutableRawPointer(d + i).storeBytes(of: v, as: SIMD8<Float>.self)
            vsum += v
            i &+= 8
        }
        let h4 = vsum.lowHalf + vsum.highHalf, h2 = h4.lowHalf + h4.highHalf
        var sum = h2.x + h2.y
        while i < depth {
            let v = LaneMath.exp(SIMD8(repeating: (s[i] - m) * beta))[0]
            d[i] = v
            sum += v
            i &+= 1
        }
        let vsumAll = SIMD8<Float>(repeating: sum)
        i = 0
        while i < vectorEnd {
            let p = UnsafeMutableRawPointer(d + i)
            p.storeBytes(of: p.loadUnaligned(as: SIMD8<Float>.self) / vsumAll, as: SIMD8<Float>.self)
            i &+= 8
        }
        while i < depth { d[i] /= sum; i &+= 1 }
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
