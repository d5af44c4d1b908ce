#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

/// `LaneMath`'s lanes in this module.
typealias MathLanes = SIMD16<Float>
/// `TierDepthwise`'s channels per vector in this module.
typealias DepthwiseLanes = SIMD8<Float>

/// The baseline tier (SSE2 on x86-64, NEON on arm64): this module is compiled with no
/// instruction-set flags, so it runs on every CPU of its architecture, and holds the shared
/// kernels of `Sources/TierKernels/` at that instruction set. `SIMD16<Float>` is four xmm (or
/// NEON q) registers here, and there is no fused multiply-add.
///
/// It links every shared kernel of the interpreter's table but the float GEMM: at 16 lanes on
/// SSE2's 16 two-operand xmm registers its register tile shrinks, and it measured 1.4× slower
/// per layer than the interpreter's own 8-lane SSE2 kernel (`FloatGEMM`'s 6×8 / pre-broadcast
/// 5×8 tiles), which the baseline kernel table keeps for that entry. The float depthwise runs
/// here at 8 lanes (`DepthwiseLanes`; at 16 an 8-channel layer ran 4× slower). `TierJPEG` is not here either: the
/// image layer compiles it itself as its baseline (`JPEGTierKernels.swift`), because its
/// upsampler and block smoothing inline TierJPEG's lane helpers, which stayed calls across
/// the module boundary (decoding measured 3% slower).
///
/// The primitives below give the same values as the wide tiers' (the integer ones exactly, the
/// float ones with the same NaN rules): SSE2 intrinsics on x86-64 where portable Swift SIMD
/// compiled to slow code, portable SIMD (lane-wise compares and selects, even/odd halves)
/// elsewhere.
package enum Tier {
    /// The name `InstructionSetTier` and `OBJDETECT_ISA` use for this tier.
    #if arch(x86_64)
    package static let name = "sse2"
    #else
    package static let name = "neon"
    #endif
    /// Whether the tier has fused multiply-add (`Fused`): not at the baseline (its table never
    /// asks for fused kernels, on arm64 either).
    static let hasFusedMultiplyAdd = false
    /// Whether a partial vector load is one masked load (cheap inside a kernel's inner loop);
    /// without, kernels keep partial loads out of their loops over whole vectors.
    static let hasMaskedLoads = false
    #if arch(arm64)
    /// Rows of the integer GEMM register tile (× 16 channels): 16 of the 32 q registers.
    static let integerTileRows = 4
    #else
    /// Rows of the integer GEMM register tile (× 16 channels): 8 xmm accumulators and the
    /// four quarters of a weight vector (at 4 rows, 16 accumulators would not fit).
    static let integerTileRows = 2
    #endif

    /// `acc + (pair.lo · w[2j] + pair.hi · w[2j+1])` per channel j (`pmaddwd` + `paddd` on
    /// the four xmm quarters; elsewhere the even and odd weights widened and multiplied).
    @inline(__always)
    static func addPairProducts(_ acc: SIMD16<Int32>, _ pair: Int32, _ w: SIMD32<Int16>) -> SIMD16<Int32> {
        #if arch(x86_64)
        let splat = _mm_set1_epi32(pair)
        let q = unsafeBitCast(w, to: (__m128i, __m128i, __m128i, __m128i).self)
        let s = unsafeBitCast(acc, to: (__m128i, __m128i, __m128i, __m128i).self)
        return unsafeBitCast((_mm_add_epi32(s.0, _mm_madd_epi16(splat, q.0)), _mm_add_epi32(s.1, _mm_madd_epi16(splat, q.1)),
                              _mm_add_epi32(s.2, _mm_madd_epi16(splat, q.2)), _mm_add_epi32(s.3, _mm_madd_epi16(splat, q.3))),
                             to: SIMD16<Int32>.self)
        #else
        let lo = SIMD16<Int32>(repeating: (pair &<< 16) &>> 16), hi = SIMD16<Int32>(repeating: pair &>> 16)
        let even = SIMD16<Int32>(truncatingIfNeeded: w.evenHalf), odd = SIMD16<Int32>(truncatingIfNeeded: w.oddHalf)
        return acc &+ (even &* lo &+ odd &* hi)
        #endif
    }

    /// `min(max(v, lo), hi)` per lane, NaN kept (as `maxps`/`minps`, which return their second
    /// operand when one is NaN: `std::max(x, lo)` keeps x).
    @inline(__always)
    static func clamp(_ v: SIMD16<Float>, lo: SIMD16<Float>, hi: SIMD16<Float>) -> SIMD16<Float> {
        #if arch(x86_64)
        let x = unsafeBitCast(v, to: (__m128, __m128, __m128, __m128).self)
        let l = unsafeBitCast(lo, to: (__m128, __m128, __m128, __m128).self)
        let h = unsafeBitCast(hi, to: (__m128, __m128, __m128, __m128).self)
        return unsafeBitCast((_mm_min_ps(h.0, _mm_max_ps(l.0, x.0)), _mm_min_ps(h.1, _mm_max_ps(l.1, x.1)),
                              _mm_min_ps(h.2, _mm_max_ps(l.2, x.2)), _mm_min_ps(h.3, _mm_max_ps(l.3, x.3))),
                             to: SIMD16<Float>.self)
        #else
        // lo > v is false for a NaN v, so v stays; likewise hi < v.
        let above = v.replacing(with: lo, where: lo .> v)
        return above.replacing(with: hi, where: hi .< above)
        #endif
    }

    /// The smaller of `v` and `acc` per lane, `acc` where `v` is NaN (`minps` returns its
    /// second operand then), so a running minimum skips NaNs.
    @inline(__always)
    static func minimum(_ v: SIMD16<Float>, _ acc: SIMD16<Float>) -> SIMD16<Float> {
        #if arch(x86_64)
        let x = unsafeBitCast(v, to: (__m128, __m128, __m128, __m128).self)
        let a = unsafeBitCast(acc, to: (__m128, __m128, __m128, __m128).self)
        return unsafeBitCast((_mm_min_ps(x.0, a.0), _mm_min_ps(x.1, a.1), _mm_min_ps(x.2, a.2), _mm_min_ps(x.3, a.3)),
                             to: SIMD16<Float>.self)
        #else
        return acc.replacing(with: v, where: v .< acc)
        #endif
    }

    /// The larger of `v` and `acc` per lane, `acc` where `v` is NaN (`maxps`).
    @inline(__always)
    static func maximum(_ v: SIMD16<Float>, _ acc: SIMD16<Float>) -> SIMD16<Float> {
        #if arch(x86_64)
        let x = unsafeBitCast(v, to: (__m128, __m128, __m128, __m128).self)
        let a = unsafeBitCast(acc, to: (__m128, __m128, __m128, __m128).self)
        return unsafeBitCast((_mm_max_ps(x.0, a.0), _mm_max_ps(x.1, a.1), _mm_max_ps(x.2, a.2), _mm_max_ps(x.3, a.3)),
                             to: SIMD16<Float>.self)
        #else
        return acc.replacing(with: v, where: v .> acc)
        #endif
    }

    /// `round(clamp(v, lo, hi)) + shift` per lane, rounding half away from zero, NaN → `shift`
    /// (the hybrid input quantization's step): on x86-64 the AVX-512 tier's truncating
    /// formula with SSE2's `cvttps2dq` on each xmm quarter (NaN gives k = 0x8000_0000, left at
    /// the shift); elsewhere `TierMath.floatStepQuantum`, exact float steps around `clamp`.
    @inline(__always)
    static func quantum(_ v: SIMD16<Float>, lo: SIMD16<Float>, hi: SIMD16<Float>, shift: SIMD16<Int32>) -> SIMD16<Int32> {
        #if arch(x86_64)
        let c = unsafeBitCast(clamp(v, lo: lo, hi: hi), to: (__m128, __m128, __m128, __m128).self)
        let s = unsafeBitCast(shift, to: (__m128i, __m128i, __m128i, __m128i).self)
        let one = _mm_set1_epi32(1), nan = _mm_set1_epi32(Int32.min)
        @inline(__always) func quarter(_ c: __m128, _ s: __m128i) -> __m128i {
            let k = _mm_cvttps_epi32(_mm_add_ps(c, c))
            let r = _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(k, one), _mm_srai_epi32(k, 31)), 1)
            return _mm_add_epi32(s, _mm_andnot_si128(_mm_cmpeq_epi32(k, nan), r))
        }
        return unsafeBitCast((quarter(c.0, s.0), quarter(c.1, s.1), quarter(c.2, s.2), quarter(c.3, s.3)), to: SIMD16<Int32>.self)
        #else
        return TierMath.floatStepQuantum(v, lo: lo, hi: hi, shift: shift)
        #endif
    }

    /// `min(max(v, lo), hi)` per lane (SSE2 has no `pminsd`: compare and select by masks).
    @inline(__always)
    static func clamp(_ v: SIMD16<Int32>, lo: SIMD16<Int32>, hi: SIMD16<Int32>) -> SIMD16<Int32> {
        #if arch(x86_64)
        let x = unsafeBitCast(v, to: (__m128i, __m128i, __m128i, __m128i).self)
        let l = unsafeBitCast(lo, to: (__m128i, __m128i, __m128i, __m128i).self)
        let h = unsafeBitCast(hi, to: (__m128i, __m128i, __m128i, __m128i).self)
        @inline(__always) func one(_ x: __m128i, _ l: __m128i, _ h: __m128i) -> __m128i {
            let below = _mm_cmpgt_epi32(l, x)
            let t = _mm_or_si128(_mm_and_si128(below, l), _mm_andnot_si128(below, x))
            let above = _mm_cmpgt_epi32(t, h)
            return _mm_or_si128(_mm_and_si128(above, h), _mm_andnot_si128(above, t))
        }
        return unsafeBitCast((one(x.0, l.0, h.0), one(x.1, l.1, h.1), one(x.2, l.2, h.2), one(x.3, l.3, h.3)),
                             to: SIMD16<Int32>.self)
        #else
        let above = v.replacing(with: lo, where: v .< lo)
        return above.replacing(with: hi, where: above .> hi)
        #endif
    }

    // Partial vectors (`count` < 16) without masked loads and stores: SSE2 has none. A kernel
    // inlines these into its inner loops, so their common case is branch-free (more blocks in a
    // caller stop the inliner): for `count` a multiple of 4 (channel counts nearly always are),
    // quarter `i` is read from quarter `min(i, count / 4 − 1)` and masked off past `count`;
    // stores write quarter `count / 4 − 1` again in place of the missing ones. Other counts take
    // an out-of-line loop.

    /// Quarter indices clamped to the last whole quarter, and all-ones masks of those below `count`.
    @inline(__always)
    static func quarters(_ count: Int) -> (last: Int, m1: SIMD4<Int32>, m2: SIMD4<Int32>, m3: SIMD4<Int32>) {
        let k = count &>> 2
        @inline(__always) func below(_ i: Int) -> SIMD4<Int32> { SIMD4(repeating: Int32(truncatingIfNeeded: (i &- k) &>> 63)) }
        return (k &- 1, below(1), below(2), below(3))
    }

    /// `count` (≤ 16) 32-bit values from `p` (any 4-byte type), the other lanes 0.
    @inline(__always)
    static func loadLanes(_ p: UnsafeRawPointer, count: Int) -> SIMD16<Int32> {
        if count >= 16 { return p.loadUnaligned(as: SIMD16<Int32>.self) }
        guard count & 3 == 0, count > 0 else { return loadFew(p, count: count) }
        let q = quarters(count)
        @inline(__always) func quarter(_ i: Int) -> SIMD4<Int32> { p.loadUnaligned(fromByteOffset: 16 &* min(i, q.last), as: SIMD4<Int32>.self) }
        return unsafeBitCast((quarter(0), quarter(1) & q.m1, quarter(2) & q.m2, quarter(3) & q.m3), to: SIMD16<Int32>.self)
    }

    /// `loadLanes` for a count that is not a multiple of 4: one value at a time.
    @inline(never)
    static func loadFew(_ p: UnsafeRawPointer, count: Int) -> SIMD16<Int32> {
        var v = SIMD16<Int32>()
        for l in 0..<max(0, min(16, count)) { v[l] = p.loadUnaligned(fromByteOffset: 4 &* l, as: Int32.self) }
        return v
    }

    /// Stores the first `count` (≤ 16) 32-bit lanes of `v` at `p`.
    @inline(__always)
    static func storeLanes(_ v: SIMD16<Int32>, to p: UnsafeMutableRawPointer, count: Int) {
        if count >= 16 { p.storeBytes(of: v, as: SIMD16<Int32>.self); return }
        guard count & 3 == 0, count > 0 else { storeFew(v, to: p, count: count); return }
        let q = quarters(count)
        let v4 = unsafeBitCast(v, to: (SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>).self)
        // The last whole quarter, then each quarter or (past `count`) that one again, at its place.
        let last = q.last == 0 ? v4.0 : (q.last == 1 ? v4.1 : (q.last == 2 ? v4.2 : v4.3))
        @inline(__always) func pick(_ x: SIMD4<Int32>, _ m: SIMD4<Int32>) -> SIMD4<Int32> { (x & m) | (last & ~m) }
        p.storeBytes(of: v4.0, as: SIMD4<Int32>.self)
        p.storeBytes(of: pick(v4.1, q.m1), toByteOffset: 16 &* min(1, q.last), as: SIMD4<Int32>.self)
        p.storeBytes(of: pick(v4.2, q.m2), toByteOffset: 16 &* min(2, q.last), as: SIMD4<Int32>.self)
        p.storeBytes(of: pick(v4.3, q.m3), toByteOffset: 16 &* min(3, q.last), as: SIMD4<Int32>.self)
    }

    /// `storeLanes` for a count that is not a multiple of 4: one value at a time.
    @inline(never)
    static func storeFew(_ v: SIMD16<Int32>, to p: UnsafeMutableRawPointer, count: Int) {
        for l in 0..<max(0, min(16, count)) { p.storeBytes(of: v[l], toByteOffset: 4 &* l, as: Int32.self) }
    }

    /// `count` (≤ 16) Int32 values from `p`, the other lanes 0.
    @inline(__always)
    static func load(_ p: UnsafePointer<Int32>, count: Int) -> SIMD16<Int32> { loadLanes(UnsafeRawPointer(p), count: count) }

    /// Stores the low bytes of the first `count` (≤ 16) lanes at `p`.
    @inline(__always)
    static func storeLowBytes(_ v: SIMD16<Int32>, to p: UnsafeMutableRawPointer, count: Int) {
        #if arch(x86_64)
        // Values are 8-bit results (in -128...255): pack to Int16 exactly, keep each low byte.
        let q = unsafeBitCast(v, to: (__m128i, __m128i, __m128i, __m128i).self)
        let low = _mm_set1_epi16(0xFF)
        let packed = _mm_packus_epi16(_mm_and_si128(_mm_packs_epi32(q.0, q.1), low), _mm_and_si128(_mm_packs_epi32(q.2, q.3), low))
        let bytes = unsafeBitCast(packed, to: SIMD16<UInt8>.self)
        #else
        let bytes = SIMD16<UInt8>(truncatingIfNeeded: v)
        #endif
        if count >= 16 { p.storeBytes(of: bytes, as: SIMD16<UInt8>.self); return }
        storeFewBytes(bytes, to: p, count: count)
    }

    /// The first `count` (< 16) bytes of `bytes` at `p`.
    @inline(never)
    static func storeFewBytes(_ bytes: SIMD16<UInt8>, to p: UnsafeMutableRawPointer, count: Int) {
        var l = 0
        if count >= 8 { p.storeBytes(of: bytes.lowHalf, as: SIMD8<UInt8>.self); l = 8 }
        while l < count { p.storeBytes(of: bytes[l], toByteOffset: l, as: UInt8.self); l &+= 1 }
    }

    /// Int32 lanes to floats (`cvtdq2ps`, round to nearest).
    @inline(__always)
    static func toFloat(_ v: SIMD16<Int32>) -> SIMD16<Float> {
        #if arch(x86_64)
        let q = unsafeBitCast(v, to: (__m128i, __m128i, __m128i, __m128i).self)
        return unsafeBitCast((_mm_cvtepi32_ps(q.0), _mm_cvtepi32_ps(q.1), _mm_cvtepi32_ps(q.2), _mm_cvtepi32_ps(q.3)),
                             to: SIMD16<Float>.self)
        #else
        return SIMD16<Float>(v)
        #endif
    }

    /// `count` (≤ 16) floats from `p`, the other lanes 0.
    @inline(__always)
    static func load(_ p: UnsafePointer<Float>, count: Int) -> SIMD16<Float> {
        unsafeBitCast(loadLanes(UnsafeRawPointer(p), count: count), to: SIMD16<Float>.self)
    }

    /// Stores the first `count` (≤ 16) lanes of `v` at `p`.
    @inline(__always)
    static func store(_ v: SIMD16<Float>, to p: UnsafeMutablePointer<Float>, count: Int) {
        storeLanes(unsafeBitCast(v, to: SIMD16<Int32>.self), to: UnsafeMutableRawPointer(p), count: count)
    }

    /// 16 bytes at `p` as `Int32` lanes, sign- or zero-extended (SSE2 unpacks: bytes to words
    /// to double words, then an arithmetic shift for the signed case); with `count` < 16 only
    /// that many bytes are read, the other lanes are 0.
    @inline(__always)
    static func widenBytes(_ p: UnsafeRawPointer, count: Int, signed: Bool) -> SIMD16<Int32> {
        let bytes = count >= 16 ? p.loadUnaligned(as: SIMD16<UInt8>.self) : fewBytes(p, count: count)
        #if arch(x86_64)
        let x = unsafeBitCast(bytes, to: __m128i.self)
        if signed {
            // Each byte in the top byte of its 32-bit lane, then shifted down with its sign.
            let words0 = _mm_unpacklo_epi8(x, x), words1 = _mm_unpackhi_epi8(x, x)
            return unsafeBitCast((_mm_srai_epi32(_mm_unpacklo_epi16(words0, words0), 24),
                                  _mm_srai_epi32(_mm_unpackhi_epi16(words0, words0), 24),
                                  _mm_srai_epi32(_mm_unpacklo_epi16(words1, words1), 24),
                                  _mm_srai_epi32(_mm_unpackhi_epi16(words1, words1), 24)), to: SIMD16<Int32>.self)
        }
        let zero = _mm_setzero_si128()
        let words0 = _mm_unpacklo_epi8(x, zero), words1 = _mm_unpackhi_epi8(x, zero)
        return unsafeBitCast((_mm_unpacklo_epi16(words0, zero), _mm_unpackhi_epi16(words0, zero),
                              _mm_unpacklo_epi16(words1, zero), _mm_unpackhi_epi16(words1, zero)), to: SIMD16<Int32>.self)
        #else
        if signed { return SIMD16<Int32>(truncatingIfNeeded: unsafeBitCast(bytes, to: SIMD16<Int8>.self)) }
        return SIMD16<Int32>(truncatingIfNeeded: bytes)
        #endif
    }

    /// The first `count` (< 16) bytes at `p`, the others 0.
    @inline(never)
    static func fewBytes(_ p: UnsafeRawPointer, count: Int) -> SIMD16<UInt8> {
        var low: UInt64 = 0, high: UInt64 = 0, l = 0
        if count >= 8 { low = p.loadUnaligned(as: UInt64.self); l = 8 }
        while l < count {
            let byte = UInt64(p.load(fromByteOffset: l, as: UInt8.self))
            if l < 8 { low |= byte &<< UInt64(8 &* l) } else { high |= byte &<< UInt64(8 &* (l &- 8)) }
            l &+= 1
        }
        return unsafeBitCast((low, high), to: SIMD16<UInt8>.self)
    }

    /// `acc + x.lo16 · w.lo16 + x.hi16 · w.hi16` per Int32 lane (signed 16-bit halves):
    /// `pmaddwd` + `paddd` on the four xmm quarters; elsewhere the halves split by shifts.
    @inline(__always)
    static func addLowProducts(_ acc: SIMD16<Int32>, _ x: SIMD16<Int32>, _ w: SIMD16<Int32>) -> SIMD16<Int32> {
        #if arch(x86_64)
        let xs = unsafeBitCast(x, to: (__m128i, __m128i, __m128i, __m128i).self)
        let ws = unsafeBitCast(w, to: (__m128i, __m128i, __m128i, __m128i).self)
        let s = unsafeBitCast(acc, to: (__m128i, __m128i, __m128i, __m128i).self)
        return unsafeBitCast((_mm_add_epi32(s.0, _mm_madd_epi16(xs.0, ws.0)), _mm_add_epi32(s.1, _mm_madd_epi16(xs.1, ws.1)),
                              _mm_add_epi32(s.2, _mm_madd_epi16(xs.2, ws.2)), _mm_add_epi32(s.3, _mm_madd_epi16(xs.3, ws.3))),
                             to: SIMD16<Int32>.self)
        #else
        let xl = (x &<< 16) &>> 16, wl = (w &<< 16) &>> 16
        return acc &+ (xl &* wl &+ (x &>> 16) &* (w &>> 16))
        #endif
    }
}
