#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

/// The JPEG decoder's pixel kernels: libjpeg's accurate integer IDCT ("islow", `jidctint.c`)
/// over a row of blocks and its YCbCr → RGB conversion (`jdcolor.c`), written once and compiled
/// at every tier: DetectorCore links this file as its baseline (SSE2), `KernelsAVX2` and
/// `KernelsAVX512` compile it with their instruction sets (`vpmulld`, ymm lanes). The integer
/// arithmetic is the same at every tier, so the pixels are identical; DetectorCore's
/// `JPEGIDCT.referenceTransform` and the table-based colour conversion are the test oracles.
///
/// No generic SIMD conversion or `clamped(lowerBound:upperBound:)` here: the compiler left
/// them as outlined calls (7% of a decode). Widening and narrowing use SSE2 unpacks and packs
/// (`widen`, `saturatedBytes`), which every x86-64 tier has; lane-by-lane code was scalarised.
package enum TierJPEG {
    /// IDCT of `count` blocks stored one after another (64 coefficients each, natural order),
    /// block `i` written to columns `8i...8i+7` of the 8 rows at `output` (`stride` bytes apart).
    package static func idctBlocks(_ coefficients: UnsafePointer<Int16>, count: Int, quant: UnsafePointer<Int32>,
                                   output: UnsafeMutablePointer<UInt8>, stride: Int) {
        var i = 0
        while i < count {
            idct(coefficients + i &* 64, quant: quant, output: output + i &* 8, stride: stride)
            i &+= 1
        }
    }

    /// The islow IDCT of one block: both 1-D passes on `SIMD8<Int32>` (eight columns, then
    /// eight rows at once, with two 8x8 transposes), wrapping arithmetic as in libjpeg's
    /// 32-bit builds and SIMD code; a block with no AC terms is flat.
    @inline(__always)
    package static func idct(_ c: UnsafePointer<Int16>, quant q: UnsafePointer<Int32>,
                             output: UnsafeMutablePointer<UInt8>, stride: Int) {
        let raw = UnsafeRawPointer(c)
        @inline(__always) func load(_ k: Int) -> SIMD8<Int16> { raw.loadUnaligned(fromByteOffset: 16 &* k, as: SIMD8<Int16>.self) }
        let c0 = load(0), c1 = load(1), c2 = load(2), c3 = load(3), c4 = load(4), c5 = load(5), c6 = load(6), c7 = load(7)
        // Whole block DC-only: a flat block.
        let acTerms = unsafeBitCast((c0 & SIMD8<Int16>(0, -1, -1, -1, -1, -1, -1, -1)) | c1 | c2 | c3 | c4 | c5 | c6 | c7,
                                    to: SIMD2<UInt64>.self)
        if acTerms[0] | acTerms[1] == 0 {
            let dc = Int(c[0]) &* Int(q[0])
            let value = rangeLimit(Int32(truncatingIfNeeded: ((dc &* 4) &+ 16) &>> 5))
            let row = UInt64(value) &* 0x0101_0101_0101_0101
            for r in 0..<8 { UnsafeMutableRawPointer(output + r &* stride).storeBytes(of: row, as: UInt64.self) }
            return
        }
        @inline(__always) func row(_ v: SIMD8<Int16>, _ k: Int) -> SIMD8<Int32> {
            widen(v) &* UnsafeRawPointer(q + 8 &* k).loadUnaligned(as: SIMD8<Int32>.self)
        }
        let round1 = SIMD8<Int32>(repeating: 1 << 10)
        let zero = SIMD8<Int32>()
        // All AC terms inside the top-left 4x4 (common): rows 4...7 of the coefficients and,
        // after the first pass, columns 4...7 are zero, so both passes run with those inputs
        // as constant zeros (the same integers, with the terms that are 0 folded away).
        let right = unsafeBitCast((c0 | c1 | c2 | c3) & SIMD8<Int16>(0, 0, 0, 0, -1, -1, -1, -1), to: SIMD2<UInt64>.self)
        let lower = unsafeBitCast(c4 | c5 | c6 | c7, to: SIMD2<UInt64>.self)
        let z: (SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>)
        if right[1] | lower[0] | lower[1] == 0 {
            let y = oneD(row(c0, 0), row(c1, 1), row(c2, 2), row(c3, 3), zero, zero, zero, zero)
            let w = transpose((y.0 &+ round1) &>> 11, (y.1 &+ round1) &>> 11, (y.2 &+ round1) &>> 11, (y.3 &+ round1) &>> 11,
                              (y.4 &+ round1) &>> 11, (y.5 &+ round1) &>> 11, (y.6 &+ round1) &>> 11, (y.7 &+ round1) &>> 11)
            z = oneD(w.0, w.1, w.2, w.3, zero, zero, zero, zero)
        } else {
            let y = oneD(row(c0, 0), row(c1, 1), row(c2, 2), row(c3, 3), row(c4, 4), row(c5, 5), row(c6, 6), row(c7, 7))
            let w = transpose((y.0 &+ round1) &>> 11, (y.1 &+ round1) &>> 11, (y.2 &+ round1) &>> 11, (y.3 &+ round1) &>> 11,
                              (y.4 &+ round1) &>> 11, (y.5 &+ round1) &>> 11, (y.6 &+ round1) &>> 11, (y.7 &+ round1) &>> 11)
            z = oneD(w.0, w.1, w.2, w.3, w.4, w.5, w.6, w.7)
        }
        let round2 = SIMD8<Int32>(repeating: 1 << 17)
        let o = transpose(rangeLimit((z.0 &+ round2) &>> 18), rangeLimit((z.1 &+ round2) &>> 18),
                          rangeLimit((z.2 &+ round2) &>> 18), rangeLimit((z.3 &+ round2) &>> 18),
                          rangeLimit((z.4 &+ round2) &>> 18), rangeLimit((z.5 &+ round2) &>> 18),
                          rangeLimit((z.6 &+ round2) &>> 18), rangeLimit((z.7 &+ round2) &>> 18))
        @inline(__always) func store(_ v: SIMD8<Int32>, _ r: Int) {
            UnsafeMutableRawPointer(output + r &* stride).storeBytes(of: saturatedBytes(v), as: SIMD8<UInt8>.self)
        }
        store(o.0, 0); store(o.1, 1); store(o.2, 2); store(o.3, 3)
        store(o.4, 4); store(o.5, 5); store(o.6, 6); store(o.7, 7)
    }

    /// Sign-extends eight 16-bit lanes (SSE2 unpack + arithmetic shift: lane by lane, the
    /// compiler rebuilt the vectors from scalar loads).
    @inline(__always)
    package static func widen(_ v: SIMD8<Int16>) -> SIMD8<Int32> {
        #if arch(x86_64)
        let x = unsafeBitCast(v, to: __m128i.self)
        let low = _mm_srai_epi32(_mm_unpacklo_epi16(x, x), 16), high = _mm_srai_epi32(_mm_unpackhi_epi16(x, x), 16)
        return unsafeBitCast((low, high), to: SIMD8<Int32>.self)
        #else
        return SIMD8<Int32>(Int32(v[0]), Int32(v[1]), Int32(v[2]), Int32(v[3]), Int32(v[4]), Int32(v[5]), Int32(v[6]), Int32(v[7]))
        #endif
    }

    /// Zero-extends eight bytes.
    @inline(__always)
    package static func widen(_ v: SIMD8<UInt8>) -> SIMD8<Int32> {
        SIMD8<Int32>(Int32(v[0]), Int32(v[1]), Int32(v[2]), Int32(v[3]), Int32(v[4]), Int32(v[5]), Int32(v[6]), Int32(v[7]))
    }

    /// Each lane clamped to 0...255, as bytes: `packssdw` + `packuswb` (SSE2, so every tier),
    /// whose two saturations together are exactly that clamp. Lane-by-lane narrowing was
    /// scalarised by the compiler.
    @inline(__always)
    package static func saturatedBytes(_ v: SIMD8<Int32>) -> SIMD8<UInt8> {
        #if arch(x86_64)
        let halves = unsafeBitCast(v, to: (__m128i, __m128i).self)
        let words = _mm_packs_epi32(halves.0, halves.1)
        return unsafeBitCast(_mm_packus_epi16(words, words), to: SIMD16<UInt8>.self).lowHalf
        #else
        let c = clampByte(v)
        return SIMD8<UInt8>(UInt8(truncatingIfNeeded: c[0]), UInt8(truncatingIfNeeded: c[1]), UInt8(truncatingIfNeeded: c[2]),
                            UInt8(truncatingIfNeeded: c[3]), UInt8(truncatingIfNeeded: c[4]), UInt8(truncatingIfNeeded: c[5]),
                            UInt8(truncatingIfNeeded: c[6]), UInt8(truncatingIfNeeded: c[7]))
        #endif
    }

    /// libjpeg's post-IDCT range limit as arithmetic: with `j = (v + 128) & 1023`, `j` below
    /// 256, 255 below 640, else 0 (libjpeg's `range_limit[v & 1023]`).
    @inline(__always)
    package static func rangeLimit(_ v: SIMD8<Int32>) -> SIMD8<Int32> {
        let j = (v &+ 128) & 1023
        let above255 = (255 &- j) &>> 31
        let above639 = (639 &- j) &>> 31
        return ((j & ~above255) | (255 & above255)) & ~above639
    }

    @inline(__always)
    package static func rangeLimit(_ v: Int32) -> UInt8 {
        let j = (v &+ 128) & 1023
        return j < 256 ? UInt8(truncatingIfNeeded: j) : (j < 640 ? 255 : 0)
    }

    /// `min(max(v, 0), 255)` per lane with shifts and masks only.
    @inline(__always)
    package static func clampByte(_ v: SIMD8<Int32>) -> SIMD8<Int32> {
        let t = v & ~(v &>> 31)
        return (t | ((255 &- t) &>> 31)) & 255
    }

    /// Transposes an 8x8 matrix held as 8 row vectors: three perfect unshuffles of the 64
    /// elements (each rotates the 6-bit element index right by one bit; three swap row and column).
    @inline(__always)
    package static func transpose(_ v0: SIMD8<Int32>, _ v1: SIMD8<Int32>, _ v2: SIMD8<Int32>, _ v3: SIMD8<Int32>,
                                  _ v4: SIMD8<Int32>, _ v5: SIMD8<Int32>, _ v6: SIMD8<Int32>, _ v7: SIMD8<Int32>)
        -> (SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>) {
        @inline(__always) func unshuffle(_ a: (SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>,
                                               SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>))
            -> (SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>) {
            (SIMD8(lowHalf: a.0.evenHalf, highHalf: a.1.evenHalf), SIMD8(lowHalf: a.2.evenHalf, highHalf: a.3.evenHalf),
             SIMD8(lowHalf: a.4.evenHalf, highHalf: a.5.evenHalf), SIMD8(lowHalf: a.6.evenHalf, highHalf: a.7.evenHalf),
             SIMD8(lowHalf: a.0.oddHalf, highHalf: a.1.oddHalf), SIMD8(lowHalf: a.2.oddHalf, highHalf: a.3.oddHalf),
             SIMD8(lowHalf: a.4.oddHalf, highHalf: a.5.oddHalf), SIMD8(lowHalf: a.6.oddHalf, highHalf: a.7.oddHalf))
        }
        return unshuffle(unshuffle(unshuffle((v0, v1, v2, v3, v4, v5, v6, v7))))
    }

    /// One 1-D pass of the islow IDCT on eight columns at once, before descaling
    /// (`CONST_BITS = 13`; the constants are libjpeg's `FIX_*` values).
    @inline(__always)
    package static func oneD(_ x0: SIMD8<Int32>, _ x1: SIMD8<Int32>, _ x2: SIMD8<Int32>, _ x3: SIMD8<Int32>,
                             _ x4: SIMD8<Int32>, _ x5: SIMD8<Int32>, _ x6: SIMD8<Int32>, _ x7: SIMD8<Int32>)
        -> (SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>) {
        var z1 = (x2 &+ x6) &* 4433
        let t2 = z1 &+ x6 &* -15137
        let t3 = z1 &+ x2 &* 6270
        let t0 = (x0 &+ x4) &<< 13
        let t1 = (x0 &- x4) &<< 13
        let t10 = t0 &+ t3, t13 = t0 &- t3, t11 = t1 &+ t2, t12 = t1 &- t2
        var a0 = x7, a1 = x5, a2 = x3, a3 = x1
        z1 = a0 &+ a3
        var z2 = a1 &+ a2
        var z3 = a0 &+ a2
        var z4 = a1 &+ a3
        let z5 = (z3 &+ z4) &* 9633
        a0 = a0 &* 2446
        a1 = a1 &* 16819
        a2 = a2 &* 25172
        a3 = a3 &* 12299
        z1 = z1 &* -7373
        z2 = z2 &* -20995
        z3 = z3 &* -16069 &+ z5
        z4 = z4 &* -3196 &+ z5
        a0 = a0 &+ z1 &+ z3
        a1 = a1 &+ z2 &+ z4
        a2 = a2 &+ z2 &+ z3
        a3 = a3 &+ z1 &+ z4
        return (t10 &+ a3, t11 &+ a2, t12 &+ a1, t13 &+ a0, t13 &- a0, t12 &- a1, t11 &- a2, t10 &- a3)
    }

    /// Converts `width` pixels of Y, Cb, Cr rows into interleaved RGB with libjpeg's
    /// fixed-point formulas (16 fractional bits; the same values as its tables):
    /// `R = Y + ((91881·Cr' + 2^15) >> 16)`, `G = Y + ((−22554·Cb' − 46802·Cr' + 2^15) >> 16)`,
    /// `B = Y + ((116130·Cb' + 2^15) >> 16)` with `C' = C − 128`, each clamped to 0...255.
    /// Eight pixels per step while a ninth follows (the step's last 8-byte store runs 2 bytes
    /// into it), the rest one by one.
    package static func ycbcrToRGB(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>,
                                   out: UnsafeMutablePointer<UInt8>, width: Int) {
        var x = 0
        let half = SIMD8<Int32>(repeating: 32768), center = SIMD8<Int32>(repeating: 128)
        while x &+ 9 <= width {
            let luma = widen(UnsafeRawPointer(y + x).loadUnaligned(as: SIMD8<UInt8>.self))
            let b = widen(UnsafeRawPointer(cb + x).loadUnaligned(as: SIMD8<UInt8>.self)) &- center
            let r = widen(UnsafeRawPointer(cr + x).loadUnaligned(as: SIMD8<UInt8>.self)) &- center
            storeRGB(red: luma &+ ((r &* 91881 &+ half) &>> 16),
                     green: luma &+ ((b &* -22554 &+ r &* -46802 &+ half) &>> 16),
                     blue: luma &+ ((b &* 116130 &+ half) &>> 16), to: out + 3 &* x)
            x &+= 8
        }
        while x < width {
            let luma = Int32(y[x]), b = Int32(cb[x]) &- 128, r = Int32(cr[x]) &- 128
            let o = out + 3 &* x
            o[0] = clampScalar(luma &+ ((r &* 91881 &+ 32768) &>> 16))
            o[1] = clampScalar(luma &+ ((b &* -22554 &+ r &* -46802 &+ 32768) &>> 16))
            o[2] = clampScalar(luma &+ ((b &* 116130 &+ 32768) &>> 16))
            x &+= 1
        }
    }

    /// Clamps eight pixels' channels to 0...255 and stores them as 24 interleaved RGB bytes at
    /// `out`, writing 2 bytes past them (the caller keeps 26 bytes writable). SSE2 only: byte
    /// unpacks make `R G B 0` words, each 64-bit half drops its two zero bytes
    /// (`(v & 0xFFFFFF) | ((v >> 8) & 0xFFFFFF000000)`), and four overlapping 8-byte stores
    /// place the 6-byte halves; building the 24 bytes lane by lane took ~50 byte shuffles.
    @inline(__always)
    package static func storeRGB(red: SIMD8<Int32>, green: SIMD8<Int32>, blue: SIMD8<Int32>,
                                 to out: UnsafeMutablePointer<UInt8>) {
        #if arch(x86_64)
        @inline(__always) func bytes(_ v: SIMD8<Int32>) -> __m128i {
            let halves = unsafeBitCast(v, to: (__m128i, __m128i).self)
            let words = _mm_packs_epi32(halves.0, halves.1)
            return _mm_packus_epi16(words, words)
        }
        let rg = _mm_unpacklo_epi8(bytes(red), bytes(green))
        let b0 = _mm_unpacklo_epi8(bytes(blue), _mm_setzero_si128())
        let low = _mm_unpacklo_epi16(rg, b0), high = _mm_unpackhi_epi16(rg, b0)
        let keepLow = _mm_set1_epi64x(0x00FF_FFFF), keepHigh = _mm_set1_epi64x(0xFFFF_FF00_0000)
        @inline(__always) func packed(_ v: __m128i) -> SIMD2<UInt64> {
            unsafeBitCast(_mm_or_si128(_mm_and_si128(v, keepLow), _mm_and_si128(_mm_srli_epi64(v, 8), keepHigh)),
                          to: SIMD2<UInt64>.self)
        }
        let first = packed(low), second = packed(high)
        let o = UnsafeMutableRawPointer(out)
        o.storeBytes(of: first[0], as: UInt64.self)
        o.storeBytes(of: first[1], toByteOffset: 6, as: UInt64.self)
        o.storeBytes(of: second[0], toByteOffset: 12, as: UInt64.self)
        o.storeBytes(of: second[1], toByteOffset: 18, as: UInt64.self)
        #else
        let r = saturatedBytes(red), g = saturatedBytes(green), b = saturatedBytes(blue)
        for i in 0..<8 {
            out[3 &* i] = r[i]; out[3 &* i &+ 1] = g[i]; out[3 &* i &+ 2] = b[i]
        }
        #endif
    }

    /// libjpeg's h2v2 "fancy" upsampling of one chroma row (`h2v2_fancy_upsample`, `jdsample.c`)
    /// into `2 * width` samples: with column sums `s[x] = 3·near[x] + far[x]` (near = the input
    /// row closest to the output row), output `2x` is `(3·s[x] + s[x−1] + 8) >> 4` and `2x+1` is
    /// `(3·s[x] + s[x+1] + 7) >> 4`, the edge columns repeating their neighbour. Needs
    /// `width > 2`. Sixteen input samples per step in 16-bit lanes (every value stays below
    /// 2^13), even and odd outputs paired into one 16-bit word each, which stores them interleaved.
    package static func upsampleH2V2Fancy(near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>, width w: Int,
                                          out: UnsafeMutablePointer<UInt8>) {
        @inline(__always) func sums(_ offset: Int) -> SIMD16<UInt16> {
            3 &* widenBytes(UnsafeRawPointer(near + offset).loadUnaligned(as: SIMD16<UInt8>.self))
                &+ widenBytes(UnsafeRawPointer(far + offset).loadUnaligned(as: SIMD16<UInt8>.self))
        }
        @inline(__always) func sum(_ x: Int) -> Int32 { 3 &* Int32(near[x]) &+ Int32(far[x]) }
        let first = sum(0)
        out[0] = UInt8(truncatingIfNeeded: (4 &* first &+ 8) &>> 4)
        out[1] = UInt8(truncatingIfNeeded: (3 &* first &+ sum(1) &+ 7) &>> 4)
        var x = 1
        let eight = SIMD16<UInt16>(repeating: 8), seven = SIMD16<UInt16>(repeating: 7)
        while x &+ 17 <= w {
            let here = 3 &* sums(x), left = sums(x &- 1), right = sums(x &+ 1)
            let even = (here &+ left &+ eight) &>> 4
            let odd = (here &+ right &+ seven) &>> 4
            UnsafeMutableRawPointer(out + 2 &* x).storeBytes(of: even | (odd &<< 8), as: SIMD16<UInt16>.self)
            x &+= 16
        }
        while x < w &- 1 {
            let here = 3 &* sum(x)
            out[2 &* x] = UInt8(truncatingIfNeeded: (here &+ sum(x &- 1) &+ 8) &>> 4)
            out[2 &* x &+ 1] = UInt8(truncatingIfNeeded: (here &+ sum(x &+ 1) &+ 7) &>> 4)
            x &+= 1
        }
        let last = sum(w &- 1)
        out[2 &* w &- 2] = UInt8(truncatingIfNeeded: (3 &* last &+ sum(w &- 2) &+ 8) &>> 4)
        out[2 &* w &- 1] = UInt8(truncatingIfNeeded: (4 &* last &+ 7) &>> 4)
    }

    /// Zero-extends sixteen bytes to 16-bit lanes (SSE2 unpacks; the generic conversion stayed
    /// an outlined call).
    @inline(__always)
    package static func widenBytes(_ v: SIMD16<UInt8>) -> SIMD16<UInt16> {
        #if arch(x86_64)
        let x = unsafeBitCast(v, to: __m128i.self), zero = _mm_setzero_si128()
        return unsafeBitCast((_mm_unpacklo_epi8(x, zero), _mm_unpackhi_epi8(x, zero)), to: SIMD16<UInt16>.self)
        #else
        var r = SIMD16<UInt16>()
        for i in 0..<16 { r[i] = UInt16(v[i]) }
        return r
        #endif
    }

    @inline(__always)
    static func clampScalar(_ v: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: min(max(v, 0), 255))
    }
}
