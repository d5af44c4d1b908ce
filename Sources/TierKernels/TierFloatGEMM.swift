/// The float GEMM of the wide instruction-set tiers (AVX2 + FMA, AVX-512): the micro-kernels
/// behind `FloatGEMM.multiply` when the interpreter runs at one of those tiers.
///
/// This file is compiled once per tier module (`KernelsAVX2`, `KernelsAVX512`), each with its
/// own `-march`; `Tier.swift` of the module sets the register tile (`Tier.floatTileRows`).
/// A panel of B is 16 columns (`SIMD16<Float>`: two ymm registers at AVX2, one zmm at
/// AVX-512), so the tile is `floatTileRows × 16` accumulators over the whole depth, stored
/// once with the bias and activation (or SiLU) applied. A last panel of at most 8 columns
/// (n = 8, 21, 24, 40, …) runs on a 12 × 8 tile of 8-lane vectors instead, whose multiply-adds
/// carry no padding lanes (measured on the AMD EPYC Zen 4: n = 8 1.4× faster at AVX-512, 2.4×
/// at AVX2; n = 24 1.2× / 1.4×). Tried and not kept: two panels per AVX-512 tile (8 × 32, 0.625
/// loads per multiply-add): no faster on Zen 4, up to 7% slower at depths of 32.
///
/// Every output is summed over k in increasing order from 0, bias last: with `fused` false
/// (`acc + a·b`) the results are bit-identical to the reference loops, with `fused` true
/// (`vfmadd`) each product is added unrounded, as XNNPACK does.
package enum TierFloatGEMM {
    /// Columns of B per packed panel: `k × 16` floats, zero-padded past `n`.
    package static let panelWidth = 16

    /// `C[m, 0..<n] = Σ_k A[m, k] · B[k, n] + bias[n]` for `m < rows`, then clamped to
    /// `clampMin...clampMax`, or `silu` (x·σ(x)) instead of the clamp.
    ///
    /// A row `m` is `runCount` runs of `runLength` values at `a + m·lda + s·runStride`
    /// (`runCount · runLength = k`; one run for a plain row-major A). `packed` holds
    /// `ceil(n / 16)` panels of `k × 16`. `c` has row stride `ldc`.
    package static func multiply(rows: Int, a: UnsafePointer<Float>, lda: Int,
                                 runCount: Int, runLength: Int, runStride: Int,
                                 packed: UnsafePointer<Float>, k: Int, n: Int, bias: UnsafePointer<Float>?,
                                 c: UnsafeMutablePointer<Float>, ldc: Int,
                                 clampMin: Float, clampMax: Float, silu: Bool, fused: Bool) {
        // No structs here: a type of this module gets value-witness helpers (`__swift_memcpy…`)
        // that the linker would share with other modules compiled for other instruction sets.
        let mode = silu ? 2 : (clampMin > -.greatestFiniteMagnitude || clampMax < .greatestFiniteMagnitude) ? 1 : 0
        if fused {
            run(Fused.self, rows: rows, a: a, lda: lda, runCount: runCount, runLength: runLength, runStride: runStride, k: k,
                packed: packed, n: n, bias: bias, c: c, ldc: ldc, lo: clampMin, hi: clampMax, mode: mode)
        } else {
            run(Separate.self, rows: rows, a: a, lda: lda, runCount: runCount, runLength: runLength, runStride: runStride, k: k,
                packed: packed, n: n, bias: bias, c: c, ldc: ldc, lo: clampMin, hi: clampMax, mode: mode)
        }
    }

    /// `multiply` on a 12 × 32 register tile (two panels: 24 zmm accumulators, 2 loads of B
    /// and 12 broadcasts per 24 multiply-adds) where `multiply` uses 8 × 16 (9 loads per 8).
    /// For CPUs whose two 512-bit FMA pipes leave the loads the limit: on the Intel Xeon
    /// (Emerald Rapids) a 1×1 convolution of 33×33×512 → 256 ran at 56 GFLOP/s on 8 × 16 and
    /// 90 on 12 × 32 (8 × 32: 81, 14 × 32: 94, 6 × 64: 93). The AMD EPYC (Zen 4), which splits
    /// 512-bit operations in two, keeps 8 × 16 (8 × 32 was no faster there). A panel left over
    /// from the pairs runs on 12 × 16; every value's sum is the same as `multiply`'s.
    package static func multiplyPaired(rows: Int, a: UnsafePointer<Float>, lda: Int,
                                       runCount: Int, runLength: Int, runStride: Int,
                                       packed: UnsafePointer<Float>, k: Int, n: Int, bias: UnsafePointer<Float>?,
                                       c: UnsafeMutablePointer<Float>, ldc: Int,
                                       clampMin: Float, clampMax: Float, silu: Bool, fused: Bool) {
        let mode = silu ? 2 : (clampMin > -.greatestFiniteMagnitude || clampMax < .greatestFiniteMagnitude) ? 1 : 0
        if fused {
            run(Fused.self, rows: rows, a: a, lda: lda, runCount: runCount, runLength: runLength, runStride: runStride, k: k,
                packed: packed, n: n, bias: bias, c: c, ldc: ldc, lo: clampMin, hi: clampMax, mode: mode, paired: true)
        } else {
            run(Separate.self, rows: rows, a: a, lda: lda, runCount: runCount, runLength: runLength, runStride: runStride, k: k,
                packed: packed, n: n, bias: bias, c: c, ldc: ldc, lo: clampMin, hi: clampMax, mode: mode, paired: true)
        }
    }

    /// What happens to a finished sum: bias, then (`mode`) nothing (0), the clamp (1) or the SiLU (2).
    @inline(__always)
    static func finish(_ v: SIMD16<Float>, bias: SIMD16<Float>, lo: Float, hi: Float, mode: Int) -> SIMD16<Float> {
        let v = v + bias
        if mode == 2 { return LaneMath.silu(v) }
        if mode == 1 { return TierMath.clamp(v, lo: SIMD16(repeating: lo), hi: SIMD16(repeating: hi)) }
        return v
    }

    @inline(__always)
    private static func run<M: MultiplyAdd>(_: M.Type, rows: Int, a: UnsafePointer<Float>, lda: Int,
                                            runCount: Int, runLength: Int, runStride: Int, k: Int,
                                            packed: UnsafePointer<Float>, n: Int, bias: UnsafePointer<Float>?,
                                            c: UnsafeMutablePointer<Float>, ldc: Int, lo: Float, hi: Float, mode: Int,
                                            paired: Bool = false) {
        let panels = (n + 15) / 16
        // A last panel of at most 8 columns runs on the narrow tile (8-lane vectors, more rows):
        // with 16 lanes half of every multiply-add would be padding. On the paired tile it joins
        // the panel before it when that one would be left alone (n = 24, 56, 88): 12 × 32 with a
        // quarter of its lanes padding beat 12 × 16 plus 12 × 8 there (Intel Xeon, face models).
        let narrow = n % 16 != 0 && n % 16 <= 8 && !(paired && panels % 2 == 0)
        let wide = narrow ? panels - 1 : panels
        let tileRows = paired ? 12 : Tier.floatTileRows
        var m = 0
        while m < rows {
            let mr = min(tileRows, rows - m)
            if mr <= 4 && wide >= 2 {
                // A short tile (a batch-1 FULLY_CONNECTED, a last tile of one to four rows) one
                // row at a time over four panels, so every multiply-add is a useful one; each
                // value's sum runs over k in the same order as in the tiles, so any split of
                // the rows gives the same results.
                for r in m..<(m + mr) {
                    rowPanels(M.self, a: a + r * lda, runCount: runCount, runLength: runLength, runStride: runStride,
                              packed: packed, k: k, panels: wide, n: n, bias: bias, c: c + r * ldc, lo: lo, hi: hi, mode: mode)
                }
                m += mr
                continue
            }
            var p = 0
            if paired {
                while p < wide {
                    let pair = p + 1 < wide
                    let cols = min(pair ? 32 : 16, n - p * 16)
                    let biasLow = bias.map { TierMath.load($0 + p * 16, count: min(16, cols)) } ?? SIMD16()
                    let biasHigh = pair ? bias.map { TierMath.load($0 + p * 16 + 16, count: cols - 16) } ?? SIMD16() : SIMD16()
                    tile12(M.self, pair: pair, mr: mr, a: a + m * lda, lda: lda, runCount: runCount, runLength: runLength,
                           runStride: runStride, panel: packed + p * k * 16, k: k, c: c + m * ldc + p * 16, ldc: ldc,
                           cols: cols, bias: biasLow, biasHigh: biasHigh, lo: lo, hi: hi, mode: mode)
                    p += pair ? 2 : 1
                }
                m += mr
                continue
            }
            while p < wide {
                let cols = min(16, n - p * 16)
                let biasVector = bias.map { TierMath.load($0 + p * 16, count: cols) } ?? SIMD16()
                if tileRows == 8 {
                    tile8(M.self, mr: mr, a: a + m * lda, lda: lda, runCount: runCount, runLength: runLength, runStride: runStride,
                          panel: packed + p * k * 16, c: c + m * ldc + p * 16, ldc: ldc, cols: cols, bias: biasVector,
                          lo: lo, hi: hi, mode: mode)
                } else {
                    tile6(M.self, mr: mr, a: a + m * lda, lda: lda, runCount: runCount, runLength: runLength, runStride: runStride,
                          panel: packed + p * k * 16, c: c + m * ldc + p * 16, ldc: ldc, cols: cols, bias: biasVector,
                          lo: lo, hi: hi, mode: mode)
                }
                p += 1
            }
            m += mr
        }
        guard narrow else { return }
        let p = panels - 1, cols = n - p * 16
        let biasVector = bias.map { TierMath.load($0 + p * 16, count: cols) } ?? SIMD16()
        let bias8 = SIMD16(lowHalf: biasVector.lowHalf, highHalf: biasVector.lowHalf)
        m = 0
        while m < rows {
            let mr = min(12, rows - m)
            tile12x8(M.self, mr: mr, a: a + m * lda, lda: lda, runCount: runCount, runLength: runLength, runStride: runStride,
                     panel: packed + p * k * 16, c: c + m * ldc + p * 16, ldc: ldc, cols: cols, bias: bias8,
                     lo: lo, hi: hi, mode: mode)
            m += mr
        }
    }

    /// Rows `r ≥ mr` of a tile re-read row 0 (always valid) and are not stored: the inner
    /// loop has no branches for short tiles.
    @inline(__always)
    private static func rowPointer(_ a: UnsafePointer<Float>, _ r: Int, _ mr: Int, _ lda: Int) -> UnsafePointer<Float> {
        r < mr ? a + r * lda : a
    }

    /// Row `r` of a tile, if below `mr`: the sum plus the bias, clamped in mode 1. The SiLU
    /// (mode 2) runs afterwards over the stored rows (`siluRows`): kept out of the tile, the
    /// epilogue inlines (an out-of-line store taking `SIMD16` arguments rebuilt each from four
    /// xmm parts was a quarter of a depth-32 layer's time).
    @inline(__always)
    private static func store(_ v: SIMD16<Float>, _ r: Int, mr: Int, c: UnsafeMutablePointer<Float>, ldc: Int, cols: Int,
                              bias: SIMD16<Float>, lo: Float, hi: Float, mode: Int) {
        guard r < mr else { return }
        var x = v + bias
        if mode == 1 { x = TierMath.clamp(x, lo: SIMD16(repeating: lo), hi: SIMD16(repeating: hi)) }
        TierMath.store(x, to: c + r &* ldc, count: cols)
    }

    /// The SiLU in place over rows `0..<rows` of a stored tile (`cols` columns each): four rows
    /// as one `LaneQuad` (four interleaved chains, the same bits as one at a time), then one by one.
    @inline(never)
    private static func siluRows(_ c: UnsafeMutablePointer<Float>, ldc: Int, rows: Int, cols: Int) {
        var r = 0
        while r &+ 4 <= rows {
            let p = c + r &* ldc
            let y = LaneMath.silu(LaneQuad(TierMath.load(p, count: cols), TierMath.load(p + ldc, count: cols),
                                           TierMath.load(p + 2 &* ldc, count: cols), TierMath.load(p + 3 &* ldc, count: cols)))
            TierMath.store(y.a, to: p, count: cols)
            TierMath.store(y.b, to: p + ldc, count: cols)
            TierMath.store(y.c, to: p + 2 &* ldc, count: cols)
            TierMath.store(y.d, to: p + 3 &* ldc, count: cols)
            r &+= 4
        }
        while r < rows {
            let p = c + r &* ldc
            TierMath.store(LaneMath.silu(TierMath.load(p, count: cols)), to: p, count: cols)
            r &+= 1
        }
    }

    /// One row × `panels` panels of 16 columns, four panels (four independent accumulators) at
    /// a time; each sum over k in order, as in `tile8`/`tile6`, finished and stored like theirs.
    @inline(never)
    private static func rowPanels<M: MultiplyAdd>(_: M.Type, a: UnsafePointer<Float>, runCount: Int, runLength: Int,
                                                  runStride: Int, packed: UnsafePointer<Float>, k: Int, panels: Int, n: Int,
                                                  bias: UnsafePointer<Float>?, c: UnsafeMutablePointer<Float>,
                                                  lo: Float, hi: Float, mode: Int) {
        var p = 0
        while p < panels {
            let group = min(4, panels &- p)
            let b0 = packed + p &* k &* 16
            // Panels past the group's end re-read the first one (always valid) and are not stored.
            let b1 = group > 1 ? b0 + k &* 16 : b0, b2 = group > 2 ? b0 + 2 &* k &* 16 : b0
            let b3 = group > 3 ? b0 + 3 &* k &* 16 : b0
            var c0 = SIMD16<Float>(), c1 = c0, c2 = c0, c3 = c0
            var j = 0, offset = 0
            for _ in 0..<runCount {
                var kk = offset
                let end = offset &+ runLength
                while kk < end {
                    let x = SIMD16<Float>(repeating: a[kk])
                    c0 = M.add(c0, x, UnsafeRawPointer(b0 + j).loadUnaligned(as: SIMD16<Float>.self))
                    c1 = M.add(c1, x, UnsafeRawPointer(b1 + j).loadUnaligned(as: SIMD16<Float>.self))
                    c2 = M.add(c2, x, UnsafeRawPointer(b2 + j).loadUnaligned(as: SIMD16<Float>.self))
                    c3 = M.add(c3, x, UnsafeRawPointer(b3 + j).loadUnaligned(as: SIMD16<Float>.self))
                    j &+= 16
                    kk &+= 1
                }
                offset &+= runStride
            }
            let sums = (c0, c1, c2, c3)
            for g in 0..<group {
                let column = (p &+ g) &* 16, cols = min(16, n &- column)
                let v = g == 0 ? sums.0 : g == 1 ? sums.1 : g == 2 ? sums.2 : sums.3
                let biasVector = bias.map { TierMath.load($0 + column, count: cols) } ?? SIMD16()
                TierMath.store(finish(v, bias: biasVector, lo: lo, hi: hi, mode: mode), to: c + column, count: cols)
            }
            p &+= group
        }
    }

    /// 8 rows × 16 columns (AVX-512: 8 zmm accumulators, 2 FMA pipes × 4 cycles).
    @inline(never)
    private static func tile8<M: MultiplyAdd>(_: M.Type, mr: Int, a: UnsafePointer<Float>, lda: Int,
                                              runCount: Int, runLength: Int, runStride: Int,
                                              panel: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>, ldc: Int,
                                              cols: Int, bias: SIMD16<Float>, lo: Float, hi: Float, mode: Int) {
        var c0 = SIMD16<Float>(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0
        let a0 = a, a1 = rowPointer(a, 1, mr, lda), a2 = rowPointer(a, 2, mr, lda), a3 = rowPointer(a, 3, mr, lda)
        let a4 = rowPointer(a, 4, mr, lda), a5 = rowPointer(a, 5, mr, lda), a6 = rowPointer(a, 6, mr, lda)
        let a7 = rowPointer(a, 7, mr, lda)
        var pb = panel
        var offset = 0
        for _ in 0..<runCount {
            var kk = offset
            let end = offset &+ runLength
            while kk < end {
                let b = UnsafeRawPointer(pb).loadUnaligned(as: SIMD16<Float>.self)
                c0 = M.add(c0, SIMD16(repeating: a0[kk]), b)
                c1 = M.add(c1, SIMD16(repeating: a1[kk]), b)
                c2 = M.add(c2, SIMD16(repeating: a2[kk]), b)
                c3 = M.add(c3, SIMD16(repeating: a3[kk]), b)
                c4 = M.add(c4, SIMD16(repeating: a4[kk]), b)
                c5 = M.add(c5, SIMD16(repeating: a5[kk]), b)
                c6 = M.add(c6, SIMD16(repeating: a6[kk]), b)
                c7 = M.add(c7, SIMD16(repeating: a7[kk]), b)
                pb += 16
                kk &+= 1
            }
            offset &+= runStride
        }
        store(c0, 0, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c1, 1, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c2, 2, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c3, 3, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c4, 4, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c5, 5, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c6, 6, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c7, 7, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        if mode == 2 { siluRows(c, ldc: ldc, rows: min(mr, 8), cols: cols) }
    }

    /// 12 rows × 32 columns (`pair`: two panels, 24 accumulators) or 12 × 16 (one panel, the
    /// second set of accumulators unused); `cols` counts the columns of both panels.
    @inline(never)
    private static func tile12<M: MultiplyAdd>(_: M.Type, pair: Bool, mr: Int, a: UnsafePointer<Float>, lda: Int,
                                               runCount: Int, runLength: Int, runStride: Int,
                                               panel: UnsafePointer<Float>, k: Int, c: UnsafeMutablePointer<Float>, ldc: Int,
                                               cols: Int, bias: SIMD16<Float>, biasHigh: SIMD16<Float>,
                                               lo: Float, hi: Float, mode: Int) {
        var c0 = SIMD16<Float>(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0
        var c8 = c0, c9 = c0, c10 = c0, c11 = c0
        let a0 = a, a1 = rowPointer(a, 1, mr, lda), a2 = rowPointer(a, 2, mr, lda), a3 = rowPointer(a, 3, mr, lda)
        let a4 = rowPointer(a, 4, mr, lda), a5 = rowPointer(a, 5, mr, lda), a6 = rowPointer(a, 6, mr, lda)
        let a7 = rowPointer(a, 7, mr, lda), a8 = rowPointer(a, 8, mr, lda), a9 = rowPointer(a, 9, mr, lda)
        let a10 = rowPointer(a, 10, mr, lda), a11 = rowPointer(a, 11, mr, lda)
        if pair {
            var d0 = SIMD16<Float>(), d1 = d0, d2 = d0, d3 = d0, d4 = d0, d5 = d0, d6 = d0, d7 = d0
            var d8 = d0, d9 = d0, d10 = d0, d11 = d0
            var pb = panel
            let second = k &* 16
            var offset = 0
            if runCount == 1 && mr == 12 {
                // A plain A (a 1×1 convolution) in a whole tile: six row pointers moving along k,
                // rows 6...11 read 6 · lda further on. Twelve fixed row pointers and an index need
                // more registers than there are: two were reloaded from the stack at every k
                // (paired on the Intel Xeon: 1×1 layers of depth 32–64 2–4 % faster).
                let six = 6 &* lda
                var q0 = a0, q1 = a1, q2 = a2, q3 = a3, q4 = a4, q5 = a5
                let end = a0 + runLength
                while q0 < end {
                    let b = UnsafeRawPointer(pb).loadUnaligned(as: SIMD16<Float>.self)
                    let e = UnsafeRawPointer(pb + second).loadUnaligned(as: SIMD16<Float>.self)
                    var x = SIMD16<Float>(repeating: q0.pointee); c0 = M.add(c0, x, b); d0 = M.add(d0, x, e)
                    x = SIMD16(repeating: q1.pointee); c1 = M.add(c1, x, b); d1 = M.add(d1, x, e)
                    x = SIMD16(repeating: q2.pointee); c2 = M.add(c2, x, b); d2 = M.add(d2, x, e)
                    x = SIMD16(repeating: q3.pointee); c3 = M.add(c3, x, b); d3 = M.add(d3, x, e)
                    x = SIMD16(repeating: q4.pointee); c4 = M.add(c4, x, b); d4 = M.add(d4, x, e)
                    x = SIMD16(repeating: q5.pointee); c5 = M.add(c5, x, b); d5 = M.add(d5, x, e)
                    x = SIMD16(repeating: q0[six]); c6 = M.add(c6, x, b); d6 = M.add(d6, x, e)
                    x = SIMD16(repeating: q1[six]); c7 = M.add(c7, x, b); d7 = M.add(d7, x, e)
                    x = SIMD16(repeating: q2[six]); c8 = M.add(c8, x, b); d8 = M.add(d8, x, e)
                    x = SIMD16(repeating: q3[six]); c9 = M.add(c9, x, b); d9 = M.add(d9, x, e)
                    x = SIMD16(repeating: q4[six]); c10 = M.add(c10, x, b); d10 = M.add(d10, x, e)
                    x = SIMD16(repeating: q5[six]); c11 = M.add(c11, x, b); d11 = M.add(d11, x, e)
                    pb += 16
                    q0 += 1; q1 += 1; q2 += 1; q3 += 1; q4 += 1; q5 += 1
                }
            } else {
                for _ in 0..<runCount {
                    var kk = offset
                    let end = offset &+ runLength
                    while kk < end {
                        let b = UnsafeRawPointer(pb).loadUnaligned(as: SIMD16<Float>.self)
                        let e = UnsafeRawPointer(pb + second).loadUnaligned(as: SIMD16<Float>.self)
                        var x = SIMD16<Float>(repeating: a0[kk]); c0 = M.add(c0, x, b); d0 = M.add(d0, x, e)
                        x = SIMD16(repeating: a1[kk]); c1 = M.add(c1, x, b); d1 = M.add(d1, x, e)
                        x = SIMD16(repeating: a2[kk]); c2 = M.add(c2, x, b); d2 = M.add(d2, x, e)
                        x = SIMD16(repeating: a3[kk]); c3 = M.add(c3, x, b); d3 = M.add(d3, x, e)
                        x = SIMD16(repeating: a4[kk]); c4 = M.add(c4, x, b); d4 = M.add(d4, x, e)
                        x = SIMD16(repeating: a5[kk]); c5 = M.add(c5, x, b); d5 = M.add(d5, x, e)
                        x = SIMD16(repeating: a6[kk]); c6 = M.add(c6, x, b); d6 = M.add(d6, x, e)
                        x = SIMD16(repeating: a7[kk]); c7 = M.add(c7, x, b); d7 = M.add(d7, x, e)
                        x = SIMD16(repeating: a8[kk]); c8 = M.add(c8, x, b); d8 = M.add(d8, x, e)
                        x = SIMD16(repeating: a9[kk]); c9 = M.add(c9, x, b); d9 = M.add(d9, x, e)
                        x = SIMD16(repeating: a10[kk]); c10 = M.add(c10, x, b); d10 = M.add(d10, x, e)
                        x = SIMD16(repeating: a11[kk]); c11 = M.add(c11, x, b); d11 = M.add(d11, x, e)
                        pb += 16
                        kk &+= 1
                    }
                    offset &+= runStride
                }
            }
            let high = c + 16, highCols = cols &- 16
            store(d0, 0, mr: mr, c: high, ldc: ldc, cols: highCols, bias: biasHigh, lo: lo, hi: hi, mode: mode)
            store(d1, 1, mr: mr, c: high, ldc: ldc, cols: highCols, bias: biasHigh, lo: lo, hi: hi, mode: mode)
            store(d2, 2, mr: mr, c: high, ldc: ldc, cols: highCols, bias: biasHigh, lo: lo, hi: hi, mode: mode)
            store(d3, 3, mr: mr, c: high, ldc: ldc, cols: highCols, bias: biasHigh, lo: lo, hi: hi, mode: mode)
            store(d4, 4, mr: mr, c: high, ldc: ldc, cols: highCols, bias: biasHigh, lo: lo, hi: hi, mode: mode)
            store(d5, 5, mr: mr, c: high, ldc: ldc, cols: highCols, bias: biasHigh, lo: lo, hi: hi, mode: mode)
            store(d6, 6, mr: mr, c: high, ldc: ldc, cols: highCols, bias: biasHigh, lo: lo, hi: hi, mode: mode)
            store(d7, 7, mr: mr, c: high, ldc: ldc, cols: highCols, bias: biasHigh, lo: lo, hi: hi, mode: mode)
            store(d8, 8, mr: mr, c: high, ldc: ldc, cols: highCols, bias: biasHigh, lo: lo, hi: hi, mode: mode)
            store(d9, 9, mr: mr, c: high, ldc: ldc, cols: highCols, bias: biasHigh, lo: lo, hi: hi, mode: mode)
            store(d10, 10, mr: mr, c: high, ldc: ldc, cols: highCols, bias: biasHigh, lo: lo, hi: hi, mode: mode)
            store(d11, 11, mr: mr, c: high, ldc: ldc, cols: highCols, bias: biasHigh, lo: lo, hi: hi, mode: mode)
            if mode == 2 { siluRows(high, ldc: ldc, rows: min(mr, 12), cols: highCols) }
        } else {
            var pb = panel
            var offset = 0
            if runCount == 1 && mr == 12 {
                let six = 6 &* lda
                var q0 = a0, q1 = a1, q2 = a2, q3 = a3, q4 = a4, q5 = a5
                let end = a0 + runLength
                while q0 < end {
                    let b = UnsafeRawPointer(pb).loadUnaligned(as: SIMD16<Float>.self)
                    c0 = M.add(c0, SIMD16(repeating: q0.pointee), b)
                    c1 = M.add(c1, SIMD16(repeating: q1.pointee), b)
                    c2 = M.add(c2, SIMD16(repeating: q2.pointee), b)
                    c3 = M.add(c3, SIMD16(repeating: q3.pointee), b)
                    c4 = M.add(c4, SIMD16(repeating: q4.pointee), b)
                    c5 = M.add(c5, SIMD16(repeating: q5.pointee), b)
                    c6 = M.add(c6, SIMD16(repeating: q0[six]), b)
                    c7 = M.add(c7, SIMD16(repeating: q1[six]), b)
                    c8 = M.add(c8, SIMD16(repeating: q2[six]), b)
                    c9 = M.add(c9, SIMD16(repeating: q3[six]), b)
                    c10 = M.add(c10, SIMD16(repeating: q4[six]), b)
                    c11 = M.add(c11, SIMD16(repeating: q5[six]), b)
                    pb += 16
                    q0 += 1; q1 += 1; q2 += 1; q3 += 1; q4 += 1; q5 += 1
                }
            } else {
                for _ in 0..<runCount {
                    var kk = offset
                    let end = offset &+ runLength
                    while kk < end {
                        let b = UnsafeRawPointer(pb).loadUnaligned(as: SIMD16<Float>.self)
                        c0 = M.add(c0, SIMD16(repeating: a0[kk]), b)
                        c1 = M.add(c1, SIMD16(repeating: a1[kk]), b)
                        c2 = M.add(c2, SIMD16(repeating: a2[kk]), b)
                        c3 = M.add(c3, SIMD16(repeating: a3[kk]), b)
                        c4 = M.add(c4, SIMD16(repeating: a4[kk]), b)
                        c5 = M.add(c5, SIMD16(repeating: a5[kk]), b)
                        c6 = M.add(c6, SIMD16(repeating: a6[kk]), b)
                        c7 = M.add(c7, SIMD16(repeating: a7[kk]), b)
                        c8 = M.add(c8, SIMD16(repeating: a8[kk]), b)
                        c9 = M.add(c9, SIMD16(repeating: a9[kk]), b)
                        c10 = M.add(c10, SIMD16(repeating: a10[kk]), b)
                        c11 = M.add(c11, SIMD16(repeating: a11[kk]), b)
                        pb += 16
                        kk &+= 1
                    }
                    offset &+= runStride
                }
            }
        }
        let lowCols = min(16, cols)
        store(c0, 0, mr: mr, c: c, ldc: ldc, cols: lowCols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c1, 1, mr: mr, c: c, ldc: ldc, cols: lowCols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c2, 2, mr: mr, c: c, ldc: ldc, cols: lowCols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c3, 3, mr: mr, c: c, ldc: ldc, cols: lowCols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c4, 4, mr: mr, c: c, ldc: ldc, cols: lowCols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c5, 5, mr: mr, c: c, ldc: ldc, cols: lowCols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c6, 6, mr: mr, c: c, ldc: ldc, cols: lowCols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c7, 7, mr: mr, c: c, ldc: ldc, cols: lowCols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c8, 8, mr: mr, c: c, ldc: ldc, cols: lowCols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c9, 9, mr: mr, c: c, ldc: ldc, cols: lowCols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c10, 10, mr: mr, c: c, ldc: ldc, cols: lowCols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c11, 11, mr: mr, c: c, ldc: ldc, cols: lowCols, bias: bias, lo: lo, hi: hi, mode: mode)
        if mode == 2 { siluRows(c, ldc: ldc, rows: min(mr, 12), cols: lowCols) }
    }

    /// 6 rows × 16 columns (AVX2: 12 ymm accumulators, 2 for B, 1 broadcast).
    @inline(never)
    private static func tile6<M: MultiplyAdd>(_: M.Type, mr: Int, a: UnsafePointer<Float>, lda: Int,
                                              runCount: Int, runLength: Int, runStride: Int,
                                              panel: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>, ldc: Int,
                                              cols: Int, bias: SIMD16<Float>, lo: Float, hi: Float, mode: Int) {
        var c0 = SIMD16<Float>(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0
        let a0 = a, a1 = rowPointer(a, 1, mr, lda), a2 = rowPointer(a, 2, mr, lda), a3 = rowPointer(a, 3, mr, lda)
        let a4 = rowPointer(a, 4, mr, lda), a5 = rowPointer(a, 5, mr, lda)
        var pb = panel
        var offset = 0
        for _ in 0..<runCount {
            var kk = offset
            let end = offset &+ runLength
            while kk < end {
                let b = UnsafeRawPointer(pb).loadUnaligned(as: SIMD16<Float>.self)
                c0 = M.add(c0, SIMD16(repeating: a0[kk]), b)
                c1 = M.add(c1, SIMD16(repeating: a1[kk]), b)
                c2 = M.add(c2, SIMD16(repeating: a2[kk]), b)
                c3 = M.add(c3, SIMD16(repeating: a3[kk]), b)
                c4 = M.add(c4, SIMD16(repeating: a4[kk]), b)
                c5 = M.add(c5, SIMD16(repeating: a5[kk]), b)
                pb += 16
                kk &+= 1
            }
            offset &+= runStride
        }
        store(c0, 0, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c1, 1, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c2, 2, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c3, 3, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c4, 4, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        store(c5, 5, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        if mode == 2 { siluRows(c, ldc: ldc, rows: min(mr, 6), cols: cols) }
    }

    /// Two finished 8-column rows `r`, `r + 1` (one 16-lane `finish`, `bias` = the 8 biases twice).
    @inline(__always)
    private static func storePair(_ u: SIMD8<Float>, _ v: SIMD8<Float>, _ r: Int, mr: Int, c: UnsafeMutablePointer<Float>,
                                  ldc: Int, cols: Int, bias: SIMD16<Float>, lo: Float, hi: Float, mode: Int) {
        guard r < mr else { return }
        let f = finish(SIMD16(lowHalf: u, highHalf: v), bias: bias, lo: lo, hi: hi, mode: mode)
        TierMath.store(f.lowHalf, to: c + r * ldc, count: cols)
        if r + 1 < mr { TierMath.store(f.highHalf, to: c + (r + 1) * ldc, count: cols) }
    }

    /// 12 rows × 8 columns: a last panel of at most 8 columns (its first 8 lanes read, 16 apart),
    /// 12 8-lane accumulators (ymm; 14 registers with B and the broadcast at AVX2).
    @inline(never)
    private static func tile12x8<M: MultiplyAdd>(_: M.Type, mr: Int, a: UnsafePointer<Float>, lda: Int,
                                                 runCount: Int, runLength: Int, runStride: Int,
                                                 panel: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>, ldc: Int,
                                                 cols: Int, bias: SIMD16<Float>, lo: Float, hi: Float, mode: Int) {
        var c0 = SIMD8<Float>(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0
        var c8 = c0, c9 = c0, c10 = c0, c11 = c0
        let a0 = a, a1 = rowPointer(a, 1, mr, lda), a2 = rowPointer(a, 2, mr, lda), a3 = rowPointer(a, 3, mr, lda)
        let a4 = rowPointer(a, 4, mr, lda), a5 = rowPointer(a, 5, mr, lda), a6 = rowPointer(a, 6, mr, lda)
        let a7 = rowPointer(a, 7, mr, lda), a8 = rowPointer(a, 8, mr, lda), a9 = rowPointer(a, 9, mr, lda)
        let a10 = rowPointer(a, 10, mr, lda), a11 = rowPointer(a, 11, mr, lda)
        var pb = panel
        var offset = 0
        for _ in 0..<runCount {
            var kk = offset
            let end = offset &+ runLength
            while kk < end {
                let b = UnsafeRawPointer(pb).loadUnaligned(as: SIMD8<Float>.self)
                c0 = M.add(c0, SIMD8(repeating: a0[kk]), b)
                c1 = M.add(c1, SIMD8(repeating: a1[kk]), b)
                c2 = M.add(c2, SIMD8(repeating: a2[kk]), b)
                c3 = M.add(c3, SIMD8(repeating: a3[kk]), b)
                c4 = M.add(c4, SIMD8(repeating: a4[kk]), b)
                c5 = M.add(c5, SIMD8(repeating: a5[kk]), b)
                c6 = M.add(c6, SIMD8(repeating: a6[kk]), b)
                c7 = M.add(c7, SIMD8(repeating: a7[kk]), b)
                c8 = M.add(c8, SIMD8(repeating: a8[kk]), b)
                c9 = M.add(c9, SIMD8(repeating: a9[kk]), b)
                c10 = M.add(c10, SIMD8(repeating: a10[kk]), b)
                c11 = M.add(c11, SIMD8(repeating: a11[kk]), b)
                pb += 16
                kk &+= 1
            }
            offset &+= runStride
        }
        storePair(c0, c1, 0, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        storePair(c2, c3, 2, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        storePair(c4, c5, 4, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        storePair(c6, c7, 6, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        storePair(c8, c9, 8, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
        storePair(c10, c11, 10, mr: mr, c: c, ldc: ldc, cols: cols, bias: bias, lo: lo, hi: hi, mode: mode)
    }
}
