import DetectorModelFile
import DetectorPlatform

/// The byte form of the integer GEMM: `C[m][n] = Σ_k A[m][k] · B[n][k]` with A `UInt8` and B
/// `Int8`, in wrapping `Int32` (exact: |a·b| ≤ 255 · 128), for the kernel tables' byte GEMM
/// (`KernelTable.byteGEMM`: AVX-512 VNNI's `vpdpbusd`, four u8 × s8 products per 32-bit lane,
/// see `KernelsAVX512.TierByteGemm`).
///
/// The quantized convolution feeds it shifted operands and corrects the sums afterwards
/// (`QuantizedByteWeights`). Example: A = [[1, 2, 3]], B = [[4, -5, 6]] gives C = [[12]].
extension IntegerGemm {
    /// Output channels per packed byte panel.
    package static let bytePanelWidth = 16

    /// The depth the byte GEMM works on: `k` rounded up to a multiple of 4 (one `vpdpbusd`
    /// step). A rows must be padded to this length (the padding of B is 0, so A's padding
    /// values do not matter for the products).
    package static func paddedByteDepth(_ k: Int) -> Int { (k + 3) / 4 * 4 }

    /// Packs `[n][k]` weights into `ceil(n / 16)` panels of `paddedByteDepth(k) / 4` steps of
    /// 64 bytes: step s of a panel holds channel l's depths `4s…4s+3` at bytes `4l…4l+3`.
    /// Padding channels and depths are 0.
    package static func packBytes(_ b: UnsafeBufferPointer<Int8>, n: Int, k: Int) -> [Int8] {
        packBytes(UnsafeRawBufferPointer(b), n: n, k: k, flip: 0)
    }

    /// `packBytes` of 1-byte weights with every byte XOR `flip` (0x80 turns uint8 weights `w`
    /// into the `Int8` values `w − 128`). Copies four depths per load and store. All zeros
    /// when `b` holds fewer than `n · k` bytes.
    package static func packBytes(_ b: UnsafeRawBufferPointer, n: Int, k: Int, flip: UInt8) -> [Int8] {
        let kp = paddedByteDepth(k), w = bytePanelWidth, groups = k / 4
        let flip4 = UInt32(flip) &* 0x0101_0101
        var out: [Int8] = PrefaultedArray.zeros(count: (n + w - 1) / w * w * kp)
        guard n > 0, k > 0, b.count >= n * k, let source = b.baseAddress else { return out }
        out.withUnsafeMutableBytes { o in
            guard let panels = o.baseAddress else { return }
            for j in 0..<n {
                let row = source + j * k
                let lane = panels + (j / w) * w * kp + (j % w) * 4
                for g in 0..<groups {
                    lane.storeBytes(of: row.loadUnaligned(fromByteOffset: 4 * g, as: UInt32.self) ^ flip4,
                                    toByteOffset: g * 4 * w, as: UInt32.self)
                }
                for q in groups * 4..<k {
                    lane.storeBytes(of: row.load(fromByteOffset: q, as: UInt8.self) ^ flip,
                                    toByteOffset: groups * 4 * w + q - groups * 4, as: UInt8.self)
                }
            }
        }
        return out
    }

    /// `c[i * ldc + j] = Σ_q A[i][q] · B[j][q] − r_j · Σ_q A[i][q]` for `i < m`, `j < n`,
    /// `q < kPadded`, with B packed by `packBytes`, `kPadded = paddedByteDepth(k)`,
    /// `r = rowWeights` (padded to whole panels of 16; none when nil) and
    /// `A[i][q] = a[i * lda + (q / L) · runStride + q % L]`, `L = kPadded / runs` (a multiple of 4:
    /// a convolution's filter rows read in place; one run is a plain row). `vpdpbusd` at the
    /// AVX-512 tier; a plain loop over the packed layout elsewhere (the convolutions take this
    /// path only where the table has a byte GEMM).
    package static func multiplyBytes(a: UnsafePointer<UInt8>, lda: Int, packedB: UnsafePointer<Int8>,
                                      m: Int, n: Int, kPadded kp: Int, runs: Int = 1, runStride: Int = 0,
                                      rowWeights: UnsafePointer<Int32>? = nil,
                                      c: UnsafeMutablePointer<Int32>, ldc: Int, tier: InstructionSetTier) {
        multiplyBytes(a: a, lda: lda, packedB: packedB, m: m, n: n, kPadded: kp, runs: runs, runStride: runStride,
                      rowWeights: rowWeights, c: c, ldc: ldc, kernel: KernelTable.for(tier).byteGEMM)
    }

    /// `multiplyBytes` on the kernel-table entry `kernel` (nil: the plain loop).
    package static func multiplyBytes(a: UnsafePointer<UInt8>, lda: Int, packedB: UnsafePointer<Int8>,
                                      m: Int, n: Int, kPadded kp: Int, runs: Int = 1, runStride: Int = 0,
                                      rowWeights: UnsafePointer<Int32>? = nil,
                                      c: UnsafeMutablePointer<Int32>, ldc: Int, kernel: ByteGEMMKernel?) {
        let runs = max(1, runs)
        if let kernel {
            kernel.multiply(a, lda, packedB, m, n, kp, runs, runStride, rowWeights, c, ldc)
            return
        }
        let w = bytePanelWidth, length = kp / runs
        @inline(__always) func value(_ i: Int, _ q: Int) -> Int32 { Int32(a[i * lda + (q / length) * runStride + q % length]) }
        for i in 0..<m {
            var rowSum: Int32 = 0
            for q in 0..<kp { rowSum &+= value(i, q) }
            for j in 0..<n {
                let panel = packedB + (j / w) * w * kp + (j % w) * 4
                var acc: Int32 = 0 &- (rowWeights?[j] ?? 0) &* rowSum
                for q in 0..<kp { acc = acc &+ value(i, q) &* Int32(panel[(q / 4) * 4 * w + q % 4]) }
                c[i * ldc + j] = acc
            }
        }
    }

    /// `multiplyBytes` with each row's `n` sums requantized (`requantization`: + bias, × multiplier,
    /// + output zero point, clamp) to 8-bit outputs at `output + i * ldo`: in the byte GEMM's
    /// registers where the kernel has it (`ByteGEMMKernel.multiplyRequantized`), else through
    /// Int32 sums and `requantization.apply`, with the same bytes.
    package static func multiplyBytesRequantized<T: QuantizedElement>(
        a: UnsafePointer<UInt8>, lda: Int, packedB: UnsafePointer<Int8>, m: Int, n: Int, kPadded kp: Int, runs: Int = 1,
        runStride: Int = 0, rowWeights: UnsafePointer<Int32>? = nil, requantization: VectorRequantization.Rows,
        output: UnsafeMutablePointer<T>, ldo: Int, kernel: ByteGEMMKernel?
    ) {
        let r = requantization
        if let kernel {
            kernel.multiplyRequantized(a, lda, packedB, m, n, kp, max(1, runs), runStride, rowWeights, r.bias, r.doubledMultiplier,
                                       r.rightShift, r.outputZeroPoint, r.activationMin, r.activationMax,
                                       UnsafeMutableRawPointer(output), ldo)
            return
        }
        guard m > 0, n > 0 else { return }
        let sums = UnsafeMutablePointer<Int32>.allocate(capacity: m * n)
        defer { sums.deallocate() }
        multiplyBytes(a: a, lda: lda, packedB: packedB, m: m, n: n, kPadded: kp, runs: runs, runStride: runStride,
                      rowWeights: rowWeights, c: sums, ldc: n, kernel: nil)
        for i in 0..<m { r.apply(sums + i * n, count: n, output: output + i * ldo) }
    }
}
