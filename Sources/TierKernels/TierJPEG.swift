/// The JPEG decoder's pixel kernels: libjpeg's accurate integer IDCT ("islow", `jidctint.c`)
/// over a row of blocks and its YCbCr → RGB conversion (`jdcolor.c`), written once and compiled
/// at every tier: DetectorCore links this file as its baseline (SSE2), `KernelsAVX2` and
/// `KernelsAVX512` compile it with their instruction sets (`vpmulld`, ymm lanes). The integer
/// arithmetic is the same at every tier, so the pixels are identical; DetectorCore's
/// `JPEGIDCT.referenceTransform` and the table-based colour conversion are the test oracles.
///
/// Lane conversions are spelled out lane by lane: the generic SIMD conversions and
/// `clamped(lowerBound:upperBound:)` were left as outlined calls (7% of a decode).
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
        let words = UnsafeRawPointer(c)
        var acBits = words.loadUnaligned(as: UInt64.self) & 0xFFFF_FFFF_FFFF_0000
        for i in 1..<16 { acBits |= words.loadUnaligned(fromByteOffset: 8 &* i, as: UInt64.self) }
        if acBits == 0 {
            let dc = Int(c[0]) &* Int(q[0])
            let value = rangeLimit(Int32(truncatingIfNeeded: ((dc &* 4) &+ 16) &>> 5))
            let row = UInt64(value) &* 0x0101_0101_0101_0101
            for r in 0..<8 { UnsafeMutableRawPointer(output + r &* stride).storeBytes(of: row, as: UInt64.self) }
            return
        }
        @inline(__always) func row(_ k: Int) -> SIMD8<Int32> {
            widen(UnsafeRawPointer(c + 8 &* k).loadUnaligned(as: SIMD8<Int16>.self))
                &* UnsafeRawPointer(q + 8 &* k).loadUnaligned(as: SIMD8<Int32>.self)
        }
        let y = oneD(row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))
        let round1 = SIMD8<Int32>(repeating: 1 << 10)
        let w = transpose((y.0 &+ round1) &>> 11, (y.1 &+ round1) &>> 11, (y.2 &+ round1) &>> 11, (y.3 &+ round1) &>> 11,
                          (y.4 &+ round1) &>> 11, (y.5 &+ round1) &>> 11, (y.6 &+ round1) &>> 11, (y.7 &+ round1) &>> 11)
        let z = oneD(w.0, w.1, w.2, w.3, w.4, w.5, w.6, w.7)
        let round2 = SIMD8<Int32>(repeating: 1 << 17)
        let o = transpose(rangeLimit((z.0 &+ round2) &>> 18), rangeLimit((z.1 &+ round2) &>> 18),
                          rangeLimit((z.2 &+ round2) &>> 18), rangeLimit((z.3 &+ round2) &>> 18),
                          rangeLimit((z.4 &+ round2) &>> 18), rangeLimit((z.5 &+ round2) &>> 18),
                          rangeLimit((z.6 &+ round2) &>> 18), rangeLimit((z.7 &+ round2) &>> 18))
        @inline(__always) func store(_ v: SIMD8<Int32>, _ r: Int) {
            UnsafeMutableRawPointer(output + r &* stride).storeBytes(of: bytes(v), as: SIMD8<UInt8>.self)
        }
        store(o.0, 0); store(o.1, 1); store(o.2, 2); store(o.3, 3)
        store(o.4, 4); store(o.5, 5); store(o.6, 6); store(o.7, 7)
    }

    /// Sign-extends eight 16-bit lanes.
    @inline(__always)
    package static func widen(_ v: SIMD8<Int16>) -> SIMD8<Int32> {
        SIMD8<Int32>(Int32(v[0]), Int32(v[1]), Int32(v[2]), Int32(v[3]), Int32(v[4]), Int32(v[5]), Int32(v[6]), Int32(v[7]))
    }

    /// Zero-extends eight bytes.
    @inline(__always)
    package static func widen(_ v: SIMD8<UInt8>) -> SIMD8<Int32> {
        SIMD8<Int32>(Int32(v[0]), Int32(v[1]), Int32(v[2]), Int32(v[3]), Int32(v[4]), Int32(v[5]), Int32(v[6]), Int32(v[7]))
    }

    /// The low byte of each lane.
    @inline(__always)
    package static func bytes(_ v: SIMD8<Int32>) -> SIMD8<UInt8> {
        SIMD8<UInt8>(UInt8(truncatingIfNeeded: v[0]), UInt8(truncatingIfNeeded: v[1]), UInt8(truncatingIfNeeded: v[2]),
                     UInt8(truncatingIfNeeded: v[3]), UInt8(truncatingIfNeeded: v[4]), UInt8(truncatingIfNeeded: v[5]),
                     UInt8(truncatingIfNeeded: v[6]), UInt8(truncatingIfNeeded: v[7]))
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
    /// Eight pixels per step, stored as eight overlapping 4-byte words (so a step runs only
    /// while a ninth pixel follows), the rest one by one.
    package static func ycbcrToRGB(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>,
                                   out: UnsafeMutablePointer<UInt8>, width: Int) {
        var x = 0
        let half = SIMD8<Int32>(repeating: 32768), center = SIMD8<Int32>(repeating: 128)
        while x &+ 9 <= width {
            let luma = widen(UnsafeRawPointer(y + x).loadUnaligned(as: SIMD8<UInt8>.self))
            let b = widen(UnsafeRawPointer(cb + x).loadUnaligned(as: SIMD8<UInt8>.self)) &- center
            let r = widen(UnsafeRawPointer(cr + x).loadUnaligned(as: SIMD8<UInt8>.self)) &- center
            let red = clampByte(luma &+ ((r &* 91881 &+ half) &>> 16))
            let green = clampByte(luma &+ ((b &* -22554 &+ r &* -46802 &+ half) &>> 16))
            let blue = clampByte(luma &+ ((b &* 116130 &+ half) &>> 16))
            let pixels = red | (green &<< 8) | (blue &<< 16)
            let o = UnsafeMutableRawPointer(out + 3 &* x)
            o.storeBytes(of: UInt32(truncatingIfNeeded: pixels[0]), toByteOffset: 0, as: UInt32.self)
            o.storeBytes(of: UInt32(truncatingIfNeeded: pixels[1]), toByteOffset: 3, as: UInt32.self)
            o.storeBytes(of: UInt32(truncatingIfNeeded: pixels[2]), toByteOffset: 6, as: UInt32.self)
            o.storeBytes(of: UInt32(truncatingIfNeeded: pixels[3]), toByteOffset: 9, as: UInt32.self)
            o.storeBytes(of: UInt32(truncatingIfNeeded: pixels[4]), toByteOffset: 12, as: UInt32.self)
            o.storeBytes(of: UInt32(truncatingIfNeeded: pixels[5]), toByteOffset: 15, as: UInt32.self)
            o.storeBytes(of: UInt32(truncatingIfNeeded: pixels[6]), toByteOffset: 18, as: UInt32.self)
            o.storeBytes(of: UInt32(truncatingIfNeeded: pixels[7]), toByteOffset: 21, as: UInt32.self)
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

    @inline(__always)
    static func clampScalar(_ v: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: min(max(v, 0), 255))
    }
}
