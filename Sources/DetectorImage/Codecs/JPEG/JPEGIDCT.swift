import DetectorZlib
import DetectorPlatform

/// libjpeg's post-IDCT range limit, indexed by `value & 1023`: 0...127 → 128...255,
/// 128...511 → 255, 512...895 → 0, 896...1023 → 0...127 (i.e. `clamp(v + 128)` for
/// -512...511, wrapping outside as libjpeg does).
let jpegIDCTRangeLimit: [UInt8] = (0..<1024).map { i -> UInt8 in
    if i < 128 { return UInt8(i + 128) }
    if i < 512 { return 255 }
    if i < 896 { return 0 }
    return UInt8(i - 896)
}

/// The accurate integer inverse DCT of libjpeg (`jidctint.c`, "islow"): Loeffler–Ligtenberg–
/// Moschytz with 13-bit constants, two 1-D passes (`CONST_BITS = 13`, `PASS1_BITS = 2`).
///
/// `coefficients` are 64 quantized values in natural order, `quant` the 64 quantizers in
/// natural order; the 8x8 result goes to `output` with `stride` bytes per row.
///
/// `transform` / `transformBlocks` run the tier kernel `TierJPEG.idct` (both passes on
/// `SIMD8<Int32>`); `referenceTransform` is the plain scalar version kept as its test oracle. All arithmetic wraps, so corrupt input cannot trap; valid 8-bit data stays far
/// inside 32 bits, as in libjpeg's own 32-bit builds and SIMD code.
enum JPEGIDCT {
    /// The islow IDCT of one block (`TierJPEG.idct`, the baseline build of the tier kernel).
    @inline(__always)
    static func transform(coefficients c: UnsafePointer<Int16>, quant q: UnsafePointer<Int32>,
                          output: UnsafeMutablePointer<UInt8>, stride: Int) {
        TierJPEG.idct(c, quant: q, output: output, stride: stride)
    }

    /// IDCT of `count` consecutive blocks (one block row) into columns `8i...8i+7`, with the
    /// JPEG kernels of `kernels` (the arithmetic, so the pixels, are the same at every tier).
    @inline(__always)
    static func transformBlocks(_ c: UnsafePointer<Int16>, count: Int, quant q: UnsafePointer<Int32>,
                                output: UnsafeMutablePointer<UInt8>, stride: Int, kernels: JPEGKernels = JPEGIDCT.kernels) {
        kernels.idctBlocks(c, count, q, output, stride)
    }

    /// `transformBlocks` at `tier`.
    static func transformBlocks(_ c: UnsafePointer<Int16>, count: Int, quant q: UnsafePointer<Int32>,
                                output: UnsafeMutablePointer<UInt8>, stride: Int, tier: InstructionSetTier) {
        transformBlocks(c, count: count, quant: q, output: output, stride: stride, kernels: JPEGKernels.for(tier))
    }

    /// The decoder's pixel kernels: the best tier's JPEG table (`JPEGKernels.best`, which
    /// `OBJDETECT_ISA` can lower), chosen once.
    static let kernels = JPEGKernels.best

    @inline(__always)
    static func rangeLimit(_ v: SIMD8<Int32>) -> SIMD8<Int32> { TierJPEG.rangeLimit(v) }

    @inline(__always)
    static func rangeLimit(_ v: Int32) -> UInt8 { TierJPEG.rangeLimit(v) }

    @inline(__always)
    static func transpose(_ v0: SIMD8<Int32>, _ v1: SIMD8<Int32>, _ v2: SIMD8<Int32>, _ v3: SIMD8<Int32>,
                          _ v4: SIMD8<Int32>, _ v5: SIMD8<Int32>, _ v6: SIMD8<Int32>, _ v7: SIMD8<Int32>)
        -> (SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>) {
        TierJPEG.transpose(v0, v1, v2, v3, v4, v5, v6, v7)
    }

    /// The plain scalar version (64-bit arithmetic, libjpeg's column and row shortcuts): the
    /// test oracle for `transform`.
    static func referenceTransform(coefficients c: UnsafePointer<Int16>, quant q: UnsafePointer<Int32>,
                          output: UnsafeMutablePointer<UInt8>, stride: Int,
                          workspace ws: UnsafeMutablePointer<Int32>,
                          rangeLimit rl: UnsafePointer<UInt8>) {
        // Whole block DC-only: a flat block.
        var acBits: Int16 = 0
        for i in 1..<64 { acBits |= c[i] }
        if acBits == 0 {
            let dc = Int(c[0]) &* Int(q[0])
            let value = rl[Int(truncatingIfNeeded: ((dc &* 4) &+ 16) &>> 5) & 1023]
            var row = output
            for _ in 0..<8 {
                for u in 0..<8 { row[u] = value }
                row += stride
            }
            return
        }

        // Pass 1: columns, from the coefficients into the workspace.
        for u in 0..<8 {
            if c[8 + u] == 0 && c[16 + u] == 0 && c[24 + u] == 0 && c[32 + u] == 0 &&
                c[40 + u] == 0 && c[48 + u] == 0 && c[56 + u] == 0 {
                let dc = Int32(truncatingIfNeeded: (Int(c[u]) &* Int(q[u])) &<< 2)
                for r in 0..<8 { ws[8 &* r &+ u] = dc }
                continue
            }
            let x0 = Int(c[u]) &* Int(q[u])
            let x1 = Int(c[8 + u]) &* Int(q[8 + u])
            let x2 = Int(c[16 + u]) &* Int(q[16 + u])
            let x3 = Int(c[24 + u]) &* Int(q[24 + u])
            let x4 = Int(c[32 + u]) &* Int(q[32 + u])
            let x5 = Int(c[40 + u]) &* Int(q[40 + u])
            let x6 = Int(c[48 + u]) &* Int(q[48 + u])
            let x7 = Int(c[56 + u]) &* Int(q[56 + u])
            let y = oneD(x0, x1, x2, x3, x4, x5, x6, x7)
            let round = 1 << 10
            ws[u] = Int32(truncatingIfNeeded: (y.0 &+ round) &>> 11)
            ws[8 + u] = Int32(truncatingIfNeeded: (y.1 &+ round) &>> 11)
            ws[16 + u] = Int32(truncatingIfNeeded: (y.2 &+ round) &>> 11)
            ws[24 + u] = Int32(truncatingIfNeeded: (y.3 &+ round) &>> 11)
            ws[32 + u] = Int32(truncatingIfNeeded: (y.4 &+ round) &>> 11)
            ws[40 + u] = Int32(truncatingIfNeeded: (y.5 &+ round) &>> 11)
            ws[48 + u] = Int32(truncatingIfNeeded: (y.6 &+ round) &>> 11)
            ws[56 + u] = Int32(truncatingIfNeeded: (y.7 &+ round) &>> 11)
        }

        // Pass 2: rows, from the workspace into the output samples.
        var out = output
        for r in 0..<8 {
            let w = ws + 8 &* r
            let round = 1 << 17
            if w[1] == 0 && w[2] == 0 && w[3] == 0 && w[4] == 0 && w[5] == 0 && w[6] == 0 && w[7] == 0 {
                let value = rl[Int(truncatingIfNeeded: (Int(w[0]) &+ 16) &>> 5) & 1023]
                for u in 0..<8 { out[u] = value }
                out += stride
                continue
            }
            let y = oneD(Int(w[0]), Int(w[1]), Int(w[2]), Int(w[3]), Int(w[4]), Int(w[5]), Int(w[6]), Int(w[7]))
            out[0] = rl[((y.0 &+ round) &>> 18) & 1023]
            out[1] = rl[((y.1 &+ round) &>> 18) & 1023]
            out[2] = rl[((y.2 &+ round) &>> 18) & 1023]
            out[3] = rl[((y.3 &+ round) &>> 18) & 1023]
            out[4] = rl[((y.4 &+ round) &>> 18) & 1023]
            out[5] = rl[((y.5 &+ round) &>> 18) & 1023]
            out[6] = rl[((y.6 &+ round) &>> 18) & 1023]
            out[7] = rl[((y.7 &+ round) &>> 18) & 1023]
            out += stride
        }
    }

    /// One 1-D pass of the islow IDCT, before descaling.
    @inline(__always)
    static func oneD(_ x0: Int, _ x1: Int, _ x2: Int, _ x3: Int, _ x4: Int, _ x5: Int, _ x6: Int, _ x7: Int)
        -> (Int, Int, Int, Int, Int, Int, Int, Int) {
        // Even part.
        var z1 = (x2 &+ x6) &* 4433
        let t2 = z1 &+ x6 &* -15137
        let t3 = z1 &+ x2 &* 6270
        let t0 = (x0 &+ x4) &<< 13
        let t1 = (x0 &- x4) &<< 13
        let t10 = t0 &+ t3, t13 = t0 &- t3, t11 = t1 &+ t2, t12 = t1 &- t2
        // Odd part.
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
}
