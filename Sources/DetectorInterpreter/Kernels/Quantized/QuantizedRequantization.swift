import DetectorModelFile
import DetectorPlatform

/// Requantization of Int32 accumulators to 8-bit outputs, four channels per SIMD step, with the
/// exact results of TFLite's `MultiplyByQuantizedMultiplier` (as `RequantizationStep.apply`)
/// followed by `+ outputZeroPoint` and the activation clamp.
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
/// kernels keep the scalar `RequantizationStep` path. Where the kernel table has a requantization
/// entry (AVX2, AVX-512: `TierRequantization` in the tier modules) the same arithmetic runs 16
/// channels per step.
package struct VectorRequantization: Sendable {
    /// Channel count rounded up to a multiple of 16; the per-channel arrays have this length
    /// (padding channels requantize 0 with multiplier 0).
    package let paddedCount: Int
    package let bias: [Int32]
    /// `2 · multiplier` per channel.
    package let doubledMultiplier: [UInt32]
    /// `2^31 + (r > 0 ? 2^(31+r) : 0)` per channel, in lane order 0, 2, 1, 3 of each group of
    /// four (the even and odd halves of the 64-bit multiplies).
    package let rounding: [UInt64]
    package let rightShift: [UInt32]
    /// The right shift when every channel has the same one (a single-count SIMD shift).
    package let uniformShift: UInt32?
    package let outputZeroPoint: Int32
    package let activationMin: Int32, activationMax: Int32
    /// The kernel table's requantization `Rows.apply` runs (nil: the 4-lane loop here).
    package let kernel: RequantizationKernel?

    package init?(multipliers: [QuantizedMultiplier], bias: [Int32], outputZeroPoint: Int32,
                 activationMin: Int32, activationMax: Int32, tier: InstructionSetTier = .baseline) {
        guard multipliers.count == bias.count,
              multipliers.allSatisfy({ $0.shift <= 0 && $0.multiplier >= 0 }) else { return nil }
        let n = multipliers.count, padded = (n + 15) / 16 * 16
        var b = [Int32](repeating: 0, count: padded), m2 = [UInt32](repeating: 0, count: padded)
        var round = [UInt64](repeating: 1 << 31, count: padded), shifts = [UInt32](repeating: 0, count: padded)
        for c in 0..<n {
            let r = UInt32(min(-multipliers[c].shift, 31))
            b[c] = bias[c]
            m2[c] = UInt32(multipliers[c].multiplier) << 1
            shifts[c] = r
            let lane = c % 4, slot = c - lane + (lane % 2) * 2 + lane / 2
            round[slot] = (1 << 31) + (r > 0 ? UInt64(1) << (31 + UInt64(r)) : 0)
        }
        paddedCount = padded
        self.bias = b
        doubledMultiplier = m2
        rounding = round
        rightShift = shifts
        uniformShift = Set(shifts.prefix(n)).count == 1 ? shifts[0] : nil
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
                r.rounding.withUnsafeBufferPointer { round in
                    r.rightShift.withUnsafeBufferPointer { shift in
                        guard let b = bias.baseAddress, let m = mul.baseAddress, let rd = round.baseAddress,
                              let sh = shift.baseAddress else { return body(nil) }
                        return body(Rows(bias: b, doubledMultiplier: m, rounding: rd, rightShift: sh,
                                         uniformShift: r.uniformShift, outputZeroPoint: r.outputZeroPoint,
                                         activationMin: r.activationMin, activationMax: r.activationMax, kernel: r.kernel))
                    }
                }
            }
        }
    }

    /// `VectorRequantization`'s arrays as plain pointers, valid inside `withRows` only.
    package struct Rows {
        package let bias: UnsafePointer<Int32>
        let doubledMultiplier: UnsafePointer<UInt32>
        let rounding: UnsafePointer<UInt64>
        package let rightShift: UnsafePointer<UInt32>
        let uniformShift: UInt32?
        let outputZeroPoint: Int32, activationMin: Int32, activationMax: Int32
        package let kernel: RequantizationKernel?

        /// Requantizes `count` accumulators (`count ≤` the channel count) of one output row.
        @inline(__always)
        package func apply<T: QuantizedElement>(_ acc: UnsafePointer<Int32>, count: Int, output: UnsafeMutablePointer<T>) {
            apply(acc, rows: 1, count: count, output: output)
        }

        /// `apply` for `rows` rows of `count` sums, stored one after another (sums and outputs).
        @inline(__always)
        package func apply<T: QuantizedElement>(_ acc: UnsafePointer<Int32>, rows: Int, count: Int, output: UnsafeMutablePointer<T>) {
            let out = UnsafeMutableRawPointer(output)
            if let kernel {
                kernel.apply(acc, rows, count, bias, doubledMultiplier, rightShift, outputZeroPoint, activationMin, activationMax, out)
                return
            }
            for r in 0..<rows {
                let a = acc + r * count, o = out + r * count
                // Two loops so the uniform case shifts all lanes by one count.
                if let uniform = uniformShift {
                    let shift = SIMD4<UInt32>(repeating: uniform)
                    apply(a, count: count, output: o) { _ in shift }
                } else {
                    let shifts = rightShift
                    apply(a, count: count, output: o) { c in UnsafeRawPointer(shifts + c).loadUnaligned(as: SIMD4<UInt32>.self) }
                }
            }
        }

        /// The loop of `apply` with the right shifts of the four channels at `c` from `shiftAt(c)`.
        /// Both 8-bit element types store the low byte of the clamped value.
        @inline(__always)
        private func apply(_ acc: UnsafePointer<Int32>, count: Int, output: UnsafeMutableRawPointer,
                           shiftAt: (Int) -> SIMD4<UInt32>) {
            let bias = self.bias, mul = doubledMultiplier, round = rounding
            let zp = SIMD4<Int32>(repeating: outputZeroPoint)
            let lo = SIMD4<Int32>(repeating: activationMin), hi = SIMD4<Int32>(repeating: activationMax)
            @inline(__always) func group(_ c: Int, _ x: SIMD4<Int32>) -> SIMD4<UInt8> {
                let q = VectorRequantization.requantize(
                    x &+ UnsafeRawPointer(bias + c).loadUnaligned(as: SIMD4<Int32>.self),
                    doubledMultiplier: UnsafeRawPointer(mul + c).loadUnaligned(as: SIMD4<UInt32>.self),
                    roundingEven: UnsafeRawPointer(round + c).loadUnaligned(as: SIMD2<UInt64>.self),
                    roundingOdd: UnsafeRawPointer(round + c + 2).loadUnaligned(as: SIMD2<UInt64>.self),
                    shift: shiftAt(c))
                return SIMD4<UInt8>(truncatingIfNeeded: (q &+ zp).clamped(lowerBound: lo, upperBound: hi))
            }
            var c = 0
            while c &+ 4 <= count {
                let v = group(c, UnsafeRawPointer(acc + c).loadUnaligned(as: SIMD4<Int32>.self))
                output.storeBytes(of: v, toByteOffset: c, as: SIMD4<UInt8>.self)
                c &+= 4
            }
            if c < count {
                var x = SIMD4<Int32>()
                for l in 0..<(count - c) { x[l] = acc[c + l] }
                let v = group(c, x)
                for l in 0..<(count - c) { output.storeBytes(of: v[l], toByteOffset: c + l, as: UInt8.self) }
            }
        }
    }

    /// The folded arithmetic of the type's description for one group of four lanes
    /// (`x` already includes the bias).
    @inline(__always)
    static func requantize(_ x: SIMD4<Int32>, doubledMultiplier: SIMD4<UInt32>, roundingEven: SIMD2<UInt64>,
                           roundingOdd: SIMD2<UInt64>, shift: SIMD4<UInt32>) -> SIMD4<Int32> {
        let sign = x &>> 31
        let magnitude = unsafeBitCast((x ^ sign) &- sign, to: SIMD2<UInt64>.self)
        let m = unsafeBitCast(doubledMultiplier, to: SIMD2<UInt64>.self)
        let sign64 = unsafeBitCast(sign, to: SIMD2<UInt64>.self)
        let low = SIMD2<UInt64>(repeating: 0xFFFF_FFFF), two = SIMD2<UInt64>(repeating: 2)
        // Lanes 0 and 2 in the low halves, lanes 1 and 3 in the high halves: pmuludq each.
        let even = (magnitude & low) &* (m & low) &+ roundingEven &- (sign64 & two)
        let odd = (magnitude &>> 32) &* (m &>> 32) &+ roundingOdd &- ((sign64 &>> 32) & two)
        let high = unsafeBitCast((even &>> 32) | (odd & ~low), to: SIMD4<UInt32>.self)
        let result = unsafeBitCast(high &>> shift, to: SIMD4<Int32>.self)
        return (result ^ sign) &- sign
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
