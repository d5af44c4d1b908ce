import DetectorModelFile
import DetectorPlatform

/// The integer matrix-multiply core of the quantized CONV_2D / FULLY_CONNECTED kernels.
///
/// Computes `C[m][n] = Σ_k A[m][k] · B[n][k]` in `Int32` with wrapping sums, which is exact and
/// order-independent, so every path gives identical results. Operands are `Int16` values that
/// already have their zero points subtracted (`q - zeroPoint` fits in 10 bits for 8-bit tensors,
/// so a sum of two products never overflows the `Int32` lanes of `pmaddwd`).
///
/// The fast path (`multiply`) is the kernel table's entry, the tier modules' `TierIntegerGemm`
/// at every tier: B is packed once per layer (`packB(_:n:k:panelWidth:)` with the entry's
/// `panelWidth`, 16 channels) so that each pair of depth steps holds `[c0k0, c0k1, c1k0, c1k1, …]`;
/// one row's pair `(a[k0], a[k1])` is splatted as a 32-bit lane and one `pmaddwd` (SSE2, on xmm
/// quarters), `vpmaddwd` (AVX2, ymm halves) or `vpdpwssd` (AVX-512 VNNI) adds both products
/// into the channel sums. The sums are the same exact integers at every tier.
package enum IntegerGemm {
    /// A multiple of every tier's register-tile rows (2 at SSE2, 4 at AVX2 and NEON, 8 at AVX-512), for
    /// callers that size row blocks.
    package static let tileRowsMultiple = 8

    /// Output channels per packed panel at `tier` (its kernel table's integer GEMM).
    package static func panelWidth(for tier: InstructionSetTier) -> Int { KernelTable.for(tier).integerGEMM.panelWidth }

    /// The depth the fast path works on: `k` rounded up to a multiple of 8 (four depth pairs per
    /// inner step). A rows must be zero-padded to this length.
    package static func paddedDepth(_ k: Int) -> Int { (k + 7) / 8 * 8 }

    /// Plain reference implementation (the oracle for the fast paths: `Int16` operands for
    /// `multiply`, `UInt8` × `Int8` for `multiplyBytes`), both operands `[rows][k]`.
    package static func reference<A: FixedWidthInteger, B: FixedWidthInteger>(
        a: UnsafeBufferPointer<A>, b: UnsafeBufferPointer<B>, m: Int, n: Int, k: Int, c: UnsafeMutableBufferPointer<Int32>
    ) {
        for i in 0..<m {
            for j in 0..<n {
                var acc: Int32 = 0
                for p in 0..<k { acc = acc &+ Int32(a[i * k + p]) &* Int32(b[j * k + p]) }
                c[i * n + j] = acc
            }
        }
    }

    /// Packs `[n][k]` weights into `ceil(n / w)` panels of `paddedDepth(k) / 2` depth pairs of
    /// `2w` values, `w = panelWidth(for: tier)` (see the type's description); padding channels
    /// and depth steps are 0.
    package static func packB(_ b: UnsafeBufferPointer<Int16>, n: Int, k: Int, tier: InstructionSetTier = .baseline) -> [Int16] {
        packB(b, n: n, k: k, panelWidth: panelWidth(for: tier))
    }

    /// `packB` into panels of `panelWidth` channels (`IntegerGEMMKernel.panelWidth`).
    package static func packB(_ b: UnsafeBufferPointer<Int16>, n: Int, k: Int, panelWidth: Int) -> [Int16] {
        let kp = paddedDepth(k)
        let panels = (n + panelWidth - 1) / panelWidth
        var out: [Int16] = PrefaultedArray.zeros(count: panels * kp * panelWidth)
        guard n > 0, k > 0, b.count >= n * k, let source = b.baseAddress else { return out }
        out.withUnsafeMutableBufferPointer { o in
            guard let packed = o.baseAddress else { return }
            for j in 0..<n {
                let row = source + j * k
                let lane = packed + (j / panelWidth) * kp * panelWidth + (j % panelWidth) * 2
                for q in 0..<k { lane[(q >> 1) * 2 * panelWidth + (q & 1)] = row[q] }
            }
        }
        return out
    }

    /// `c[i * ldc + j] = Σ_q a[i * lda + q] · B[j][q]` for `i < m`, `j < n`, `q < kPadded`, with B
    /// packed by `packB` and every A row zero-padded to `kPadded = paddedDepth(k)`.
    /// Panel-outer order: one panel (`kPadded * 16` bytes) stays in cache while all rows pass.
    /// `tier` must be the one B was packed for.
    package static func multiply(a: UnsafePointer<Int16>, lda: Int, packedB: UnsafePointer<Int16>,
                                m: Int, n: Int, kPadded kp: Int, c: UnsafeMutablePointer<Int32>, ldc: Int,
                                tier: InstructionSetTier = .baseline) {
        multiply(a: a, lda: lda, packedB: packedB, m: m, n: n, kPadded: kp, c: c, ldc: ldc, kernel: KernelTable.for(tier).integerGEMM)
    }

    /// `multiply` on the kernel-table entry `kernel` (the one B was packed for).
    @inline(__always)
    package static func multiply(a: UnsafePointer<Int16>, lda: Int, packedB: UnsafePointer<Int16>,
                                m: Int, n: Int, kPadded kp: Int, c: UnsafeMutablePointer<Int32>, ldc: Int,
                                kernel: IntegerGEMMKernel) {
        kernel.multiply(a, lda, packedB, m, n, kp, c, ldc)
    }

    /// `multiply` with the sums requantized in registers and stored as bytes at
    /// `output[i * ldo + j]` (`requantization`'s arithmetic, the same bytes as `multiply` then
    /// `requantization.apply`); `requantization` must cover whole panels of 16 channels.
    @inline(__always)
    package static func multiplyRequantized<T: QuantizedElement>(a: UnsafePointer<Int16>, lda: Int, packedB: UnsafePointer<Int16>,
                                                                m: Int, n: Int, kPadded kp: Int,
                                                                requantization r: VectorRequantization.Rows,
                                                                output: UnsafeMutablePointer<T>, ldo: Int, kernel: IntegerGEMMKernel) {
        kernel.multiplyRequantized(a, lda, packedB, m, n, kp, r.bias, r.doubledMultiplier, r.rightShift, r.outputZeroPoint,
                                   r.activationMin, r.activationMax, UnsafeMutableRawPointer(output), ldo)
    }
}
