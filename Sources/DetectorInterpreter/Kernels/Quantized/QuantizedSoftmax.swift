import DetectorModelFile
import DetectorPlatform
/// Prepared parameters of the reference quantized SOFTMAX (gemmlowp fixed point, 5 integer
/// bits for the scaled differences, 12 for the sum of exponentials).
package struct QuantizedSoftmaxParams: Sendable, Equatable {
    package var inputMultiplier: Int32
    package var inputLeftShift: Int32
    package var diffMin: Int32

    /// TFLite `PreprocessSoftmaxScaling` + `CalculateInputRadius`.
    package init(beta: Float, inputScale: Float) {
        let scaledDiffIntegerBits = 5
        let real = min(Double(beta) * Double(inputScale) * Double(1 << (31 - scaledDiffIntegerBits)),
                       Double((Int64(1) << 31) - 1))
        let q = QuantizedMultiplier(real)
        inputMultiplier = q.multiplier
        inputLeftShift = q.shift
        let shift = max(0, min(62, Int(q.shift)))
        let radius = Double((1 << scaledDiffIntegerBits) - 1) * Double(Int64(1) << (31 - scaledDiffIntegerBits))
            / Double(Int64(1) << Int64(shift))
        diffMin = -Int32(clamping: Int64(radius.rounded(.down)))
    }
}

/// Quantized SOFTMAX over the last dimension, bit-exact with TFLite's reference kernel.
/// The output quantization is fixed by the runtime: scale 1/256 with zero point 0 (uint8)
/// or -128 (int8).
package enum QuantizedSoftmax {
    package static func run<T: QuantizedElement>(_ p: QuantizedSoftmaxParams, input: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>, outerCount: Int, depth: Int) {
        let outputBits = Int32(T.bitWidth)
        for i in 0..<outerCount {
            let row = input + i * depth
            let out = output + i * depth
            var maxInRow = T.quantizedMin
            for c in 0..<depth { maxInRow = max(maxInRow, Int32(row[c])) }
            var sumOfExps: Int32 = 0
            for c in 0..<depth {
                let diff = Int32(row[c]) - maxInRow
                if diff >= p.diffMin {
                    let rescaled = FixedPoint.multiplyByQuantizedMultiplierGreaterThanOne(diff, p.inputMultiplier, p.inputLeftShift)
                    let e = GemmlowpMath.expOnNegativeValues(rescaled, integerBits: 5)
                    sumOfExps = sumOfExps &+ FixedPoint.saturatingRoundingMultiplyByPOT(e, -accumulationIntegerBits)
                }
            }
            let (scale, bitsOverUnit) = GemmlowpMath.reciprocal(sumOfExps, integerDigits: accumulationIntegerBits)
            for c in 0..<depth {
                let diff = Int32(row[c]) - maxInRow
                if diff >= p.diffMin {
                    let rescaled = FixedPoint.multiplyByQuantizedMultiplierGreaterThanOne(diff, p.inputMultiplier, p.inputLeftShift)
                    let e = GemmlowpMath.expOnNegativeValues(rescaled, integerBits: 5)
                    let unsat = FixedPoint.roundingDivideByPOT(FixedPoint.saturatingRoundingDoublingHighMul(scale, e),
                                                              bitsOverUnit + 31 - outputBits)
                    out[c] = T.clamped(unsat &+ T.quantizedMin, T.quantizedMin, T.quantizedMax)
                } else {
                    out[c] = T(truncatingIfNeeded: T.quantizedMin)
                }
            }
        }
    }
}

/// The per-element exponentials of the reference SOFTMAX tabulated by the row difference:
/// `x - max(row)` of 8-bit values lies in -255...0, so `exp` and its sum term (both functions of
/// the difference alone) are looked up instead of evaluated twice per element. The division by
/// the sum stays per row and per element as in `QuantizedSoftmax.run`, so results are identical.
package struct QuantizedSoftmaxTable: Sendable, Equatable {
    /// `exps[-diff]`: the Q0.31 exponential, or 0 where `diff < diffMin`: a zero exponential
    /// scales to 0, so the element gets the output minimum as the reference's branch gives it.
    package let exps: [Int32]
    /// `terms[-diff]`: the exponential's contribution to the row sum (0 below `diffMin`).
    package let terms: [Int32]

    package init(_ p: QuantizedSoftmaxParams) {
        var exps = [Int32](repeating: 0, count: 256), terms = [Int32](repeating: 0, count: 256)
        for k in 0..<256 {
            let diff = -Int32(k)
            guard diff >= p.diffMin else { continue }
            let rescaled = FixedPoint.multiplyByQuantizedMultiplierGreaterThanOne(diff, p.inputMultiplier, p.inputLeftShift)
            let e = GemmlowpMath.expOnNegativeValues(rescaled, integerBits: 5)
            exps[k] = e
            terms[k] = FixedPoint.saturatingRoundingMultiplyByPOT(e, -QuantizedSoftmax.accumulationIntegerBits)
        }
        self.exps = exps; self.terms = terms
    }
}

extension QuantizedSoftmax {
    /// Integer bits of the sum of exponentials.
    static let accumulationIntegerBits: Int32 = 12

    /// SOFTMAX with the exponentials looked up in `table` (built from the same params); the
    /// same results as `run`.
    package static func run<T: QuantizedElement>(_ table: QuantizedSoftmaxTable, input: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>, outerCount: Int, depth: Int, threads: Int = 1) {
        let outputBits = Int32(T.bitWidth)
        table.exps.withUnsafeBufferPointer { expsBuffer in table.terms.withUnsafeBufferPointer { termsBuffer in
            guard let exps = expsBuffer.baseAddress, let terms = termsBuffer.baseAddress,
                  expsBuffer.count == 256, termsBuffer.count == 256 else { return }
            KernelSupport.parallelChunks(outerCount, parts: outerCount * depth >= 1 << 13 ? threads : 1) { rows in
            for i in rows {
                let row = input + i * depth
                let out = output + i * depth
                var maxInRow = T.quantizedMin
                for c in 0..<depth { maxInRow = max(maxInRow, Int32(row[c])) }
                // maxInRow - row[c] is in 0...255 for 8-bit values.
                var sumOfExps: Int32 = 0
                for c in 0..<depth { sumOfExps = sumOfExps &+ terms[Int(maxInRow &- Int32(row[c]))] }
                let (scale, bitsOverUnit) = GemmlowpMath.reciprocal(sumOfExps, integerDigits: accumulationIntegerBits)
                let shift = bitsOverUnit + 31 - outputBits
                let top = T.quantizedMax &- T.quantizedMin
                if scale >= 0 {
                    // scale, e ≥ 0: the doubling high multiply is (scale · e + 2³⁰) >> 31 (no
                    // saturation, truncation is a shift) and the rounding divide (x + half) >> s,
                    // with RoundingDivideByPOT's exponent clamp; only the upper clamp can bind.
                    let s = Int64(shift < 0 ? 0 : (shift > 31 ? 31 : shift))
                    let half = (Int64(1) << s) >> 1, scale64 = Int64(scale)
                    for c in 0..<depth {
                        let e = Int64(exps[Int(maxInRow &- Int32(row[c]))])
                        let high = (scale64 &* e &+ (1 << 30)) >> 31
                        let unsat = Int32(truncatingIfNeeded: (high &+ half) >> s)
                        out[c] = T(truncatingIfNeeded: (unsat < top ? unsat : top) &+ T.quantizedMin)
                    }
                } else {
                    for c in 0..<depth {
                        let e = exps[Int(maxInRow &- Int32(row[c]))]
                        let unsat = FixedPoint.roundingDivideByPOT(FixedPoint.saturatingRoundingDoublingHighMul(scale, e), shift)
                        out[c] = T.clamped(unsat &+ T.quantizedMin, T.quantizedMin, T.quantizedMax)
                    }
                }
            }
            }
        } }
    }
}

extension QuantizedSoftmax {
    /// `run(table, …)` for rows of at most 16 values on the tier's vector rows (`kernel`), in
    /// blocks of 256 rows: their exponentials and sums, the reciprocal of each sum here (scalar,
    /// as `run`), then the outputs; a row whose reciprocal is negative (none in practice: a
    /// non-empty row's sum is positive) takes `run`'s general loop. The same bytes as `run`.
    package static func runShortRows(_ table: QuantizedSoftmaxTable, kernel: QuantizedSoftmaxRowsKernel, input: UnsafeRawPointer,
                                     output: UnsafeMutableRawPointer, signed: Bool, outerCount: Int, depth: Int, threads: Int = 1) {
        guard depth > 0, depth <= 16, outerCount > 0 else { return }
        let outputBits: Int32 = 8, outputMin: Int32 = signed ? -128 : 0, block = 256
        table.exps.withUnsafeBufferPointer { expsBuffer in
            guard let exps = expsBuffer.baseAddress, expsBuffer.count == 256 else { return }
            KernelSupport.parallelChunks(outerCount, parts: outerCount * depth >= 1 << 13 ? threads : 1) { rows in
                // Per block: 16 exponentials per row, then sums, scales and shifts (19 · 256 Int32).
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: 19 * block) { scratch in
                    guard let e = scratch.baseAddress else { return }
                    let sums = e + 16 * block, scales = sums + block, shifts = scales + block
                    var start = rows.lowerBound
                    while start < rows.upperBound {
                        let count = min(block, rows.upperBound - start)
                        let x = input + start * depth, out = output + start * depth
                        kernel.exponentials(x, count, depth, signed, exps, e, sums)
                        for r in 0..<count {
                            let (scale, bitsOverUnit) = GemmlowpMath.reciprocal(sums[r], integerDigits: accumulationIntegerBits)
                            scales[r] = scale
                            shifts[r] = bitsOverUnit + 31 - outputBits
                        }
                        kernel.outputs(e, count, depth, scales, shifts, outputMin, 255, out)
                        for r in 0..<count where scales[r] < 0 {
                            let rowIn = x + r * depth, rowOut = out + r * depth
                            if signed {
                                run(table, input: rowIn.assumingMemoryBound(to: Int8.self),
                                    output: rowOut.assumingMemoryBound(to: Int8.self), outerCount: 1, depth: depth)
                            } else {
                                run(table, input: rowIn.assumingMemoryBound(to: UInt8.self),
                                    output: rowOut.assumingMemoryBound(to: UInt8.self), outerCount: 1, depth: depth)
                            }
                        }
                        start += count
                    }
                }
            }
        }
    }
}

/// Interpreter kernel for uint8/int8 SOFTMAX (over the last dimension).
final class QuantizedSoftmaxKernel: PreparedKernel {
    /// Element type chosen at prepare (int8 or uint8); eval dispatches to code specialized for it.
    let int8: Bool
    let table: QuantizedSoftmaxTable
    let input: Int, output: Int, outer: Int, depth: Int
    init(int8: Bool, table: QuantizedSoftmaxTable, input: Int, output: Int, outer: Int, depth: Int,
         rowsKernel: QuantizedSoftmaxRowsKernel? = nil) { self.int8 = int8;
        self.table = table; self.input = input; self.output = output; self.outer = outer; self.depth = depth
        self.rowsKernel = depth <= 16 ? rowsKernel : nil
    }
    /// The tier's one-row-per-vector path, for rows of at most 16 values.
    let rowsKernel: QuantizedSoftmaxRowsKernel?

    func eval(_ e: EvalContext) throws {
        if let rowsKernel {
            QuantizedSoftmax.runShortRows(table, kernel: rowsKernel, input: UnsafeRawPointer(e.raw(input)),
                                          output: e.raw(output), signed: int8, outerCount: outer, depth: depth,
                                          threads: e.threadCount)
            return
        }
        if int8 { try evalTyped(e, Int8.self) } else { try evalTyped(e, UInt8.self) }
    }

    @inline(__always)
    private func evalTyped<T: QuantizedElement>(_ e: EvalContext, _: T.Type) throws {
        QuantizedSoftmax.run(table, input: e.pointer(input, as: T.self), output: e.pointer(output, as: T.self),
                             outerCount: outer, depth: depth, threads: e.threadCount)
    }
}

extension QuantizedSoftmax {
    @Sendable package static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.uint8, .int8])
        guard x.rank >= 1, let depth = x.shape.last, depth > 0 else { throw c.invalid("input must have rank >= 1 and a non-empty last dimension") }
        try c.setOutput(0, shape: x.shape, type: x.type)
        let out = try c.output(0)
        let qi = try c.quantization(of: x, "input")
        let table = QuantizedSoftmaxTable(QuantizedSoftmaxParams(beta: c.parameters.beta, inputScale: qi.scale))
        func build<A: QuantizedElement>(_: A.Type) -> any PreparedKernel {
            QuantizedSoftmaxKernel(int8: A.self == Int8.self, table: table, input: x.index, output: out.index, outer: x.elementCount / depth, depth: depth,
                                   rowsKernel: c.kernelTable.quantizedSoftmax)
        }
        return try withQuantizedType(x.type, c) { build($0) }
    }
}
