/// The integer GEMM of every instruction-set tier, behind `IntegerGemm.multiply`:
/// `C[m][n] = Σ_k A[m][k] · B[n][k]` in wrapping `Int32` (exact, so every tier gives the same
/// sums as the reference loop).
///
/// B is packed by `IntegerGemm.packB` with 16 channels per panel: each pair of depth steps
/// holds `[c0k0, c0k1, c1k0, c1k1, …, c15k0, c15k1]` (32 `Int16`). A row's pair
/// `(a[k], a[k+1])` is splatted as one 32-bit lane and `Tier.addPairProducts` adds both
/// products into the 16 channel sums: `vpdpwssd` at AVX-512 VNNI, `vpmaddwd` + `vpaddd` on
/// two ymm halves at AVX2, `pmaddwd` + `paddd` on four xmm quarters at SSE2. This file is
/// compiled once per tier module; `Tier.swift` of the module sets the primitive and the
/// register tile (`Tier.integerTileRows`).
package enum TierIntegerGemm {
    /// Output channels per packed panel.
    package static let panelWidth = 16

    /// `c[i * ldc + j] = Σ_q a[i * lda + q] · B[j][q]` for `i < m`, `j < n`, `q < kPadded`
    /// (`kPadded` a multiple of 8, A rows zero-padded to it).
    package static func multiply(a: UnsafePointer<Int16>, lda: Int, packedB: UnsafePointer<Int16>,
                                 m: Int, n: Int, kPadded kp: Int, c: UnsafeMutablePointer<Int32>, ldc: Int) {
        let panels = (n + 15) / 16
        let tileRows = Tier.integerTileRows
        for panel in 0..<panels {
            let j0 = panel * 16
            var i = 0
            while i < m {
                let rows = min(tileRows, m - i)
                if tileRows == 8 {
                    tile8(a: a + i * lda, lda: lda, rows: rows, panel: packedB + j0 * kp, kPadded: kp,
                          c: c + i * ldc + j0, ldc: ldc, width: min(16, n - j0))
                } else if tileRows == 2 {
                    tile2(a: a + i * lda, lda: lda, rows: rows, panel: packedB + j0 * kp, kPadded: kp,
                          c: c + i * ldc + j0, ldc: ldc, width: min(16, n - j0))
                } else {
                    tile4(a: a + i * lda, lda: lda, rows: rows, panel: packedB + j0 * kp, kPadded: kp,
                          c: c + i * ldc + j0, ldc: ldc, width: min(16, n - j0))
                }
                i += rows
            }
        }
    }

    /// Depth pair `q / 2` of a row as one 32-bit value.
    @inline(__always)
    private static func pair(_ row: UnsafePointer<Int16>, _ q: Int) -> Int32 {
        UnsafeRawPointer(row + q).loadUnaligned(as: Int32.self)
    }

    @inline(__always)
    private static func store(_ v: SIMD16<Int32>, _ r: Int, rows: Int, c: UnsafeMutablePointer<Int32>, ldc: Int, width: Int) {
        guard r < rows else { return }
        let out = c + r * ldc
        if width == 16 { UnsafeMutableRawPointer(out).storeBytes(of: v, as: SIMD16<Int32>.self); return }
        for l in 0..<width { out[l] = v[l] }
    }

    /// `multiply` with the requantization fused into the register tile (`TierRequantization`'s
    /// arithmetic): each sum `+ bias[j]`, × the channel's multiplier and shift, `+ outputZeroPoint`,
    /// clamped, its low byte stored at `output[i * ldo + j]` (uint8 and int8 alike). The sums never
    /// go to memory and the per-channel constants are loaded once per tile. `bias`,
    /// `doubledMultiplier` and `rightShift` hold whole panels of 16.
    package static func multiplyRequantized(a: UnsafePointer<Int16>, lda: Int, packedB: UnsafePointer<Int16>,
                                            m: Int, n: Int, kPadded kp: Int, bias: UnsafePointer<Int32>,
                                            doubledMultiplier: UnsafePointer<UInt32>, rightShift: UnsafePointer<UInt32>,
                                            outputZeroPoint: Int32, activationMin: Int32, activationMax: Int32,
                                            output: UnsafeMutableRawPointer, ldo: Int) {
        let panels = (n + 15) / 16
        let tileRows = Tier.integerTileRows
        let zp = SIMD16<Int32>(repeating: outputZeroPoint)
        let lo = SIMD16<Int32>(repeating: activationMin), hi = SIMD16<Int32>(repeating: activationMax)
        for panel in 0..<panels {
            let j0 = panel * 16
            let epilogue = Epilogue(bias: UnsafeRawPointer(bias + j0).loadUnaligned(as: SIMD16<Int32>.self),
                                    multiplier: UnsafeRawPointer(doubledMultiplier + j0).loadUnaligned(as: SIMD16<UInt32>.self),
                                    shift: UnsafeRawPointer(rightShift + j0).loadUnaligned(as: SIMD16<UInt32>.self),
                                    zeroPoint: zp, lo: lo, hi: hi)
            let width = min(16, n - j0)
            var i = 0
            while i < m {
                let rows = min(tileRows, m - i)
                let out = output + i * ldo + j0
                if tileRows == 8 {
                    tile8Requantized(a: a + i * lda, lda: lda, rows: rows, panel: packedB + j0 * kp, kPadded: kp,
                                     epilogue, output: out, ldo: ldo, width: width)
                } else if tileRows == 2 {
                    tile2Requantized(a: a + i * lda, lda: lda, rows: rows, panel: packedB + j0 * kp, kPadded: kp,
                                     epilogue, output: out, ldo: ldo, width: width)
                } else {
                    tile4Requantized(a: a + i * lda, lda: lda, rows: rows, panel: packedB + j0 * kp, kPadded: kp,
                                     epilogue, output: out, ldo: ldo, width: width)
                }
                i += rows
            }
        }
    }

    /// One panel's requantization constants (a tuple: tier modules define no non-generic structs).
    typealias Epilogue = (bias: SIMD16<Int32>, multiplier: SIMD16<UInt32>, shift: SIMD16<UInt32>,
                          zeroPoint: SIMD16<Int32>, lo: SIMD16<Int32>, hi: SIMD16<Int32>)

    /// Requantizes one row of sums and stores its low bytes (row `r` only when `r < rows`).
    @inline(__always)
    private static func put(_ v: SIMD16<Int32>, _ r: Int, rows: Int, _ e: Epilogue, output: UnsafeMutableRawPointer, ldo: Int, width: Int) {
        guard r < rows else { return }
        let q = TierRequantization.requantize(v &+ e.bias, doubledMultiplier: e.multiplier, shift: e.shift) &+ e.zeroPoint
        Tier.storeLowBytes(Tier.clamp(q, lo: e.lo, hi: e.hi), to: output + r &* ldo, count: width)
    }

    /// The 8 rows × 16 channels sums of one register tile; rows ≥ `rows` re-read row 0.
    @inline(__always)
    private static func accumulate8(a: UnsafePointer<Int16>, lda: Int, rows: Int, panel: UnsafePointer<Int16>, kPadded kp: Int)
        -> (SIMD16<Int32>, SIMD16<Int32>, SIMD16<Int32>, SIMD16<Int32>, SIMD16<Int32>, SIMD16<Int32>, SIMD16<Int32>, SIMD16<Int32>) {
        @inline(__always) func row(_ r: Int) -> UnsafePointer<Int16> { r < rows ? a + r * lda : a }
        let a0 = a, a1 = row(1), a2 = row(2), a3 = row(3), a4 = row(4), a5 = row(5), a6 = row(6), a7 = row(7)
        var c0 = SIMD16<Int32>(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0
        var w = panel
        var q = 0
        while q < kp {
            let b = UnsafeRawPointer(w).loadUnaligned(as: SIMD32<Int16>.self)
            c0 = Tier.addPairProducts(c0, pair(a0, q), b)
            c1 = Tier.addPairProducts(c1, pair(a1, q), b)
            c2 = Tier.addPairProducts(c2, pair(a2, q), b)
            c3 = Tier.addPairProducts(c3, pair(a3, q), b)
            c4 = Tier.addPairProducts(c4, pair(a4, q), b)
            c5 = Tier.addPairProducts(c5, pair(a5, q), b)
            c6 = Tier.addPairProducts(c6, pair(a6, q), b)
            c7 = Tier.addPairProducts(c7, pair(a7, q), b)
            w += 32
            q &+= 2
        }
        return (c0, c1, c2, c3, c4, c5, c6, c7)
    }

    /// 8 rows × 16 channels; rows ≥ `rows` are not stored.
    @inline(never)
    private static func tile8(a: UnsafePointer<Int16>, lda: Int, rows: Int, panel: UnsafePointer<Int16>, kPadded kp: Int,
                              c: UnsafeMutablePointer<Int32>, ldc: Int, width: Int) {
        let (c0, c1, c2, c3, c4, c5, c6, c7) = accumulate8(a: a, lda: lda, rows: rows, panel: panel, kPadded: kp)
        store(c0, 0, rows: rows, c: c, ldc: ldc, width: width); store(c1, 1, rows: rows, c: c, ldc: ldc, width: width)
        store(c2, 2, rows: rows, c: c, ldc: ldc, width: width); store(c3, 3, rows: rows, c: c, ldc: ldc, width: width)
        store(c4, 4, rows: rows, c: c, ldc: ldc, width: width); store(c5, 5, rows: rows, c: c, ldc: ldc, width: width)
        store(c6, 6, rows: rows, c: c, ldc: ldc, width: width); store(c7, 7, rows: rows, c: c, ldc: ldc, width: width)
    }

    /// `tile8` requantized to bytes (`multiplyRequantized`).
    @inline(never)
    private static func tile8Requantized(a: UnsafePointer<Int16>, lda: Int, rows: Int, panel: UnsafePointer<Int16>, kPadded kp: Int,
                                         _ e: Epilogue, output: UnsafeMutableRawPointer, ldo: Int, width: Int) {
        let (c0, c1, c2, c3, c4, c5, c6, c7) = accumulate8(a: a, lda: lda, rows: rows, panel: panel, kPadded: kp)
        put(c0, 0, rows: rows, e, output: output, ldo: ldo, width: width); put(c1, 1, rows: rows, e, output: output, ldo: ldo, width: width)
        put(c2, 2, rows: rows, e, output: output, ldo: ldo, width: width); put(c3, 3, rows: rows, e, output: output, ldo: ldo, width: width)
        put(c4, 4, rows: rows, e, output: output, ldo: ldo, width: width); put(c5, 5, rows: rows, e, output: output, ldo: ldo, width: width)
        put(c6, 6, rows: rows, e, output: output, ldo: ldo, width: width); put(c7, 7, rows: rows, e, output: output, ldo: ldo, width: width)
    }

    /// The 4 rows × 16 channels sums (AVX2: 8 ymm accumulators); rows ≥ `rows` re-read row 0.
    @inline(__always)
    private static func accumulate4(a: UnsafePointer<Int16>, lda: Int, rows: Int, panel: UnsafePointer<Int16>, kPadded kp: Int)
        -> (SIMD16<Int32>, SIMD16<Int32>, SIMD16<Int32>, SIMD16<Int32>) {
        @inline(__always) func row(_ r: Int) -> UnsafePointer<Int16> { r < rows ? a + r * lda : a }
        let a0 = a, a1 = row(1), a2 = row(2), a3 = row(3)
        var c0 = SIMD16<Int32>(), c1 = c0, c2 = c0, c3 = c0
        var w = panel
        var q = 0
        while q < kp {
            let b = UnsafeRawPointer(w).loadUnaligned(as: SIMD32<Int16>.self)
            c0 = Tier.addPairProducts(c0, pair(a0, q), b)
            c1 = Tier.addPairProducts(c1, pair(a1, q), b)
            c2 = Tier.addPairProducts(c2, pair(a2, q), b)
            c3 = Tier.addPairProducts(c3, pair(a3, q), b)
            w += 32
            q &+= 2
        }
        return (c0, c1, c2, c3)
    }

    /// 4 rows × 16 channels; rows ≥ `rows` are not stored.
    @inline(never)
    private static func tile4(a: UnsafePointer<Int16>, lda: Int, rows: Int, panel: UnsafePointer<Int16>, kPadded kp: Int,
                              c: UnsafeMutablePointer<Int32>, ldc: Int, width: Int) {
        let (c0, c1, c2, c3) = accumulate4(a: a, lda: lda, rows: rows, panel: panel, kPadded: kp)
        store(c0, 0, rows: rows, c: c, ldc: ldc, width: width); store(c1, 1, rows: rows, c: c, ldc: ldc, width: width)
        store(c2, 2, rows: rows, c: c, ldc: ldc, width: width); store(c3, 3, rows: rows, c: c, ldc: ldc, width: width)
    }

    /// `tile4` requantized to bytes (`multiplyRequantized`).
    @inline(never)
    private static func tile4Requantized(a: UnsafePointer<Int16>, lda: Int, rows: Int, panel: UnsafePointer<Int16>, kPadded kp: Int,
                                         _ e: Epilogue, output: UnsafeMutableRawPointer, ldo: Int, width: Int) {
        let (c0, c1, c2, c3) = accumulate4(a: a, lda: lda, rows: rows, panel: panel, kPadded: kp)
        put(c0, 0, rows: rows, e, output: output, ldo: ldo, width: width); put(c1, 1, rows: rows, e, output: output, ldo: ldo, width: width)
        put(c2, 2, rows: rows, e, output: output, ldo: ldo, width: width); put(c3, 3, rows: rows, e, output: output, ldo: ldo, width: width)
    }

    /// The 2 rows × 16 channels sums (SSE2: 8 xmm accumulators and the 4 quarters of a weight
    /// pair vector); row 1 re-reads row 0 when `rows` is 1.
    @inline(__always)
    private static func accumulate2(a: UnsafePointer<Int16>, lda: Int, rows: Int, panel: UnsafePointer<Int16>, kPadded kp: Int)
        -> (SIMD16<Int32>, SIMD16<Int32>) {
        let a0 = a, a1 = rows > 1 ? a + lda : a
        var c0 = SIMD16<Int32>(), c1 = c0
        var w = panel
        var q = 0
        while q < kp {
            let b = UnsafeRawPointer(w).loadUnaligned(as: SIMD32<Int16>.self)
            c0 = Tier.addPairProducts(c0, pair(a0, q), b)
            c1 = Tier.addPairProducts(c1, pair(a1, q), b)
            w += 32
            q &+= 2
        }
        return (c0, c1)
    }

    /// 2 rows × 16 channels; row 1 is not stored when `rows` is 1.
    @inline(never)
    private static func tile2(a: UnsafePointer<Int16>, lda: Int, rows: Int, panel: UnsafePointer<Int16>, kPadded kp: Int,
                              c: UnsafeMutablePointer<Int32>, ldc: Int, width: Int) {
        let (c0, c1) = accumulate2(a: a, lda: lda, rows: rows, panel: panel, kPadded: kp)
        store(c0, 0, rows: rows, c: c, ldc: ldc, width: width); store(c1, 1, rows: rows, c: c, ldc: ldc, width: width)
    }

    /// `tile2` requantized to bytes (`multiplyRequantized`).
    @inline(never)
    private static func tile2Requantized(a: UnsafePointer<Int16>, lda: Int, rows: Int, panel: UnsafePointer<Int16>, kPadded kp: Int,
                                         _ e: Epilogue, output: UnsafeMutableRawPointer, ldo: Int, width: Int) {
        let (c0, c1) = accumulate2(a: a, lda: lda, rows: rows, panel: panel, kPadded: kp)
        put(c0, 0, rows: rows, e, output: output, ldo: ldo, width: width); put(c1, 1, rows: rows, e, output: output, ldo: ldo, width: width)
    }
}
