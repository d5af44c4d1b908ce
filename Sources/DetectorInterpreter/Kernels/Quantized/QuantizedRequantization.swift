import DetectorModelFile
import DetectorPlatform

/// Requantization of Int32 accumulators to 8-bit outputs by the kernel table's vector kernel
/// (`TierRequantization`, 16 channels per step, at every tier), with the exact results of
/// TFLite's `MultiplyByQuantizedMultiplier` (as `RequantizationStep.apply`) followed by
/// `+ outputZeroPoint` and the activation clamp.
///
/// For `x = acc + bias`, a non-negative Q0.31 multiplier `M` and right shift `r` (no left shift):
/// `SaturatingRoundingDoublingHighMul` rounds `x·M / 2^31` half away from zero (ties of negative
/// products one step less: nudge `1 - 2^30`), so its magnitude is `⌊(|x|·M + 2^30 - neg) / 2^31⌋`
/// with the sign of `x`; `RoundingDivideByPOT` also rounds half away from zero, so the magnitude of
/// the result is `⌊(|high| + 2^(r-1)) / 2^r⌋`. Nested floors of integer divisions fold into one:
/// `⌊(|x|·2M + 2^31 - 2·neg + 2^(31+r)) / 2^(32+r)⌋` (the `2^(31+r)` term only when `r > 0`).
/// `|x|·2M` is one unsigned 32×32→64 multiply (`pmuludq`, SSE2), taking the high 32 bits is a
/// shuffle, and only `>> r` remains. Every intermediate fits in `UInt64`: `|x| ≤ 2^31`,
/// `2M < 2^32`, the rounding term `≤ 2^31 + 2^62`.
///
/// Layers with a left shift (real multiplier ≥ 1) are rare; `init` returns nil for them and the
/// kernels keep the scalar `RequantizationStep` path.
package struct VectorRequantization: Sendable {
    /// Channel count rounded up to a multiple of 16; the per-channel arrays have this length
    /// (padding channels requantize 0 with multiplier 0).
    package let paddedCount: Int
    package let bias: [Int32]
    /// `2 · multiplier` per channel.
    package let doubledMultiplier: [UInt32]
    package let rightShift: [UInt32]
    package let outputZeroPoint: Int32
    package let activationMin: Int32, activationMax: Int32
    /// The kernel table's requantization, which `Rows.apply` runs.
    package let kernel: RequantizationKernel

    package init?(multipliers: [QuantizedMultiplier], bias: [Int32], outputZeroPoint: Int32,
                 activationMin: Int32, activationMax: Int32, tier: InstructionSetTier = .baseline) {
        guard multipliers.count == bias.count,
              multipliers.allSatisfy({ $0.shift <= 0 && $0.multiplier >= 0 }) else { return nil }
        let n = multipliers.count, padded = (n + 15) / 16 * 16
        var b = [Int32](repeating: 0, count: padded), m2 = [UInt32](repeating: 0, count: padded)
        var shifts = [UInt32](repeating: 0, count: padded)
        for c in 0..<n {
            let r = UInt32(min(-multipliers[c].shift, 31))
            b[c] = bias[c]
            m2[c] = UInt32(multipliers[c].multiplier) << 1
            shifts[c] = r
        }
        paddedCount = padded
        self.bias = b
        doubledMultiplier = m2
        rightShift = shifts
        self.outputZeroPoint = outputZeroPoint
        self.activationMin = activationMin
        self.activationMax = activationMax
        kernel = KernelTable.for(tier).requantization
    }

    /// Calls `body` with a pointer view of the per-channel arrays, for the row loops of a kernel
    /// run (so they neither copy nor retain the arrays per row); nil when `requantization` is nil.
    package static func withRows<R>(_ requantization: VectorRequantization?, _ body: (Rows?) -> R) -> R {
        guard let r = requantization else { return body(nil) }
        return r.bias.withUnsafeBufferPointer { bias in
            r.doubledMultiplier.withUnsafeBufferPointer { mul in
                r.rightShift.withUnsafeBufferPointer { shift in
                    guard let b = bias.baseAddress, let m = mul.baseAddress, let sh = shift.baseAddress else { return body(nil) }
                    return body(Rows(bias: b, doubledMultiplier: m, rightShift: sh, outputZeroPoint: r.outputZeroPoint,
                                     activationMin: r.activationMin, activationMax: r.activationMax, kernel: r.kernel))
                }
            }
        }
    }

    /// `VectorRequantization`'s arrays as plain pointers, valid inside `withRows` only.
    package struct Rows {
        package let bias: UnsafePointer<Int32>
        let doubledMultiplier: UnsafePointer<UInt32>
        package let rightShift: UnsafePointer<UInt32>
        let outputZeroPoint: Int32, activationMin: Int32, activationMax: Int32
        package let kernel: RequantizationKernel

        /// Requantizes `count` accumulators (`count ≤` the channel count) of one output row.
        @inline(__always)
        package func apply<T: QuantizedElement>(_ acc: UnsafePointer<Int32>, count: Int, output: UnsafeMutablePointer<T>) {
            apply(acc, rows: 1, count: count, output: output)
        }

        /// `apply` for `rows` rows of `count` sums, stored one after another (sums and outputs);
        /// both 8-bit element types store the low byte of the clamped value.
        @inline(__always)
        package func apply<T: QuantizedElement>(_ acc: UnsafePointer<Int32>, rows: Int, count: Int, output: UnsafeMutablePointer<T>) {
            kernel.apply(acc, rows, count, bias, doubledMultiplier, rightShift, outputZeroPoint, activationMin, activationMax,
                         UnsafeMutableRawPointer(output))
        }
    }
}

extension RequantizationStep {
    /// Scalar requantization of one output pixel's `count` Int32 sums: + bias, × step, +
    /// output zero point, clamp (the layers without a `VectorRequantization`).
    static func requantizeRow<T: QuantizedElement>(_ acc: UnsafePointer<Int32>, count: Int, bias: [Int32],
                                                   steps: [RequantizationStep], outputZeroPoint: Int32,
                                                   activationMin: Int32, activationMax: Int32, into output: UnsafeMutablePointer<T>) {
        bias.withUnsafeBufferPointer { bias in
            steps.withUnsafeBufferPointer { mul in
                for c in 0..<count {
                    let v = mul[c].apply(acc[c] &+ bias[c]) &+ outputZeroPoint
                    output[c] = T.clamped(v, activationMin, activationMax)
                }
            }
        }
    }
}
