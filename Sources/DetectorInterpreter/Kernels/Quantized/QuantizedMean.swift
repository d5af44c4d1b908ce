import DetectorModelFile
import DetectorPlatform
/// Quantized MEAN (TFLite reference `QuantizedMeanOrSum`): Int32 sum over the reduced axes,
/// `- zeroPoint * n`, then one `MultiplyByQuantizedMultiplier` whose multiplier folds in `1/n`
/// (`(m << s) / n` with `s = min(floor(log2 n), 32, 31 + shift)`), + output zero point, clamp.
package struct QuantizedMeanParams: Sendable, Equatable {
    package var inputShape: [Int]
    /// Per input dimension: true when reduced.
    package var reduced: [Bool]
    package var elementsPerOutput: Int
    package var outputCount: Int
    package var inputZeroPoint: Int32, outputZeroPoint: Int32
    package var multiplier: QuantizedMultiplier

    package init?(inputShape: [Int], axes: [Int], input: QuantizationParams, output: QuantizationParams) {
        let rank = inputShape.count
        var reduced = [Bool](repeating: false, count: rank)
        for a in axes {
            let r = a < 0 ? a + rank : a
            guard r >= 0, r < rank else { return nil }
            reduced[r] = true
        }
        self.inputShape = inputShape
        self.reduced = reduced
        var n = 1, outs = 1
        for d in 0..<rank { if reduced[d] { n *= inputShape[d] } else { outs *= inputShape[d] } }
        elementsPerOutput = n
        outputCount = outs
        inputZeroPoint = input.zeroPoint
        outputZeroPoint = output.zeroPoint
        var m = QuantizedMultiplier(Double(input.scale) / Double(output.scale))
        if n > 0 {
            var shift = 63 - UInt64(n).leadingZeroBitCount
            shift = min(shift, 32)
            shift = min(shift, 31 + Int(m.shift))
            m = QuantizedMultiplier(multiplier: Int32(truncatingIfNeeded: (Int64(m.multiplier) << Int64(max(shift, 0))) / Int64(n)),
                                    shift: m.shift - Int32(shift))
        }
        multiplier = m
    }
}

package enum QuantizedMean {
    package static func run<T: QuantizedElement>(_ p: QuantizedMeanParams, input: UnsafePointer<T>, output: UnsafeMutablePointer<T>) {
        var sums = [Int32](repeating: 0, count: p.outputCount)
        let rank = p.inputShape.count
        let total = p.inputShape.reduce(1, *)
        if total > 0 {
            var coords = [Int](repeating: 0, count: rank)
            for i in 0..<total {
                var o = 0
                for d in 0..<rank where !p.reduced[d] { o = o * p.inputShape[d] + coords[d] }
                sums[o] = sums[o] &+ Int32(input[i])
                var d = rank - 1
                while d >= 0 {
                    coords[d] += 1
                    if coords[d] < p.inputShape[d] { break }
                    coords[d] = 0
                    d -= 1
                }
            }
        }
        let n = Int32(truncatingIfNeeded: p.elementsPerOutput)
        for o in 0..<p.outputCount {
            if total == 0 { output[o] = T(truncatingIfNeeded: 0); continue }
            let shifted = sums[o] &- p.inputZeroPoint &* n
            let v = p.multiplier.apply(shifted) &+ p.outputZeroPoint
            output[o] = T.clamped(v, T.quantizedMin, T.quantizedMax)
        }
    }

    @Sendable package static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.uint8, .int8])
        guard let axes = try c.constantInts(input: 1) else { throw c.invalid("axis must be a constant tensor") }
        guard x.rank <= 8 else { throw c.invalid("rank above 8 is not supported") }
        let out0 = try c.output(0)
        let qi = try c.quantization(of: x, "input"), qo = try c.quantization(of: out0, "output")
        guard let params = QuantizedMeanParams(inputShape: x.shape, axes: axes, input: qi, output: qo) else {
            throw c.invalid("axes \(axes) are out of range for rank \(x.rank)")
        }
        var shape: [Int] = []
        for d in 0..<x.rank {
            if params.reduced[d] { if c.parameters.keepDims { shape.append(1) } } else { shape.append(x.shape[d]) }
        }
        try c.setOutput(0, shape: shape, type: x.type)
        let out = try c.output(0)
        func build<A: QuantizedElement>(_: A.Type) -> any PreparedKernel { QuantizedMeanKernel(int8: A.self == Int8.self, params: params, input: x.index, output: out.index) }
        return try withQuantizedType(x.type, c) { build($0) }
    }
}

final class QuantizedMeanKernel: PreparedKernel {
    /// Element type chosen at prepare (int8 or uint8); eval dispatches to code specialized for it.
    let int8: Bool
    let params: QuantizedMeanParams, input: Int, output: Int
    init(int8: Bool, params: QuantizedMeanParams, input: Int, output: Int) { self.int8 = int8; self.params = params; self.input = input; self.output = output }
    func eval(_ e: EvalContext) throws {
        if int8 { try evalTyped(e, Int8.self) } else { try evalTyped(e, UInt8.self) }
    }

    @inline(__always)
    private func evalTyped<T: QuantizedElement>(_ e: EvalContext, _: T.Type) throws {
        QuantizedMean.run(params, input: e.pointer(input, as: T.self), output: e.pointer(output, as: T.self))
    }
}
