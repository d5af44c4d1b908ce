import DetectorModelFile
import DetectorPlatform

/// The integer matrix-multiply core of the quantized CONV_2D / FULLY_CONNECTED kernels.
///
/// Computes `C[m][n] = Σ_k A[m][k] · B[n][k]` in `Int32` with wrapping sums, which is exact and
/// order-independent, so every path gives identical results. Operands are `Int16` values that
/// already have their zero points subtracted (`q - zeroPoint` fits in 10 bits for 8-bit tensors,
/// so a sum of two products never overflows the `Int32` lanes of `pmaddwd`).
///
/// The fast path (`multiply`) is the SSE2 "c2" scheme: B is packed once per layer (`packB`) into
/// panels of 8 output channels where each pair of depth steps holds
/// `[c0k0, c0k1, c1k0, c1k1, c2k0, c2k1, c3k0, c3k1]` and the same for channels 4...7; one row's
/// pair `(a[k0], a[k1])` is splatted as a 32-bit lane and `multiplyAddAdjacentPairs` (one
/// `pmaddwd`) adds both products into 4 channel accumulators at once.
///
/// That is the baseline entry of the kernel table (`multiplyBaseline`); at the AVX2 and
/// AVX-512 tiers the table's entry is the tier modules' `TierIntegerGemm`, on panels of 16
/// channels (`packB(_:n:k:panelWidth:)` with the entry's `panelWidth`): `vpmaddwd` on ymm halves, or one `vpdpwssd` (VNNI)
/// per depth pair and row. The sums are the same exact integers at every tier.
package enum IntegerGemm {
    /// Output channels per packed panel.
    package static let panelWidth = 8
    /// Rows of A per register tile (4 rows × 8 channels = 8 accumulators of 4 lanes).
    package static let tileRows = 4
    /// A multiple of every tier's register-tile rows (4 at SSE2 and AVX2, 8 at AVX-512), for
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
        var out = [Int16](repeating: 0, count: panels * kp * panelWidth)
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

    /// 8 Int16 products summed pairwise into 4 Int32 lanes; compiles to one `pmaddwd`.
    @inline(__always)
    static func multiplyAddAdjacentPairs(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD4<Int32> {
        let t = widen(a) &* widen(b)
        return t.evenHalf &+ t.oddHalf
    }

    /// Sign-extends 8 lanes. Written lane by lane (LLVM folds it into one vector extension)
    /// rather than with the generic `SIMD8(truncatingIfNeeded:)`, which the optimizer sometimes
    /// leaves as an out-of-line call in large functions, and then no `pmaddwd` is formed.
    @inline(__always)
    package static func widen(_ a: SIMD8<Int16>) -> SIMD8<Int32> {
        SIMD8<Int32>(Int32(a[0]), Int32(a[1]), Int32(a[2]), Int32(a[3]), Int32(a[4]), Int32(a[5]), Int32(a[6]), Int32(a[7]))
    }

    /// Lane `lane` of `v` (one depth pair of a row) repeated over all four 32-bit lanes.
    @inline(__always)
    static func splatPair(_ v: SIMD4<Int32>, _ lane: Int) -> SIMD8<Int16> {
        unsafeBitCast(SIMD4<Int32>(repeating: v[lane]), to: SIMD8<Int16>.self)
    }

    /// The 4 × 8 accumulators of one register tile.
    struct Accumulators {
        var r0a = SIMD4<Int32>(), r0b = SIMD4<Int32>(), r1a = SIMD4<Int32>(), r1b = SIMD4<Int32>()
        var r2a = SIMD4<Int32>(), r2b = SIMD4<Int32>(), r3a = SIMD4<Int32>(), r3b = SIMD4<Int32>()

        /// Adds depth pair `lane` of the four rows times the panel's pair at `w` (16 values).
        @inline(__always)
        mutating func add(_ x0: SIMD4<Int32>, _ x1: SIMD4<Int32>, _ x2: SIMD4<Int32>, _ x3: SIMD4<Int32>,
                          lane: Int, w: UnsafePointer<Int16>) {
            let wa = UnsafeRawPointer(w).loadUnaligned(as: SIMD8<Int16>.self)
            let wb = UnsafeRawPointer(w + 8).loadUnaligned(as: SIMD8<Int16>.self)
            let s0 = splatPair(x0, lane)
            r0a &+= multiplyAddAdjacentPairs(s0, wa); r0b &+= multiplyAddAdjacentPairs(s0, wb)
            let s1 = splatPair(x1, lane)
            r1a &+= multiplyAddAdjacentPairs(s1, wa); r1b &+= multiplyAddAdjacentPairs(s1, wb)
            let s2 = splatPair(x2, lane)
            r2a &+= multiplyAddAdjacentPairs(s2, wa); r2b &+= multiplyAddAdjacentPairs(s2, wb)
            let s3 = splatPair(x3, lane)
            r3a &+= multiplyAddAdjacentPairs(s3, wa); r3b &+= multiplyAddAdjacentPairs(s3, wb)
        }
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

    /// The baseline table's integer GEMM (`IntegerGEMMKernel.Multiply`): 4 × 8 register tiles
    /// on panels of 8 channels.
    @Sendable static func multiplyBaseline(a: UnsafePointer<Int16>, lda: Int, packedB: UnsafePointer<Int16>,
                                           m: Int, n: Int, kPadded kp: Int, c: UnsafeMutablePointer<Int32>, ldc: Int) {
        let panels = (n + panelWidth - 1) / panelWidth
        for panel in 0..<panels {
            let j0 = panel * panelWidth
            var i = 0
            while i < m {
                registerTile(a: a + i * lda, lda: lda, rows: min(tileRows, m - i), panel: packedB + j0 * kp,
                             kPadded: kp, c: c + i * ldc + j0, ldc: ldc, width: min(panelWidth, n - j0))
                i += tileRows
            }
        }
    }

    /// One 4-row × 8-channel tile over the whole depth: `rows` rows of A from `a`, one B panel,
    /// the first `width` channels stored. Rows beyond `rows` re-read the first row and are not
    /// stored.
    @inline(never)
    static func registerTile(a a0: UnsafePointer<Int16>, lda: Int, rows: Int, panel: UnsafePointer<Int16>,
                             kPadded kp: Int, c out: UnsafeMutablePointer<Int32>, ldc: Int, width: Int) {
        let a1 = rows > 1 ? a0 + lda : a0, a2 = rows > 2 ? a0 + 2 * lda : a0, a3 = rows > 3 ? a0 + 3 * lda : a0
        var acc = Accumulators()
        var q = 0
        var w = panel
        while q < kp {
            let x0 = UnsafeRawPointer(a0 + q).loadUnaligned(as: SIMD4<Int32>.self)
            let x1 = UnsafeRawPointer(a1 + q).loadUnaligned(as: SIMD4<Int32>.self)
            let x2 = UnsafeRawPointer(a2 + q).loadUnaligned(as: SIMD4<Int32>.self)
            let x3 = UnsafeRawPointer(a3 + q).loadUnaligned(as: SIMD4<Int32>.self)
            acc.add(x0, x1, x2, x3, lane: 0, w: w)
            acc.add(x0, x1, x2, x3, lane: 1, w: w + 16)
            acc.add(x0, x1, x2, x3, lane: 2, w: w + 32)
            acc.add(x0, x1, x2, x3, lane: 3, w: w + 48)
            q &+= 8
            w += 64
        }
        store(acc.r0a, acc.r0b, to: out, width: width)
        if rows > 1 { store(acc.r1a, acc.r1b, to: out + ldc, width: width) }
        if rows > 2 { store(acc.r2a, acc.r2b, to: out + 2 * ldc, width: width) }
        if rows > 3 { store(acc.r3a, acc.r3b, to: out + 3 * ldc, width: width) }
    }

    /// Stores the first `width` of the 8 channel sums `lo ++ hi`.
    @inline(__always)
    static func store(_ lo: SIMD4<Int32>, _ hi: SIMD4<Int32>, to out: UnsafeMutablePointer<Int32>, width: Int) {
        if width == panelWidth {
            UnsafeMutableRawPointer(out).storeBytes(of: lo, as: SIMD4<Int32>.self)
            UnsafeMutableRawPointer(out + 4).storeBytes(of: hi, as: SIMD4<Int32>.self)
        } else {
            for l in 0..<width { out[l] = l < 4 ? lo[l] : hi[l - 4] }
        }
    }
}
