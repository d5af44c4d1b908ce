import DetectorModelFile
import DetectorPlatform

/// Single-precision matrix multiply used by the fast paths of CONV_2D, FULLY_CONNECTED and
/// the hybrid kernels: `C[m, n] = (Σ_k A[m, k] · B[k, n]) + bias[n]`, then a clamp (or SiLU).
///
/// Each output is summed from 0 in increasing k and the bias added last, the same sequence
/// of float operations as the reference kernels' loops, so results are bit-identical to them.
///
/// B is packed once at prepare (`PackedMatrix`): panels of 8 columns, each `k × 8`
/// contiguous, so the micro-kernels stream B with vector loads. K is processed in blocks so
/// a panel slice stays in L1/L2. Two micro-kernels:
/// - few panels (n ≤ 24), 6 × 8 tiles: A is read in place, each A value broadcast as used;
/// - wider B, 5 × 8 tiles: the 5-row strip of A is first copied with every value already broadcast to
///   4 lanes (`[k][row][4]`), so the inner loop is loads, multiplies and adds only (SSE2
///   has no broadcast load; the shuffles and register copies otherwise limit the loop).
///   The copy costs about one broadcast per A value and is shared by all the panels.
/// Those are the baseline entry of the kernel table (`multiplyBaseline`); a wider tier's table
/// entry (`KernelTable.floatGEMM`, the tier modules' `TierFloatGEMM` at AVX2 and AVX-512) runs
/// instead when the matrix was packed for it: 16-column panels, `6 × 16` / `8 × 16` tiles over
/// the whole depth (a last panel of at most 8 columns on `12 × 8` tiles of 8-lane vectors), fused
/// multiply-adds unless reference rounding is kept (`PackedMatrix.fused`).
/// `reference` is the plain triple loop kept as the test oracle.
enum FloatGEMM {
    static let panelWidth = 8
    static let kBlock = 256

    /// B (`k × n`) packed into column panels (zero-padded) for one kernel-table entry:
    /// `kernel.panelWidth` columns each (8 at the baseline, 16 at AVX2 and AVX-512).
    final class PackedMatrix {
        let k: Int, n: Int, panels: Int
        /// Columns per panel.
        let width: Int
        /// The GEMM that reads this packing.
        let kernel: FloatGEMMKernel
        /// Sums use fused multiply-adds (tiers that have them only; off where reference rounding is kept).
        let fused: Bool
        let storage: UnsafeMutablePointer<Float>

        /// Packs `b(k, n)` (any source layout through the accessor) for `tier`'s table.
        convenience init(k: Int, n: Int, tier: InstructionSetTier = .baseline, fused: Bool = false, _ b: (Int, Int) -> Float) {
            self.init(k: k, n: n, table: KernelTable.for(tier), fused: fused, b)
        }

        /// Packs `b(k, n)` for the float GEMM of `table`.
        convenience init(k: Int, n: Int, table: KernelTable, fused: Bool = false, _ b: (Int, Int) -> Float) {
            self.init(k: k, n: n, kernel: table.floatGEMM, fused: fused && table.hasFusedMultiplyAdd, b)
        }

        /// Packs `b(k, n)` for `kernel` (one of a table's float GEMMs; `fused` only where the
        /// tier has fused multiply-adds).
        convenience init(k: Int, n: Int, kernel: FloatGEMMKernel, fused: Bool, _ b: (Int, Int) -> Float) {
            self.init(k: k, n: n, kernel: kernel, fused: fused)
            storage.initialize(repeating: 0, count: max(1, panels * k * width))
            for p in 0..<panels {
                for kk in 0..<k {
                    for j in 0..<width where p * width + j < n {
                        storage[(p * k + kk) * width + j] = b(kk, p * width + j)
                    }
                }
            }
        }

        /// Packs B read from memory, `b(k, n) = source[k · kStride + n · nStride]`: the same
        /// packing as the accessor form, in loops that read the source in order (an accessor
        /// call per weight was most of a float model's prepare).
        convenience init(k: Int, n: Int, table: KernelTable, fused: Bool = false, source: UnsafePointer<Float>,
                         kStride: Int, nStride: Int) {
            self.init(k: k, n: n, table: table, fused: fused)
            let width = self.width, storage = self.storage
            if panels * k == 0 { storage.initialize(to: 0); return }
            for p in 0..<panels {
                let columns = min(width, n - p * width)
                let panel = storage + p * k * width
                if columns < width {
                    // The last panel's padding columns (only they need zeros; the rest is written).
                    for kk in 0..<k { (panel + kk * width + columns).initialize(repeating: 0, count: width - columns) }
                }
                if nStride == 1 {
                    for kk in 0..<k {
                        (panel + kk * width).initialize(from: source + kk * kStride + p * width, count: columns)
                    }
                } else {
                    for j in 0..<columns {
                        let column = source + (p * width + j) * nStride
                        for kk in 0..<k { (panel + kk * width + j).initialize(to: column[kk * kStride]) }
                    }
                }
            }
        }

        /// Storage for `table`'s panels, not yet initialized: each public init writes all of it
        /// (zeroing the whole of it first cost a fifth of a float model's prepare).
        private convenience init(k: Int, n: Int, table: KernelTable, fused: Bool) {
            self.init(k: k, n: n, kernel: table.floatGEMM, fused: fused && table.hasFusedMultiplyAdd)
        }

        private init(k: Int, n: Int, kernel: FloatGEMMKernel, fused: Bool) {
            self.k = k; self.n = n
            self.kernel = kernel
            self.fused = fused
            width = kernel.panelWidth
            panels = (n + width - 1) / width
            let count = max(1, panels * k * width)
            storage = .allocate(capacity: count)
        }

        deinit { storage.deallocate() }
    }

    /// How a row of A lies in memory: `count` runs of `length` values, run s starting
    /// `stride` values after run s - 1 (so A[r, s·length + j] = a[r·lda + s·stride + j]).
    /// A convolution without padding reads its input this way directly, one run per filter
    /// row (`length` = filter width × channels), instead of copying im2col rows.
    struct RowLayout {
        let count: Int, length: Int, stride: Int
    }

    /// `C = A · B (+ bias), clamped`, for rows `rows` of A/C. `a` is row-major with row stride
    /// `lda` (rows laid out as `layout` when given); `c` has row stride `ldc`. K is processed
    /// in blocks, C holding the partial sums. `silu` replaces the clamp by
    /// `FloatVectorMath.silu` (a SiLU folded into a convolution).
    static func multiply(rows: Range<Int>, a: UnsafePointer<Float>, lda: Int, b: PackedMatrix,
                         bias: UnsafePointer<Float>?, c: UnsafeMutablePointer<Float>, ldc: Int,
                         clampMin: Float, clampMax: Float, silu: Bool = false, layout: RowLayout? = nil) {
        let layout = layout.flatMap { $0.count * $0.length == b.k ? $0 : nil } ?? RowLayout(count: 1, length: b.k, stride: 0)
        guard !rows.isEmpty else { return }
        b.kernel.multiply(rows.count, a + rows.lowerBound * lda, lda, layout.count, layout.length, layout.stride,
                          UnsafePointer(b.storage), b.k, b.n, bias, c + rows.lowerBound * ldc, ldc, clampMin, clampMax, silu, b.fused)
    }

    /// `multiply` for the columns of whole panels `columns` of `b` (all its columns when the
    /// range reaches past the last panel): the same values as `multiply` gives them.
    static func multiply(rows: Range<Int>, columns: Range<Int>, a: UnsafePointer<Float>, lda: Int, b: PackedMatrix,
                         bias: UnsafePointer<Float>?, c: UnsafeMutablePointer<Float>, ldc: Int,
                         clampMin: Float, clampMax: Float, silu: Bool = false) {
        let w = b.width, c0 = columns.lowerBound * w, c1 = min(b.n, columns.upperBound * w)
        guard !rows.isEmpty, c0 < c1 else { return }
        b.kernel.multiply(rows.count, a + rows.lowerBound * lda, lda, 1, b.k, 0, UnsafePointer(b.storage) + columns.lowerBound * b.k * w,
                          b.k, c1 - c0, bias.map { $0 + c0 }, c + rows.lowerBound * ldc + c0, ldc, clampMin, clampMax, silu, b.fused)
    }

    /// `multiply` over rows `0..<m` split into `parts` for the worker threads: by rows, or, with
    /// fewer than 8 rows a part (a batch-1 FULLY_CONNECTED, a 1×1 convolution of a 1×1 map), by
    /// whole panels of columns, which one row cannot be split into (MobileNet's 256 → 1001
    /// classifier ran on one thread). Every value is the same for any split and thread count.
    static func parallelMultiply(m: Int, parts: Int, a: UnsafePointer<Float>, lda: Int, b: PackedMatrix,
                                 bias: UnsafePointer<Float>?, c: UnsafeMutablePointer<Float>, ldc: Int,
                                 clampMin: Float, clampMax: Float, silu: Bool = false) {
        if parts > 1 && m < 8 * parts && b.panels >= 2 * parts {
            KernelSupport.parallelChunks(b.panels, parts: parts, align: 2) { columns in
                multiply(rows: 0..<m, columns: columns, a: a, lda: lda, b: b, bias: bias, c: c, ldc: ldc,
                         clampMin: clampMin, clampMax: clampMax, silu: silu)
            }
            return
        }
        // Splits on multiples of 24 rows: whole register tiles of 8 and of 12 rows.
        KernelSupport.parallelChunks(m, parts: parts, align: 24) { rows in
            multiply(rows: rows, a: a, lda: lda, b: b, bias: bias, c: c, ldc: ldc, clampMin: clampMin, clampMax: clampMax, silu: silu)
        }
    }

    /// The baseline table's GEMM (`FloatGEMMKernel.Multiply`) on 8-column panels: rows
    /// `0..<rows` of A (row layout `runCount` runs of `runLength`, `runStride` apart) times B
    /// packed at `packed` (`k × n`). No fused multiply-adds at this tier (`fused` is ignored).
    @Sendable static func multiplyBaseline(rows: Int, a: UnsafePointer<Float>, lda: Int, runCount: Int, runLength: Int,
                                           runStride: Int, packed: UnsafePointer<Float>, k: Int, n: Int,
                                           bias: UnsafePointer<Float>?, c: UnsafeMutablePointer<Float>, ldc: Int,
                                           clampMin: Float, clampMax: Float, silu: Bool, fused: Bool) {
        let layout = RowLayout(count: runCount, length: runLength, stride: runStride)
        let panels = (n + 7) / 8
        let rows = 0..<rows
        if panels >= broadcastPanels {
            withUnsafeTemporaryAllocation(of: SIMD4<Float>.self, capacity: max(1, min(k, kBlock) * broadcastRows)) { strip in
                guard let strip = strip.baseAddress else { return }
                multiplyBroadcast(rows: rows, a: a, lda: lda, layout: layout, packed: packed, k: k, n: n, bias: bias, c: c, ldc: ldc,
                                  clampMin: clampMin, clampMax: clampMax, silu: silu, strip: strip)
            }
            return
        }
        if layout.count > 1 {
            // Runs of A: one pass over the whole depth (the runs are the blocks).
            var m = rows.lowerBound
            while m < rows.upperBound {
                let mr = min(tileRows, rows.upperBound - m)
                for p in 0..<panels {
                    let cols = min(8, n - p * 8)
                    kernel(mr: mr, runs: layout.count, runLength: layout.length, runStride: layout.stride,
                           a: a + m * lda, lda: lda, panel: packed + p * k * 8,
                           c: c + m * ldc + p * 8, ldc: ldc, cols: cols, bias: bias.map { $0 + p * 8 }, accumulate: false,
                           clamp: true, lo: clampMin, hi: clampMax, silu: silu)
                }
                m += mr
            }
            return
        }
        var k0 = 0
        repeat {
            let k1 = min(k, k0 + kBlock)
            let first = k0 == 0, last = k1 == k
            var m = rows.lowerBound
            while m < rows.upperBound {
                let mr = min(tileRows, rows.upperBound - m)
                for p in 0..<panels {
                    let panel = packed + (p * k + k0) * 8
                    let cols = min(8, n - p * 8)
                    kernel(mr: mr, runs: 1, runLength: k1 - k0, runStride: 0, a: a + m * lda + k0, lda: lda, panel: panel,
                           c: c + m * ldc + p * 8, ldc: ldc, cols: cols,
                           bias: last ? bias.map { $0 + p * 8 } : nil, accumulate: !first,
                           clamp: last, lo: clampMin, hi: clampMax, silu: silu && last)
                }
                m += mr
            }
            k0 = k1
        } while k0 < k
    }

    /// From this many panels on, A strips are copied pre-broadcast. Measured against the
    /// direct kernel in one process, alternating: 10–60% faster from 4 panels (32 columns)
    /// on, mixed at 2 panels.
    static let broadcastPanels = 4
    /// Rows of the pre-broadcast micro-tile: 5 × 8 keeps its 10 accumulators, both B vectors
    /// and the A operand and product in the 16 SSE registers (at 6 rows one accumulator was
    /// spilled to the stack, and its store-load chain limited the loop).
    static let broadcastRows = 5

    /// `multiply` with each 5-row strip of A copied to `strip` as `[k][row]` broadcast vectors.
    private static func multiplyBroadcast(rows: Range<Int>, a: UnsafePointer<Float>, lda: Int, layout: RowLayout,
                                          packed: UnsafePointer<Float>, k: Int, n: Int,
                                          bias: UnsafePointer<Float>?, c: UnsafeMutablePointer<Float>, ldc: Int,
                                          clampMin: Float, clampMax: Float, silu: Bool,
                                          strip: UnsafeMutablePointer<SIMD4<Float>>) {
        let panels = (n + 7) / 8
        var k0 = 0
        repeat {
            let k1 = min(k, k0 + kBlock), kc = k1 - k0
            let first = k0 == 0, last = k1 == k
            var m = rows.lowerBound
            while m < rows.upperBound {
                let mr = min(broadcastRows, rows.upperBound - m)
                // Depth k0 ..< k1 of the strip, run by run, one depth step (5 rows) at a time.
                var kk = k0
                while kk < k1 {
                    let run = kk / layout.length, j = kk - run * layout.length
                    let count = min(layout.length - j, k1 - kk)
                    let src = a + (m * lda + run * layout.stride + j)
                    var dst = strip + (kk - k0) &* broadcastRows
                    if mr == broadcastRows {
                        let s1 = src + lda, s2 = src + 2 &* lda, s3 = src + 3 &* lda, s4 = src + 4 &* lda
                        for i in 0..<count {
                            dst[0] = SIMD4(repeating: src[i]); dst[1] = SIMD4(repeating: s1[i])
                            dst[2] = SIMD4(repeating: s2[i]); dst[3] = SIMD4(repeating: s3[i])
                            dst[4] = SIMD4(repeating: s4[i])
                            dst += broadcastRows
                        }
                    } else {
                        for i in 0..<count {
                            for r in 0..<broadcastRows { dst[r] = r < mr ? SIMD4(repeating: src[r &* lda &+ i]) : SIMD4() }
                            dst += broadcastRows
                        }
                    }
                    kk += count
                }
                for p in 0..<panels {
                    let panel = packed + (p * k + k0) * 8
                    let cols = min(8, n - p * 8)
                    broadcastKernel(mr: mr, kc: kc, strip: strip, panel: panel, c: c + m * ldc + p * 8, ldc: ldc, cols: cols,
                                    bias: last ? bias.map { $0 + p * 8 } : nil, accumulate: !first,
                                    clamp: last, lo: clampMin, hi: clampMax, silu: silu && last)
                }
                m += mr
            }
            k0 = k1
        } while k0 < k
    }

    /// One 5×8 tile from a pre-broadcast A strip: 10 `SIMD4` accumulators, each step two B
    /// loads and five A loads. Same summation order as `kernel` (and the reference).
    @inline(__always)
    private static func broadcastKernel(mr: Int, kc: Int, strip: UnsafePointer<SIMD4<Float>>, panel: UnsafePointer<Float>,
                                        c: UnsafeMutablePointer<Float>, ldc: Int, cols: Int,
                                        bias: UnsafePointer<Float>?, accumulate: Bool, clamp: Bool, lo: Float, hi: Float,
                                        silu: Bool) {
        let z = SIMD4<Float>()
        var c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z, c40 = z, c41 = z
        if accumulate {
            @inline(__always) func partial(_ r: Int) -> (SIMD4<Float>, SIMD4<Float>) {
                guard r < mr else { return (z, z) }
                let v = loadPartial(c + r &* ldc, cols)
                return (v.lowHalf, v.highHalf)
            }
            (c00, c01) = partial(0); (c10, c11) = partial(1); (c20, c21) = partial(2)
            (c30, c31) = partial(3); (c40, c41) = partial(4)
        }
        var pa = strip, pb = panel
        var kk = 0
        while kk < kc {
            let b0 = UnsafeRawPointer(pb).loadUnaligned(as: SIMD4<Float>.self)
            let b1 = UnsafeRawPointer(pb + 4).loadUnaligned(as: SIMD4<Float>.self)
            var t = pa[0]
            c00 += t * b0; c01 += t * b1
            t = pa[1]
            c10 += t * b0; c11 += t * b1
            t = pa[2]
            c20 += t * b0; c21 += t * b1
            t = pa[3]
            c30 += t * b0; c31 += t * b1
            t = pa[4]
            c40 += t * b0; c41 += t * b1
            pa += 5; pb += 8
            kk &+= 1
        }
        let vlo = SIMD8<Float>(repeating: lo), vhi = SIMD8<Float>(repeating: hi)
        let doClamp = clamp && (lo > -.greatestFiniteMagnitude || hi < .greatestFiniteMagnitude)
        let biasVector = bias.map { loadPartial($0, cols) }
        @inline(__always) func finish(_ low: SIMD4<Float>, _ high: SIMD4<Float>, _ r: Int) {
            guard r < mr else { return }
            var v = SIMD8(lowHalf: low, highHalf: high)
            if let biasVector { v += biasVector }
            if silu { v = FloatVectorMath.silu(v) } else if doClamp { v = KernelSupport.clamp(v, vlo, vhi) }
            storePartial(v, c + r &* ldc, cols)
        }
        finish(c00, c01, 0); finish(c10, c11, 1); finish(c20, c21, 2)
        finish(c30, c31, 3); finish(c40, c41, 4)
    }

    @inline(__always)
    private static func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }

    /// Loads up to 8 floats (the rest 0); 8 and 4 (a channel count of 4 mod 8) as vectors.
    @inline(__always)
    private static func loadPartial(_ p: UnsafePointer<Float>, _ count: Int) -> SIMD8<Float> {
        if count == 8 { return load(p) }
        if count == 4 {
            let low = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
            return SIMD8(lowHalf: low, highHalf: SIMD4())
        }
        var tmp: (Float, Float, Float, Float, Float, Float, Float, Float) = (0, 0, 0, 0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &tmp) { raw in
            guard let base = raw.baseAddress else { return SIMD8() }
            let f = base.assumingMemoryBound(to: Float.self)
            for j in 0..<count { f[j] = p[j] }
            return base.loadUnaligned(as: SIMD8<Float>.self)
        }
    }

    /// Stores the first `count` lanes.
    @inline(__always)
    private static func storePartial(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>, _ count: Int) {
        if count == 8 { UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self); return }
        if count == 4 { UnsafeMutableRawPointer(p).storeBytes(of: v.lowHalf, as: SIMD4<Float>.self); return }
        withUnsafeBytes(of: v) { raw in
            guard let f = raw.baseAddress?.assumingMemoryBound(to: Float.self) else { return }
            for j in 0..<count { p[j] = f[j] }
        }
    }

    /// Rows per micro-tile: 6 rows × 8 columns keeps 12 SSE accumulators in registers.
    static let tileRows = 6

    /// One micro-tile: up to 6 rows × one 8-column panel, over `runs` runs of A (`RowLayout`).
    @inline(__always)
    private static func kernel(mr: Int, runs: Int, runLength: Int, runStride: Int,
                               a: UnsafePointer<Float>, lda: Int, panel: UnsafePointer<Float>,
                               c: UnsafeMutablePointer<Float>, ldc: Int, cols: Int,
                               bias: UnsafePointer<Float>?, accumulate: Bool, clamp: Bool, lo: Float, hi: Float,
                               silu: Bool) {
        let zero = SIMD8<Float>(repeating: 0)
        var c0 = zero, c1 = zero, c2 = zero, c3 = zero, c4 = zero, c5 = zero
        if accumulate {
            c0 = loadPartial(c, cols)
            if mr > 1 { c1 = loadPartial(c + ldc, cols) }
            if mr > 2 { c2 = loadPartial(c + 2 &* ldc, cols) }
            if mr > 3 { c3 = loadPartial(c + 3 &* ldc, cols) }
            if mr > 4 { c4 = loadPartial(c + 4 &* ldc, cols) }
            if mr > 5 { c5 = loadPartial(c + 5 &* ldc, cols) }
        }
        var pb = panel
        for run in 0..<runs {
            let a = a + run &* runStride
            if mr == 6 {
                let a0 = a, a1 = a + lda, a2 = a + 2 &* lda, a3 = a + 3 &* lda, a4 = a + 4 &* lda, a5 = a + 5 &* lda
                var kk = 0
                while kk < runLength {
                    let bv = load(pb + kk &* 8)
                    c0 += SIMD8(repeating: a0[kk]) * bv
                    c1 += SIMD8(repeating: a1[kk]) * bv
                    c2 += SIMD8(repeating: a2[kk]) * bv
                    c3 += SIMD8(repeating: a3[kk]) * bv
                    c4 += SIMD8(repeating: a4[kk]) * bv
                    c5 += SIMD8(repeating: a5[kk]) * bv
                    kk &+= 1
                }
            } else {
                var kk = 0
                while kk < runLength {
                    let bv = load(pb + kk &* 8)
                    c0 += SIMD8(repeating: a[kk]) * bv
                    if mr > 1 { c1 += SIMD8(repeating: a[lda &+ kk]) * bv }
                    if mr > 2 { c2 += SIMD8(repeating: a[2 &* lda &+ kk]) * bv }
                    if mr > 3 { c3 += SIMD8(repeating: a[3 &* lda &+ kk]) * bv }
                    if mr > 4 { c4 += SIMD8(repeating: a[4 &* lda &+ kk]) * bv }
                    kk &+= 1
                }
            }
            pb += runLength &* 8
        }
        let vlo = SIMD8<Float>(repeating: lo), vhi = SIMD8<Float>(repeating: hi)
        let doClamp = clamp && (lo > -.greatestFiniteMagnitude || hi < .greatestFiniteMagnitude)
        let biasVector = bias.map { loadPartial($0, cols) }
        @inline(__always) func finish(_ v: SIMD8<Float>, _ r: Int) {
            var v = v
            if let biasVector { v += biasVector }
            if silu { v = FloatVectorMath.silu(v) } else if doClamp { v = KernelSupport.clamp(v, vlo, vhi) }
            storePartial(v, c + r &* ldc, cols)
        }
        finish(c0, 0)
        if mr > 1 { finish(c1, 1) }
        if mr > 2 { finish(c2, 2) }
        if mr > 3 { finish(c3, 3) }
        if mr > 4 { finish(c4, 4) }
        if mr > 5 { finish(c5, 5) }
    }

    /// The plain triple loop (test oracle).
    static func reference(m: Int, n: Int, k: Int, a: [Float], b: [Float], bias: [Float]?, clampMin: Float, clampMax: Float) -> [Float] {
        var c = [Float](repeating: 0, count: m * n)
        for i in 0..<m {
            for j in 0..<n {
                var s: Float = 0
                for kk in 0..<k { s += a[i * k + kk] * b[kk * n + j] }
                if let bias { s += bias[j] }
                c[i * n + j] = min(max(s, clampMin), clampMax)
            }
        }
        return c
    }
}
