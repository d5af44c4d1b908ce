import _Builtin_intrinsics.intel

/// `LaneMath`'s lanes in this module.
typealias MathLanes = SIMD16<Float>
/// `TierDepthwise`'s channels per vector in this module.
typealias DepthwiseLanes = SIMD16<Float>

/// The AVX2 + FMA tier (x86-64-v3): this module is compiled with `-march=x86-64-v3`, and
/// holds the shared wide-tier kernels of `Sources/TierKernels/` at that instruction set.
/// `SIMD16<Float>` is two ymm registers here.
package enum Tier {
    /// The name `InstructionSetTier` and `OBJDETECT_ISA` use for this tier.
    package static let name = "avx2"
    /// Whether the tier has fused multiply-add (`Fused`).
    static let hasFusedMultiplyAdd = true
    /// Whether a partial vector load is one masked load (cheap inside a kernel's inner loop);
    /// without, kernels keep partial loads out of their loops over whole vectors.
    static let hasMaskedLoads = false
    /// Rows of the float GEMM register tile: 6 × 16 columns = 12 ymm accumulators.
    static let floatTileRows = 6
    /// Rows of the integer GEMM register tile (× 16 channels).
    static let integerTileRows = 4

    /// `acc + (pair.lo · w[2j] + pair.hi · w[2j+1])` per channel j: `vpmaddwd` + `vpaddd` on
    /// both ymm halves.
    @inline(__always)
    static func addPairProducts(_ acc: SIMD16<Int32>, _ pair: Int32, _ w: SIMD32<Int16>) -> SIMD16<Int32> {
        let splat = _mm256_set1_epi32(pair)
        let halves = unsafeBitCast(w, to: (__m256i, __m256i).self)
        let sums = unsafeBitCast(acc, to: (__m256i, __m256i).self)
        return unsafeBitCast((_mm256_add_epi32(sums.0, _mm256_madd_epi16(splat, halves.0)),
                              _mm256_add_epi32(sums.1, _mm256_madd_epi16(splat, halves.1))), to: SIMD16<Int32>.self)
    }

    /// `min(max(v, lo), hi)` per lane, NaN kept (`vmaxps`/`vminps` return their second
    /// operand when one is NaN, as `std::max(x, lo)` keeps x).
    @inline(__always)
    static func clamp(_ v: SIMD16<Float>, lo: SIMD16<Float>, hi: SIMD16<Float>) -> SIMD16<Float> {
        let x = unsafeBitCast(v, to: (__m256, __m256).self)
        let l = unsafeBitCast(lo, to: (__m256, __m256).self), h = unsafeBitCast(hi, to: (__m256, __m256).self)
        return unsafeBitCast((_mm256_min_ps(h.0, _mm256_max_ps(l.0, x.0)), _mm256_min_ps(h.1, _mm256_max_ps(l.1, x.1))),
                             to: SIMD16<Float>.self)
    }

    /// The smaller of `v` and `acc` per lane, `acc` where `v` is NaN (`vminps` returns its
    /// second operand then), so a running minimum skips NaNs.
    @inline(__always)
    static func minimum(_ v: SIMD16<Float>, _ acc: SIMD16<Float>) -> SIMD16<Float> {
        let x = unsafeBitCast(v, to: (__m256, __m256).self), a = unsafeBitCast(acc, to: (__m256, __m256).self)
        return unsafeBitCast((_mm256_min_ps(x.0, a.0), _mm256_min_ps(x.1, a.1)), to: SIMD16<Float>.self)
    }

    /// The larger of `v` and `acc` per lane, `acc` where `v` is NaN (`vmaxps`).
    @inline(__always)
    static func maximum(_ v: SIMD16<Float>, _ acc: SIMD16<Float>) -> SIMD16<Float> {
        let x = unsafeBitCast(v, to: (__m256, __m256).self), a = unsafeBitCast(acc, to: (__m256, __m256).self)
        return unsafeBitCast((_mm256_max_ps(x.0, a.0), _mm256_max_ps(x.1, a.1)), to: SIMD16<Float>.self)
    }

    /// `round(clamp(v, lo, hi)) + shift` per lane, rounding half away from zero, NaN → `shift`
    /// (the hybrid input quantization's step): the AVX-512 tier's truncating formula (derived there) on both
    /// ymm halves, k = trunc(2c) (`vcvttps2dq`), (k + [k ≥ 0]) >> 1, and the lanes where k is
    /// 0x8000_0000 (NaN; no other lane gets it) left at the shift.
    @inline(__always)
    static func quantum(_ v: SIMD16<Float>, lo: SIMD16<Float>, hi: SIMD16<Float>, shift: SIMD16<Int32>) -> SIMD16<Int32> {
        let c = unsafeBitCast(clamp(v, lo: lo, hi: hi), to: (__m256, __m256).self)
        let s = unsafeBitCast(shift, to: (__m256i, __m256i).self)
        let one = _mm256_set1_epi32(1), nan = _mm256_set1_epi32(Int32.min)
        @inline(__always) func half(_ c: __m256, _ s: __m256i) -> __m256i {
            let k = _mm256_cvttps_epi32(_mm256_add_ps(c, c))
            let r = _mm256_srai_epi32(_mm256_add_epi32(_mm256_add_epi32(k, one), _mm256_srai_epi32(k, 31)), 1)
            return _mm256_add_epi32(s, _mm256_andnot_si256(_mm256_cmpeq_epi32(k, nan), r))
        }
        return unsafeBitCast((half(c.0, s.0), half(c.1, s.1)), to: SIMD16<Int32>.self)
    }

    /// `min(max(v, lo), hi)` per lane.
    @inline(__always)
    static func clamp(_ v: SIMD16<Int32>, lo: SIMD16<Int32>, hi: SIMD16<Int32>) -> SIMD16<Int32> {
        let x = unsafeBitCast(v, to: (__m256i, __m256i).self)
        let l = unsafeBitCast(lo, to: (__m256i, __m256i).self), h = unsafeBitCast(hi, to: (__m256i, __m256i).self)
        return unsafeBitCast((_mm256_min_epi32(h.0, _mm256_max_epi32(l.0, x.0)), _mm256_min_epi32(h.1, _mm256_max_epi32(l.1, x.1))),
                             to: SIMD16<Int32>.self)
    }

    /// `count` (≤ 16) Int32 values from `p`, the other lanes 0.
    @inline(__always)
    static func load(_ p: UnsafePointer<Int32>, count: Int) -> SIMD16<Int32> {
        if count >= 16 { return UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Int32>.self) }
        var v = SIMD16<Int32>()
        for l in 0..<count { v[l] = p[l] }
        return v
    }

    /// Stores the low bytes of the first `count` (≤ 16) lanes at `p`.
    @inline(__always)
    static func storeLowBytes(_ v: SIMD16<Int32>, to p: UnsafeMutableRawPointer, count: Int) {
        // Values are 8-bit results (in -128...255): pack to Int16 exactly, keep each low byte.
        let q = unsafeBitCast(v, to: (__m128i, __m128i, __m128i, __m128i).self)
        let low = _mm_set1_epi16(0xFF)
        let packed = _mm_packus_epi16(_mm_and_si128(_mm_packs_epi32(q.0, q.1), low), _mm_and_si128(_mm_packs_epi32(q.2, q.3), low))
        let bytes = unsafeBitCast(packed, to: SIMD16<UInt8>.self)
        if count >= 16 { p.storeBytes(of: bytes, as: SIMD16<UInt8>.self); return }
        for l in 0..<count { p.storeBytes(of: bytes[l], toByteOffset: l, as: UInt8.self) }
    }

    /// Int32 lanes to floats (`vcvtdq2ps`, round to nearest); written with the intrinsic so no
    /// generic specialization is emitted (a weak symbol the other tier module would share).
    @inline(__always)
    static func toFloat(_ v: SIMD16<Int32>) -> SIMD16<Float> {
        let halves = unsafeBitCast(v, to: (__m256i, __m256i).self)
        return unsafeBitCast((_mm256_cvtepi32_ps(halves.0), _mm256_cvtepi32_ps(halves.1)), to: SIMD16<Float>.self)
    }

    /// Lanes `0..<count` of two ymm masks (all ones where the lane index is below `count`).
    @inline(__always)
    static func laneMasks(_ count: Int) -> (__m256i, __m256i) {
        let n = Int32(truncatingIfNeeded: count)
        let low = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7) &- SIMD8(repeating: n)
        let high = SIMD8<Int32>(8, 9, 10, 11, 12, 13, 14, 15) &- SIMD8(repeating: n)
        return (unsafeBitCast(low &>> 31, to: __m256i.self), unsafeBitCast(high &>> 31, to: __m256i.self))
    }

    /// `count` (≤ 16) floats from `p`, the other lanes 0 (`vmaskmovps`).
    @inline(__always)
    static func load(_ p: UnsafePointer<Float>, count: Int) -> SIMD16<Float> {
        let (m0, m1) = laneMasks(count)
        return unsafeBitCast((_mm256_maskload_ps(p, m0), _mm256_maskload_ps(p + 8, m1)), to: SIMD16<Float>.self)
    }

    /// Stores the first `count` (≤ 16) lanes of `v` at `p` (`vmaskmovps`).
    @inline(__always)
    static func store(_ v: SIMD16<Float>, to p: UnsafeMutablePointer<Float>, count: Int) {
        let (m0, m1) = laneMasks(count)
        let halves = unsafeBitCast(v, to: (__m256, __m256).self)
        _mm256_maskstore_ps(p, m0, halves.0)
        _mm256_maskstore_ps(p + 8, m1, halves.1)
    }

    /// `table[index[l]]` per lane; every index must be in the table.
    @inline(__always)
    static func gather(_ table: UnsafePointer<Int32>, _ index: SIMD16<Int32>) -> SIMD16<Int32> {
        var v = SIMD16<Int32>()
        for l in 0..<16 { v[l] = table[Int(index[l])] }
        return v
    }

    /// 16 bytes at `p` as `Int32` lanes, sign- or zero-extended (`vpmovsxbd`/`vpmovzxbd` of
    /// two 8-byte loads); with `count` < 16 only that many bytes are read, the other lanes are 0.
    @inline(__always)
    static func widenBytes(_ p: UnsafeRawPointer, count: Int, signed: Bool) -> SIMD16<Int32> {
        let low: __m128i, high: __m128i
        if count >= 16 {
            low = _mm_cvtsi64_si128(p.loadUnaligned(as: Int64.self))
            high = _mm_cvtsi64_si128(p.loadUnaligned(fromByteOffset: 8, as: Int64.self))
        } else {
            var v = SIMD16<UInt8>()
            for l in 0..<count { v[l] = p.load(fromByteOffset: l, as: UInt8.self) }
            low = unsafeBitCast(v, to: __m128i.self)
            high = _mm_unpackhi_epi64(low, low)
        }
        if signed { return unsafeBitCast((_mm256_cvtepi8_epi32(low), _mm256_cvtepi8_epi32(high)), to: SIMD16<Int32>.self) }
        return unsafeBitCast((_mm256_cvtepu8_epi32(low), _mm256_cvtepu8_epi32(high)), to: SIMD16<Int32>.self)
    }

    /// `acc + x.lo16 · w.lo16 + x.hi16 · w.hi16` per Int32 lane (signed 16-bit halves):
    /// `vpmaddwd` + `vpaddd` on both ymm halves.
    @inline(__always)
    static func addLowProducts(_ acc: SIMD16<Int32>, _ x: SIMD16<Int32>, _ w: SIMD16<Int32>) -> SIMD16<Int32> {
        let xs = unsafeBitCast(x, to: (__m256i, __m256i).self), ws = unsafeBitCast(w, to: (__m256i, __m256i).self)
        let sums = unsafeBitCast(acc, to: (__m256i, __m256i).self)
        return unsafeBitCast((_mm256_add_epi32(sums.0, _mm256_madd_epi16(xs.0, ws.0)),
                              _mm256_add_epi32(sums.1, _mm256_madd_epi16(xs.1, ws.1))), to: SIMD16<Int32>.self)
    }
}
