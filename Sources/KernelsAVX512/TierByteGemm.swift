import _Builtin_intrinsics.intel

/// The byte GEMM of the AVX-512 tier (VNNI), behind `IntegerGemm.multiplyBytes`:
/// `C[m][n] = Σ_k A[m][k] · B[n][k]` with A unsigned bytes and B signed bytes, in wrapping
/// `Int32` (exact: |a·b| ≤ 255 · 128, so the same sums as the plain loop).
///
/// B is packed by `IntegerGemm.packBytes` with 16 channels per panel: each group of four depth
/// steps holds `[c0k0, c0k1, c0k2, c0k3, c1k0, …, c15k3]` (64 bytes). A row's four bytes
/// `a[k…k+3]` are splatted as one 32-bit lane and one `vpdpbusd` adds the four u8 × s8
/// products into each of the 16 channel sums: twice the products of `vpdpwssd` per
/// instruction, on half the operand bytes. Only in this module: AVX2 has no such instruction
/// (`vpmaddubsw` saturates its Int16 pair sums, so it is not exact).
///
/// With `rowWeights` (`r_j`, 16 per panel) each sum also gets `− r_j · Σ_q a[i][q]`: the row
/// sums (`vpsadbw`) start the accumulators, so the zero-point correction costs no extra pass.
///
/// A row may be `runs` pieces of `kPadded / runs` bytes, `runStride` apart (a convolution's
/// filter rows read where they lie in a padded input image, no im2col copy).
///
/// Register tiles: 8 rows × 2 panels (32 channels, 16 accumulators) while two panels remain, so
/// 16 `vpdpbusd` chains cover the instruction's 5-cycle latency on two ports (8 did not) and each
/// row's quad is broadcast once for 32 channels; a last odd panel on 8 × 16; at most 4 rows left
/// on 4 × 16 per panel.
package enum TierByteGemm {
    /// `c[i * ldc + j] = Σ_q A[i][q] · B[j][q] − r_j · Σ_q A[i][q]` for `i < m`, `j < n`,
    /// `q < kPadded`, where `A[i][q] = a[i * lda + (q / L) · runStride + q % L]` with
    /// `L = kPadded / runs` (`kPadded` and `L` multiples of 4, A rows padded to them; `r` =
    /// `rowWeights`, padded to whole panels, or 0 when nil).
    package static func multiply(a: UnsafePointer<UInt8>, lda: Int, packedB: UnsafePointer<Int8>,
                                 m: Int, n: Int, kPadded kp: Int, runs: Int = 1, runStride: Int = 0,
                                 rowWeights: UnsafePointer<Int32>?, c: UnsafeMutablePointer<Int32>, ldc: Int) {
        let panels = (n + 15) / 16
        let runs = max(1, runs)
        let length = kp / runs
        var panel = 0
        while panel < panels {
            let j0 = panel &* 16
            if panel &+ 1 < panels {
                panelPairSums(a: a, lda: lda, m: m, panel: packedB + j0 &* kp, kPadded: kp, length: length, runs: runs,
                              runStride: runStride, rowWeights: rowWeights.map { $0 + j0 }, c: c + j0, ldc: ldc,
                              width: min(32, n &- j0))
                panel &+= 2
                continue
            }
            panelSums(a: a, lda: lda, m: m, panel: packedB + j0 &* kp, length: length, runs: runs, runStride: runStride,
                      rowWeights: rowWeights.map { $0 + j0 }, c: c + j0, ldc: ldc, width: min(16, n &- j0))
            panel &+= 1
        }
    }

    /// Two panels of `multiply` (32 channels, as `panelPairRequantized`): 8 × 32 sums a tile,
    /// a tail of at most 4 rows on the 4-row tile panel by panel. `width` (17…32): the channels stored.
    @inline(never)
    private static func panelPairSums(a: UnsafePointer<UInt8>, lda: Int, m: Int, panel: UnsafePointer<Int8>, kPadded kp: Int,
                                      length: Int, runs: Int, runStride: Int, rowWeights: UnsafePointer<Int32>?,
                                      c: UnsafeMutablePointer<Int32>, ldc: Int, width: Int) {
        let second = panel + 16 &* kp, high = c + 16, highWidth = width &- 16
        let zero = _mm512_setzero_si512()
        var i = 0
        while i < m {
            let rows = min(8, m &- i)
            let out = c + i &* ldc, outHigh = high + i &* ldc
            @inline(__always) func put(_ v: __m512i, _ w: __m512i, _ r: Int) {
                store(v, r, rows: rows, c: out, ldc: ldc, width: 16)
                store(w, r, rows: rows, c: outHigh, ldc: ldc, width: highWidth)
            }
            if rows > 4 {
                let (u, v) = accumulate8x2(a: a + i &* lda, lda: lda, rows: rows, panel: panel, second: second, length: length,
                                           runs: runs, runStride: runStride, rowWeights: rowWeights, start: zero, start2: zero)
                put(u.0, v.0, 0); put(u.1, v.1, 1); put(u.2, v.2, 2); put(u.3, v.3, 3)
                put(u.4, v.4, 4); put(u.5, v.5, 5); put(u.6, v.6, 6); put(u.7, v.7, 7)
            } else {
                let (c0, c1, c2, c3) = accumulate4(a: a + i &* lda, lda: lda, rows: rows, panel: panel, length: length,
                                                   runs: runs, runStride: runStride, rowWeights: rowWeights, start: zero)
                let (d0, d1, d2, d3) = accumulate4(a: a + i &* lda, lda: lda, rows: rows, panel: second, length: length,
                                                   runs: runs, runStride: runStride, rowWeights: rowWeights.map { $0 + 16 }, start: zero)
                put(c0, d0, 0); put(c1, d1, 1); put(c2, d2, 2); put(c3, d3, 3)
            }
            i &+= rows
        }
    }

    /// `multiply` with the requantization fused into the register tile (`TierRequantization`'s
    /// arithmetic): each sum `+ bias[j]`, × the channel's multiplier and shift, `+ outputZeroPoint`,
    /// clamped, its low byte stored at `output[i * ldo + j]` (uint8 and int8 alike). The sums never
    /// go to memory, and the per-channel constants are set up once per 16-channel panel. `bias`,
    /// `doubledMultiplier` and `rightShift` hold whole panels of 16.
    package static func multiplyRequantized(a: UnsafePointer<UInt8>, lda: Int, packedB: UnsafePointer<Int8>,
                                            m: Int, n: Int, kPadded kp: Int, runs: Int, runStride: Int,
                                            rowWeights: UnsafePointer<Int32>?, bias: UnsafePointer<Int32>,
                                            doubledMultiplier: UnsafePointer<UInt32>, rightShift: UnsafePointer<UInt32>,
                                            outputZeroPoint: Int32, activationMin: Int32, activationMax: Int32,
                                            output: UnsafeMutableRawPointer, ldo: Int) {
        let panels = (n + 15) / 16
        let runs = max(1, runs)
        let length = kp / runs
        var panel = 0
        while panel < panels {
            let j0 = panel &* 16
            if panel &+ 1 < panels {
                panelPairRequantized(a: a, lda: lda, m: m, panel: packedB + j0 &* kp, kPadded: kp, length: length, runs: runs,
                                     runStride: runStride, rowWeights: rowWeights.map { $0 + j0 }, bias: bias + j0,
                                     doubledMultiplier: doubledMultiplier + j0, rightShift: rightShift + j0,
                                     outputZeroPoint: outputZeroPoint, activationMin: activationMin, activationMax: activationMax,
                                     output: output + j0, ldo: ldo, width: min(32, n &- j0))
                panel &+= 2
                continue
            }
            panelRequantized(a: a, lda: lda, m: m, panel: packedB + j0 &* kp, length: length, runs: runs, runStride: runStride,
                             rowWeights: rowWeights.map { $0 + j0 }, bias: bias + j0, doubledMultiplier: doubledMultiplier + j0,
                             rightShift: rightShift + j0, outputZeroPoint: outputZeroPoint, activationMin: activationMin,
                             activationMax: activationMax, output: output + j0, ldo: ldo, width: min(16, n &- j0))
            panel &+= 1
        }
    }

    /// Two panels of `multiplyRequantized` (32 channels from `panel`, the second `16 · kPadded`
    /// bytes on): all `m` rows, 8 at a time on 8 × 32 sums (16 accumulators: with 8, a
    /// `vpdpbusd`'s latency of 5 cycles left the second port idle, and each row's quad is now
    /// broadcast once for both panels); a tail of at most 4 rows on the 4-row tile, panel by panel.
    /// `width` (17…32): the channels stored.
    @inline(never)
    private static func panelPairRequantized(a: UnsafePointer<UInt8>, lda: Int, m: Int, panel: UnsafePointer<Int8>, kPadded kp: Int,
                                             length: Int, runs: Int, runStride: Int, rowWeights: UnsafePointer<Int32>?,
                                             bias: UnsafePointer<Int32>, doubledMultiplier: UnsafePointer<UInt32>,
                                             rightShift: UnsafePointer<UInt32>, outputZeroPoint: Int32, activationMin: Int32,
                                             activationMax: Int32, output: UnsafeMutableRawPointer, ldo: Int, width: Int) {
        let k = signedRequantization(bias: bias, doubledMultiplier: doubledMultiplier, rightShift: rightShift,
                                     outputZeroPoint: outputZeroPoint, activationMin: activationMin, activationMax: activationMax)
        let l = signedRequantization(bias: bias + 16, doubledMultiplier: doubledMultiplier + 16, rightShift: rightShift + 16,
                                     outputZeroPoint: outputZeroPoint, activationMin: activationMin, activationMax: activationMax)
        let second = panel + 16 &* kp, highWidth = width &- 16
        var i = 0
        while i < m {
            let rows = min(8, m &- i)
            let out = output + i &* ldo
            @inline(__always) func put(_ v: __m512i, _ w: __m512i, _ r: Int) {
                guard r < rows else { return }
                Tier.storeLowBytes(requantizeSigned(v, k), to: out + r &* ldo, count: 16)
                Tier.storeLowBytes(requantizeSigned(w, l), to: out + (r &* ldo &+ 16), count: highWidth)
            }
            if rows > 4 {
                let (c, d) = accumulate8x2(a: a + i &* lda, lda: lda, rows: rows, panel: panel, second: second, length: length,
                                           runs: runs, runStride: runStride, rowWeights: rowWeights, start: k.bias, start2: l.bias)
                put(c.0, d.0, 0); put(c.1, d.1, 1); put(c.2, d.2, 2); put(c.3, d.3, 3)
                put(c.4, d.4, 4); put(c.5, d.5, 5); put(c.6, d.6, 6); put(c.7, d.7, 7)
            } else {
                let (c0, c1, c2, c3) = accumulate4(a: a + i &* lda, lda: lda, rows: rows, panel: panel, length: length,
                                                   runs: runs, runStride: runStride, rowWeights: rowWeights, start: k.bias)
                let (d0, d1, d2, d3) = accumulate4(a: a + i &* lda, lda: lda, rows: rows, panel: second, length: length,
                                                   runs: runs, runStride: runStride, rowWeights: rowWeights.map { $0 + 16 }, start: l.bias)
                put(c0, d0, 0); put(c1, d1, 1); put(c2, d2, 2); put(c3, d3, 3)
            }
            i &+= rows
        }
    }

    /// The 8 rows × 32 channels sums of two panels (`panel`, `second`); rows ≥ `rows` re-read row 0.
    @inline(__always)
    private static func accumulate8x2(a: UnsafePointer<UInt8>, lda: Int, rows: Int, panel: UnsafePointer<Int8>,
                                      second: UnsafePointer<Int8>, length: Int, runs: Int, runStride: Int,
                                      rowWeights: UnsafePointer<Int32>?, start: __m512i, start2: __m512i)
        -> ((__m512i, __m512i, __m512i, __m512i, __m512i, __m512i, __m512i, __m512i),
            (__m512i, __m512i, __m512i, __m512i, __m512i, __m512i, __m512i, __m512i)) {
        @inline(__always) func row(_ r: Int) -> UnsafePointer<UInt8> { r < rows ? a + r &* lda : a }
        var a0 = a, a1 = row(1), a2 = row(2), a3 = row(3), a4 = row(4), a5 = row(5), a6 = row(6), a7 = row(7)
        var c0 = start, c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0
        var d0 = start2, d1 = d0, d2 = d0, d3 = d0, d4 = d0, d5 = d0, d6 = d0, d7 = d0
        if let rowWeights {
            let r = _mm512_loadu_si512(rowWeights), s = _mm512_loadu_si512(rowWeights + 16)
            @inline(__always) func correct(_ c: inout __m512i, _ d: inout __m512i, _ row: UnsafePointer<UInt8>) {
                let minusSum = rowSumNegated(row, length, runs: runs, runStride: runStride)
                c = _mm512_add_epi32(start, _mm512_mullo_epi32(r, minusSum))
                d = _mm512_add_epi32(start2, _mm512_mullo_epi32(s, minusSum))
            }
            correct(&c0, &d0, a0); correct(&c1, &d1, a1); correct(&c2, &d2, a2); correct(&c3, &d3, a3)
            correct(&c4, &d4, a4); correct(&c5, &d5, a5); correct(&c6, &d6, a6); correct(&c7, &d7, a7)
        }
        var w = panel, v = second
        var run = 0
        while run < runs {
            run &+= 1
            var q = 0
            while q < length {
                let b = _mm512_loadu_si512(w), e = _mm512_loadu_si512(v)
                @inline(__always) func quad(_ c: inout __m512i, _ d: inout __m512i, _ row: UnsafePointer<UInt8>) {
                    let x = _mm512_set1_epi32(UnsafeRawPointer(row + q).loadUnaligned(as: Int32.self))
                    c = _mm512_dpbusd_epi32(c, x, b)
                    d = _mm512_dpbusd_epi32(d, x, e)
                }
                quad(&c0, &d0, a0); quad(&c1, &d1, a1); quad(&c2, &d2, a2); quad(&c3, &d3, a3)
                quad(&c4, &d4, a4); quad(&c5, &d5, a5); quad(&c6, &d6, a6); quad(&c7, &d7, a7)
                w += 64
                v += 64
                q &+= 4
            }
            a0 += runStride; a1 += runStride; a2 += runStride; a3 += runStride
            a4 += runStride; a5 += runStride; a6 += runStride; a7 += runStride
        }
        return ((c0, c1, c2, c3, c4, c5, c6, c7), (d0, d1, d2, d3, d4, d5, d6, d7))
    }

    /// `acc + Σ_{t<4} quad.byte[t] · w[4j + t]` per channel j: one `vpdpbusd`.
    @inline(__always)
    private static func addQuadProducts(_ acc: __m512i, _ row: UnsafePointer<UInt8>, _ q: Int, _ w: __m512i) -> __m512i {
        _mm512_dpbusd_epi32(acc, _mm512_set1_epi32(UnsafeRawPointer(row + q).loadUnaligned(as: Int32.self)), w)
    }

    /// `−r · Σ row` over `runs` pieces of `length` bytes, `runStride` apart: masked 64-byte loads,
    /// `vpsadbw`, one reduction for the whole row (3 × 3 × 4-channel rows are three 12-byte runs).
    @inline(__always)
    private static func rowCorrection(_ r: __m512i, _ row: UnsafePointer<UInt8>, _ length: Int, runs: Int, runStride: Int) -> __m512i {
        _mm512_mullo_epi32(r, rowSumNegated(row, length, runs: runs, runStride: runStride))
    }

    /// `−Σ row` (wrapping) in every lane, the row as in `rowCorrection`.
    @inline(__always)
    private static func rowSumNegated(_ row: UnsafePointer<UInt8>, _ length: Int, runs: Int, runStride: Int) -> __m512i {
        var s = _mm512_setzero_si512()
        for run in 0..<runs {
            let piece = row + run &* runStride
            var q = 0
            while q < length {
                let mask = length - q >= 64 ? UInt64.max : (UInt64(1) << UInt64(length - q)) &- 1
                s = _mm512_add_epi64(s, _mm512_sad_epu8(_mm512_maskz_loadu_epi8(__mmask64(mask), piece + q), _mm512_setzero_si512()))
                q &+= 64
            }
        }
        let sum = Int32(truncatingIfNeeded: _mm512_reduce_add_epi64(s))
        return _mm512_set1_epi32(0 &- sum)
    }

    @inline(__always)
    private static func store(_ v: __m512i, _ r: Int, rows: Int, c: UnsafeMutablePointer<Int32>, ldc: Int, width: Int) {
        guard r < rows else { return }
        _mm512_mask_storeu_epi32(c + r &* ldc, __mmask16(truncatingIfNeeded: (1 << width) - 1), v)
    }

    /// The 8 rows × 16 channels sums of one register tile; rows ≥ `rows` re-read row 0.
    @inline(__always)
    private static func accumulate8(a: UnsafePointer<UInt8>, lda: Int, rows: Int, panel: UnsafePointer<Int8>, length: Int,
                                    runs: Int, runStride: Int, rowWeights: UnsafePointer<Int32>?, start: __m512i)
        -> (__m512i, __m512i, __m512i, __m512i, __m512i, __m512i, __m512i, __m512i) {
        @inline(__always) func row(_ r: Int) -> UnsafePointer<UInt8> { r < rows ? a + r &* lda : a }
        var a0 = a, a1 = row(1), a2 = row(2), a3 = row(3), a4 = row(4), a5 = row(5), a6 = row(6), a7 = row(7)
        var c0 = start, c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0
        if let rowWeights {
            let r = _mm512_loadu_si512(rowWeights)
            c0 = _mm512_add_epi32(start, rowCorrection(r, a0, length, runs: runs, runStride: runStride)); c1 = _mm512_add_epi32(start, rowCorrection(r, a1, length, runs: runs, runStride: runStride))
            c2 = _mm512_add_epi32(start, rowCorrection(r, a2, length, runs: runs, runStride: runStride)); c3 = _mm512_add_epi32(start, rowCorrection(r, a3, length, runs: runs, runStride: runStride))
            c4 = _mm512_add_epi32(start, rowCorrection(r, a4, length, runs: runs, runStride: runStride)); c5 = _mm512_add_epi32(start, rowCorrection(r, a5, length, runs: runs, runStride: runStride))
            c6 = _mm512_add_epi32(start, rowCorrection(r, a6, length, runs: runs, runStride: runStride)); c7 = _mm512_add_epi32(start, rowCorrection(r, a7, length, runs: runs, runStride: runStride))
        }
        var w = panel
        var run = 0
        while run < runs {
            run &+= 1
            var q = 0
            while q < length {
                let b = _mm512_loadu_si512(w)
                c0 = addQuadProducts(c0, a0, q, b); c1 = addQuadProducts(c1, a1, q, b)
                c2 = addQuadProducts(c2, a2, q, b); c3 = addQuadProducts(c3, a3, q, b)
                c4 = addQuadProducts(c4, a4, q, b); c5 = addQuadProducts(c5, a5, q, b)
                c6 = addQuadProducts(c6, a6, q, b); c7 = addQuadProducts(c7, a7, q, b)
                w += 64
                q &+= 4
            }
            a0 += runStride; a1 += runStride; a2 += runStride; a3 += runStride
            a4 += runStride; a5 += runStride; a6 += runStride; a7 += runStride
        }
        return (c0, c1, c2, c3, c4, c5, c6, c7)
    }

    /// One panel of `multiply`: all `m` rows, 8 at a time (a tail of at most 4 rows, as 20-pixel
    /// output rows leave, on the 4-row tile).
    @inline(never)
    private static func panelSums(a: UnsafePointer<UInt8>, lda: Int, m: Int, panel: UnsafePointer<Int8>, length: Int,
                                  runs: Int, runStride: Int, rowWeights: UnsafePointer<Int32>?, c: UnsafeMutablePointer<Int32>,
                                  ldc: Int, width: Int) {
        var i = 0
        while i < m {
            let rows = min(8, m &- i)
            let out = c + i &* ldc
            if rows > 4 {
                let (c0, c1, c2, c3, c4, c5, c6, c7) = accumulate8(a: a + i &* lda, lda: lda, rows: rows, panel: panel, length: length,
                                                                   runs: runs, runStride: runStride, rowWeights: rowWeights,
                                                                   start: _mm512_setzero_si512())
                store(c0, 0, rows: rows, c: out, ldc: ldc, width: width); store(c1, 1, rows: rows, c: out, ldc: ldc, width: width)
                store(c2, 2, rows: rows, c: out, ldc: ldc, width: width); store(c3, 3, rows: rows, c: out, ldc: ldc, width: width)
                store(c4, 4, rows: rows, c: out, ldc: ldc, width: width); store(c5, 5, rows: rows, c: out, ldc: ldc, width: width)
                store(c6, 6, rows: rows, c: out, ldc: ldc, width: width); store(c7, 7, rows: rows, c: out, ldc: ldc, width: width)
            } else {
                let (c0, c1, c2, c3) = accumulate4(a: a + i &* lda, lda: lda, rows: rows, panel: panel, length: length,
                                                   runs: runs, runStride: runStride, rowWeights: rowWeights, start: _mm512_setzero_si512())
                store(c0, 0, rows: rows, c: out, ldc: ldc, width: width); store(c1, 1, rows: rows, c: out, ldc: ldc, width: width)
                store(c2, 2, rows: rows, c: out, ldc: ldc, width: width); store(c3, 3, rows: rows, c: out, ldc: ldc, width: width)
            }
            i &+= rows
        }
    }

    /// One panel of `multiplyRequantized`: all `m` rows, 8 at a time (a tail of at most 4 on the
    /// 4-row tile), the requantization constants set up once.
    @inline(never)
    private static func panelRequantized(a: UnsafePointer<UInt8>, lda: Int, m: Int, panel: UnsafePointer<Int8>, length: Int,
                                         runs: Int, runStride: Int, rowWeights: UnsafePointer<Int32>?, bias: UnsafePointer<Int32>,
                                         doubledMultiplier: UnsafePointer<UInt32>, rightShift: UnsafePointer<UInt32>,
                                         outputZeroPoint: Int32, activationMin: Int32, activationMax: Int32,
                                         output: UnsafeMutableRawPointer, ldo: Int, width: Int) {
        let k = signedRequantization(bias: bias, doubledMultiplier: doubledMultiplier, rightShift: rightShift,
                                     outputZeroPoint: outputZeroPoint, activationMin: activationMin, activationMax: activationMax)
        var i = 0
        while i < m {
            let rows = min(8, m &- i)
            let out = output + i &* ldo
            @inline(__always) func put(_ v: __m512i, _ r: Int) {
                guard r < rows else { return }
                Tier.storeLowBytes(requantizeSigned(v, k), to: out + r &* ldo, count: width)
            }
            if rows > 4 {
                let (c0, c1, c2, c3, c4, c5, c6, c7) = accumulate8(a: a + i &* lda, lda: lda, rows: rows, panel: panel, length: length,
                                                                   runs: runs, runStride: runStride, rowWeights: rowWeights, start: k.bias)
                put(c0, 0); put(c1, 1); put(c2, 2); put(c3, 3); put(c4, 4); put(c5, 5); put(c6, 6); put(c7, 7)
            } else {
                let (c0, c1, c2, c3) = accumulate4(a: a + i &* lda, lda: lda, rows: rows, panel: panel, length: length,
                                                   runs: runs, runStride: runStride, rowWeights: rowWeights, start: k.bias)
                put(c0, 0); put(c1, 1); put(c2, 2); put(c3, 3)
            }
            i &+= rows
        }
    }

    /// The 4 rows × 16 channels sums of a tail tile (`accumulate8` for at most 4 rows); rows ≥
    /// `rows` re-read row 0.
    @inline(__always)
    private static func accumulate4(a: UnsafePointer<UInt8>, lda: Int, rows: Int, panel: UnsafePointer<Int8>, length: Int,
                                    runs: Int, runStride: Int, rowWeights: UnsafePointer<Int32>?, start: __m512i)
        -> (__m512i, __m512i, __m512i, __m512i) {
        @inline(__always) func row(_ r: Int) -> UnsafePointer<UInt8> { r < rows ? a + r &* lda : a }
        var a0 = a, a1 = row(1), a2 = row(2), a3 = row(3)
        var c0 = start, c1 = c0, c2 = c0, c3 = c0
        if let rowWeights {
            let r = _mm512_loadu_si512(rowWeights)
            c0 = _mm512_add_epi32(start, rowCorrection(r, a0, length, runs: runs, runStride: runStride)); c1 = _mm512_add_epi32(start, rowCorrection(r, a1, length, runs: runs, runStride: runStride))
            c2 = _mm512_add_epi32(start, rowCorrection(r, a2, length, runs: runs, runStride: runStride)); c3 = _mm512_add_epi32(start, rowCorrection(r, a3, length, runs: runs, runStride: runStride))
        }
        var w = panel
        var run = 0
        while run < runs {
            run &+= 1
            var q = 0
            while q < length {
                let b = _mm512_loadu_si512(w)
                c0 = addQuadProducts(c0, a0, q, b); c1 = addQuadProducts(c1, a1, q, b)
                c2 = addQuadProducts(c2, a2, q, b); c3 = addQuadProducts(c3, a3, q, b)
                w += 64
                q &+= 4
            }
            a0 += runStride; a1 += runStride; a2 += runStride; a3 += runStride
        }
        return (c0, c1, c2, c3)
    }

    /// `rows` rows of `count` sums (`ldb` apart, rows of whole 16-sum groups, bias not yet in them)
    /// requantized as `multiplyRequantized` does in its registers, the constants set up once per
    /// 16 channels; row `r`'s bytes at `output + r · ldo`. The epilogue of the AMX byte GEMM
    /// (`KernelsAVX512AMX`), whose sums come out of the tiles through memory.
    package static func requantizeRows(_ sums: UnsafePointer<Int32>, ldb: Int, rows: Int, count: Int, bias: UnsafePointer<Int32>,
                                       doubledMultiplier: UnsafePointer<UInt32>, rightShift: UnsafePointer<UInt32>,
                                       outputZeroPoint: Int32, activationMin: Int32, activationMax: Int32,
                                       output: UnsafeMutableRawPointer, ldo: Int) {
        var j = 0
        while j < count {
            let width = min(16, count &- j)
            let k = signedRequantization(bias: bias + j, doubledMultiplier: doubledMultiplier + j, rightShift: rightShift + j,
                                         outputZeroPoint: outputZeroPoint, activationMin: activationMin, activationMax: activationMax)
            var r = 0
            while r < rows {
                let x = _mm512_add_epi32(_mm512_loadu_si512(sums + (r &* ldb &+ j)), k.bias)
                Tier.storeLowBytes(requantizeSigned(x, k), to: output + (r &* ldo &+ j), count: width)
                r &+= 1
            }
            j &+= 16
        }
    }

    /// One panel's requantization in the signed form of the AVX-512 tier: the bytes of
    /// `TierRequantization.requantize` (TFLite's `MultiplyByQuantizedMultiplier`, + zero point,
    /// clamp) in 13 vector operations per 16 sums instead of 22, for the register tiles'
    /// epilogues, where the constants are set up once per panel and used for all its rows. The
    /// sums arrive with the bias already in them (the tiles start their accumulators at it).
    ///
    /// For `x = acc + bias`, `M` the Q0.31 multiplier and `e` the right shift of a channel, and
    /// `P = x·M` (signed 32×32→64, `vpmuldq`): `SaturatingRoundingDoublingHighMul` is
    /// `y = ⌊(P + 2^30) / 2^31⌋` (its nudge `1 − 2^30` for negative products, with the division's
    /// truncation, rounds ties up), and `RoundingDivideByPOT` rounds `y / 2^e` half away from zero:
    /// `⌊(y + 2^(e−1)) / 2^e⌋` for `y ≥ 0`, `⌊(y + 2^(e−1) − 1) / 2^e⌋` for `y < 0`, `y` when
    /// `e = 0`. Nested floors of divisions fold, so the result is `⌊(P + t) / 2^(31+e)⌋` with
    /// `t = 2^30 + 2^(30+e)` for `x ≥ 0` and `t = 2^30 + 2^(30+e) − 2^31` for `x < 0` (`2^30`
    /// for both when `e = 0`). (`x < 0` and `P < 0` differ only when `M = 0`, and then both give 0.)
    /// The zero point joins `t` as `zp · 2^(31+e)`. `|P| ≤ 2^62`, so with `e ≤ 22` nothing wraps.
    ///
    /// The fast form (every channel of the panel with `1 ≤ e ≤ 22`): the high 32 bits of
    /// `P + t` are `⌊(P + t) / 2^32⌋`, one `vpermt2d` gathers them for the 16 channels and one
    /// `vpsravd` by `e − 1` ends the division. Other panels keep the exact unsigned form of
    /// `TierRequantization`.
    typealias SignedRequantization = (bias: __m512i, mEven: __m512i, mOdd: __m512i,
                                      tNegEven: __m512i, tPosEven: __m512i, tNegOdd: __m512i, tPosOdd: __m512i,
                                      lastShift: __m512i, lo: __m512i, hi: __m512i, fast: Bool,
                                      doubledMultiplier: SIMD16<UInt32>, shift: SIMD16<UInt32>, zeroPoint: SIMD16<Int32>)

    /// The constants of one panel (`fast`: every channel with `1 ≤ e ≤ 22`; else `requantizeSigned`
    /// takes the unsigned form with the last three).
    @inline(__always)
    static func signedRequantization(bias: UnsafePointer<Int32>, doubledMultiplier: UnsafePointer<UInt32>,
                                     rightShift: UnsafePointer<UInt32>, outputZeroPoint: Int32,
                                     activationMin: Int32, activationMax: Int32) -> SignedRequantization {
        let m2 = _mm512_loadu_si512(doubledMultiplier)
        let m = _mm512_srli_epi32(m2, 1)
        let shift = _mm512_loadu_si512(rightShift)
        let lastShift = _mm512_sub_epi32(shift, _mm512_set1_epi32(1))
        let eEven = _mm512_and_si512(shift, _mm512_set1_epi64(0xFFFF_FFFF)), eOdd = _mm512_srli_epi64(shift, 32)
        let zp = _mm512_set1_epi64(Int64(outputZeroPoint))
        @inline(__always) func constants(_ e: __m512i) -> (neg: __m512i, pos: __m512i) {
            // 2^30 + 2^(30+e) + zp·2^(31+e), and that − 2^31.
            let pos = _mm512_add_epi64(_mm512_add_epi64(_mm512_set1_epi64(1 << 30), _mm512_sllv_epi64(_mm512_set1_epi64(1 << 30), e)),
                                       _mm512_sllv_epi64(zp, _mm512_add_epi64(e, _mm512_set1_epi64(31))))
            return (_mm512_sub_epi64(pos, _mm512_set1_epi64(1 << 31)), pos)
        }
        let even = constants(eEven), odd = constants(eOdd)
        // 1 ≤ e ≤ 22 in every lane: e − 1 as unsigned ≤ 21.
        return (bias: _mm512_loadu_si512(bias), mEven: m, mOdd: _mm512_srli_epi64(m, 32),
                tNegEven: even.neg, tPosEven: even.pos, tNegOdd: odd.neg, tPosOdd: odd.pos,
                lastShift: lastShift, lo: _mm512_set1_epi32(activationMin), hi: _mm512_set1_epi32(activationMax),
                fast: _mm512_reduce_max_epu32(lastShift) <= 21,
                doubledMultiplier: unsafeBitCast(m2, to: SIMD16<UInt32>.self), shift: unsafeBitCast(shift, to: SIMD16<UInt32>.self),
                zeroPoint: SIMD16<Int32>(repeating: outputZeroPoint))
    }

    /// The 16 sums `x` (bias included) requantized with `k`, clamped, as Int32 lanes.
    @inline(__always)
    static func requantizeSigned(_ x: __m512i, _ k: SignedRequantization) -> SIMD16<Int32> {
        guard k.fast else {
            let q = TierRequantization.requantize(unsafeBitCast(x, to: SIMD16<Int32>.self), doubledMultiplier: k.doubledMultiplier,
                                                  shift: k.shift) &+ k.zeroPoint
            return unsafeBitCast(_mm512_min_epi32(k.hi, _mm512_max_epi32(k.lo, unsafeBitCast(q, to: __m512i.self))), to: SIMD16<Int32>.self)
        }
        // x ≥ 0 per channel: bit 31 of each 64-bit lane for the even, bit 63 for the odd channels.
        let tEven = _mm512_mask_mov_epi64(k.tNegEven, _mm512_testn_epi64_mask(x, _mm512_set1_epi64(1 << 31)), k.tPosEven)
        let tOdd = _mm512_mask_mov_epi64(k.tNegOdd, _mm512_testn_epi64_mask(x, _mm512_set1_epi64(Int64.min)), k.tPosOdd)
        let even = _mm512_add_epi64(_mm512_mul_epi32(x, k.mEven), tEven)
        let odd = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), k.mOdd), tOdd)
        // The high halves: even channels' from `even`, odd channels' from `odd`.
        let high = _mm512_permutex2var_epi32(even, _mm512_set_epi32(31, 15, 29, 13, 27, 11, 25, 9, 23, 7, 21, 5, 19, 3, 17, 1), odd)
        let q = _mm512_srav_epi32(high, k.lastShift)
        return unsafeBitCast(_mm512_min_epi32(k.hi, _mm512_max_epi32(k.lo, q)), to: SIMD16<Int32>.self)
    }
}
