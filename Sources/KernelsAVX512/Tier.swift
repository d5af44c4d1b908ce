import _Builtin_intrinsics.intel

/// `LaneMath`'s lanes in this module.
typealias MathLanes = SIMD16<Float>
/// `TierDepthwise`'s channels per vector in this module.
typealias DepthwiseLanes = SIMD16<Float>

/// The AVX-512 tier (x86-64-v4: AVX-512 F/BW/CD/DQ/VL, plus VNNI): this module is compiled
/// with `-march=x86-64-v4 -mavx512vnni`, and holds the shared wide-tier kernels of
/// `Sources/TierKernels/` at that instruction set. `SIMD16<Float>` is one zmm register here.
package enum Tier {
    /// The name `InstructionSetTier` and `OBJDETECT_ISA` use for this tier.
    package static let name = "avx512"
    /// Whether the tier has fused multiply-add (`Fused`).
    static let hasFusedMultiplyAdd = true
    /// Whether a partial vector load is one masked load (cheap inside a kernel's inner loop);
    /// without, kernels keep partial loads out of their loops over whole vectors.
    static let hasMaskedLoads = true
    /// Rows of the float GEMM register tile: 8 × 16 columns = 8 zmm accumulators.
    static let floatTileRows = 8
    /// Rows of the integer GEMM register tile (× 16 channels).
    static let integerTileRows = 8

    /// `acc + (pair.lo · w[2j] + pair.hi · w[2j+1])` per channel j: one `vpdpwssd` (VNNI).
    @inline(__always)
    static func addPairProducts(_ acc: SIMD16<Int32>, _ pair: Int32, _ w: SIMD32<Int16>) -> SIMD16<Int32> {
        unsafeBitCast(_mm512_dpwssd_epi32(unsafeBitCast(acc, to: __m512i.self), _mm512_set1_epi32(pair),
                                          unsafeBitCast(w, to: __m512i.self)), to: SIMD16<Int32>.self)
    }

    /// `min(max(v, lo), hi)` per lane, NaN kept (`vmaxps`/`vminps` return their second
    /// operand when one is NaN, as `std::max(x, lo)` keeps x).
    @inline(__always)
    static func clamp(_ v: SIMD16<Float>, lo: SIMD16<Float>, hi: SIMD16<Float>) -> SIMD16<Float> {
        _mm512_min_ps(hi, _mm512_max_ps(lo, v))   // __m512 is SIMD16<Float>
    }

    /// The smaller of `v` and `acc` per lane, `acc` where `v` is NaN (`vminps` returns its
    /// second operand then), so a running minimum skips NaNs.
    @inline(__always)
    static func minimum(_ v: SIMD16<Float>, _ acc: SIMD16<Float>) -> SIMD16<Float> { _mm512_min_ps(v, acc) }

    /// The larger of `v` and `acc` per lane, `acc` where `v` is NaN (`vmaxps`).
    @inline(__always)
    static func maximum(_ v: SIMD16<Float>, _ acc: SIMD16<Float>) -> SIMD16<Float> { _mm512_max_ps(v, acc) }

    /// `round(clamp(v, lo, hi)) + shift` per lane, rounding half away from zero, NaN → `shift`
    /// (the hybrid input quantization's step, `TierHybrid.quantize`; `lo`, `hi` integers with
    /// |·| < 2²²), from one truncating conversion: with c the clamped value, 2c is exact and
    /// k = trunc(2c) (`vcvttps2dq`); for c ≥ 0, round(c) = ⌊c + ½⌋ = ⌊(⌊2c⌋ + 1) / 2⌋ =
    /// (k + 1) >> 1, and for c < 0, −⌊(−k + 1) / 2⌋ = −⌈−k / 2⌉ = ⌊k / 2⌋ = k >> 1; so
    /// (k + 1 + (k >> 31)) >> 1 with arithmetic shifts. A NaN gives k = 0x8000_0000, the only
    /// k whose low 31 bits are all 0 besides 0 itself (whose result, 0, the shift alone is).
    @inline(__always)
    static func quantum(_ v: SIMD16<Float>, lo: SIMD16<Float>, hi: SIMD16<Float>, shift: SIMD16<Int32>) -> SIMD16<Int32> {
        let c = clamp(v, lo: lo, hi: hi)
        let k = _mm512_cvttps_epi32(_mm512_add_ps(c, c))
        let r = _mm512_srai_epi32(_mm512_add_epi32(_mm512_add_epi32(k, _mm512_set1_epi32(1)), _mm512_srai_epi32(k, 31)), 1)
        let number = _mm512_test_epi32_mask(k, _mm512_set1_epi32(0x7FFF_FFFF))
        let s = unsafeBitCast(shift, to: __m512i.self)
        return unsafeBitCast(_mm512_mask_add_epi32(s, number, r, s), to: SIMD16<Int32>.self)
    }

    /// `min(max(v, lo), hi)` per lane.
    @inline(__always)
    static func clamp(_ v: SIMD16<Int32>, lo: SIMD16<Int32>, hi: SIMD16<Int32>) -> SIMD16<Int32> {
        unsafeBitCast(_mm512_min_epi32(unsafeBitCast(hi, to: __m512i.self),
                                       _mm512_max_epi32(unsafeBitCast(lo, to: __m512i.self), unsafeBitCast(v, to: __m512i.self))),
                      to: SIMD16<Int32>.self)
    }

    /// `count` (≤ 16) Int32 values from `p`, the other lanes 0 (one masked load).
    @inline(__always)
    static func load(_ p: UnsafePointer<Int32>, count: Int) -> SIMD16<Int32> {
        let mask = __mmask16(truncatingIfNeeded: (1 << count) - 1)
        return unsafeBitCast(_mm512_maskz_loadu_epi32(mask, p), to: SIMD16<Int32>.self)
    }

    /// Stores the low bytes of the first `count` (≤ 16) lanes at `p`: `vpmovdb` into a register,
    /// then one store (masked for a partial row). The memory form of `vpmovdb` is much slower
    /// on AMD Zen 4/5.
    @inline(__always)
    static func storeLowBytes(_ v: SIMD16<Int32>, to p: UnsafeMutableRawPointer, count: Int) {
        let bytes = _mm512_cvtepi32_epi8(unsafeBitCast(v, to: __m512i.self))
        if count == 16 {
            p.storeBytes(of: bytes, as: __m128i.self)
        } else {
            _mm_mask_storeu_epi8(p, __mmask16(truncatingIfNeeded: (1 << count) - 1), bytes)
        }
    }

    /// Int32 lanes to floats (`vcvtdq2ps`, round to nearest); written with the intrinsic so no
    /// generic specialization is emitted (a weak symbol the other tier module would share).
    @inline(__always)
    static func toFloat(_ v: SIMD16<Int32>) -> SIMD16<Float> {
        _mm512_cvtepi32_ps(unsafeBitCast(v, to: __m512i.self))
    }

    /// `count` (≤ 16) floats from `p`, the other lanes 0 (one masked load).
    @inline(__always)
    static func load(_ p: UnsafePointer<Float>, count: Int) -> SIMD16<Float> {
        _mm512_maskz_loadu_ps(__mmask16(truncatingIfNeeded: (1 << count) - 1), p)
    }

    /// Stores the first `count` (≤ 16) lanes of `v` at `p` (one masked store).
    @inline(__always)
    static func store(_ v: SIMD16<Float>, to p: UnsafeMutablePointer<Float>, count: Int) {
        _mm512_mask_storeu_ps(p, __mmask16(truncatingIfNeeded: (1 << count) - 1), v)
    }

    /// `table[index[l]]` per lane; every index must be in the table.
    @inline(__always)
    static func gather(_ table: UnsafePointer<Int32>, _ index: SIMD16<Int32>) -> SIMD16<Int32> {
        var v = SIMD16<Int32>()
        for l in 0..<16 { v[l] = table[Int(index[l])] }
        return v
    }

    /// 16 bytes at `p` as `Int32` lanes, sign- or zero-extended (`vpmovsxbd`/`vpmovzxbd`); with
    /// `count` < 16 only that many bytes are read (masked load), the other lanes are 0.
    @inline(__always)
    static func widenBytes(_ p: UnsafeRawPointer, count: Int, signed: Bool) -> SIMD16<Int32> {
        let bytes = count >= 16 ? unsafeBitCast(p.loadUnaligned(as: SIMD16<UInt8>.self), to: __m128i.self)
            : _mm_maskz_loadu_epi8(__mmask16(truncatingIfNeeded: (1 << max(0, count)) - 1), p)
        return unsafeBitCast(signed ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes), to: SIMD16<Int32>.self)
    }

    /// `acc + x.lo16 · w.lo16 + x.hi16 · w.hi16` per Int32 lane (signed 16-bit halves): one
    /// `vpdpwssd` (VNNI).
    @inline(__always)
    static func addLowProducts(_ acc: SIMD16<Int32>, _ x: SIMD16<Int32>, _ w: SIMD16<Int32>) -> SIMD16<Int32> {
        unsafeBitCast(_mm512_dpwssd_epi32(unsafeBitCast(acc, to: __m512i.self), unsafeBitCast(x, to: __m512i.self),
                                          unsafeBitCast(w, to: __m512i.self)), to: SIMD16<Int32>.self)
    }
}
