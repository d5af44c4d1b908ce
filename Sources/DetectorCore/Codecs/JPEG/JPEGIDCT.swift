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
/// natural order; the 8x8 result goes to `output` with `stride` bytes per row. All arithmetic
/// wraps (64-bit inside a pass, 32-bit workspace as in libjpeg), so corrupt input cannot trap.
enum JPEGIDCT {
    @inline(__always)
    static func transform(coefficients c: UnsafePointer<Int16>, quant q: UnsafePointer<Int32>,
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

        // Pass 1: columns, eight at a time (lane u = column u), into the workspace.
        @inline(__always) func row(_ k: Int) -> SIMD8<Int32> {
            let coefficients = SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(c + 8 &* k).loadUnaligned(as: SIMD8<Int16>.self))
            return coefficients &* UnsafeRawPointer(q + 8 &* k).loadUnaligned(as: SIMD8<Int32>.self)
        }
        let y = oneD(row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))
        let round1 = SIMD8<Int32>(repeating: 1 << 10)
        let wsRaw = UnsafeMutableRawPointer(ws)
        wsRaw.storeBytes(of: (y.0 &+ round1) &>> 11, toByteOffset: 0, as: SIMD8<Int32>.self)
        wsRaw.storeBytes(of: (y.1 &+ round1) &>> 11, toByteOffset: 32, as: SIMD8<Int32>.self)
        wsRaw.storeBytes(of: (y.2 &+ round1) &>> 11, toByteOffset: 64, as: SIMD8<Int32>.self)
        wsRaw.storeBytes(of: (y.3 &+ round1) &>> 11, toByteOffset: 96, as: SIMD8<Int32>.self)
        wsRaw.storeBytes(of: (y.4 &+ round1) &>> 11, toByteOffset: 128, as: SIMD8<Int32>.self)
        wsRaw.storeBytes(of: (y.5 &+ round1) &>> 11, toByteOffset: 160, as: SIMD8<Int32>.self)
        wsRaw.storeBytes(of: (y.6 &+ round1) &>> 11, toByteOffset: 192, as: SIMD8<Int32>.self)
        wsRaw.storeBytes(of: (y.7 &+ round1) &>> 11, toByteOffset: 224, as: SIMD8<Int32>.self)

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

    /// One 1-D pass of the islow IDCT on eight columns at once (32-bit lanes, wrapping: valid
    /// 8-bit data stays far inside the range, as in libjpeg's 32-bit builds and SIMD code).
    @inline(__always)
    static func oneD(_ x0: SIMD8<Int32>, _ x1: SIMD8<Int32>, _ x2: SIMD8<Int32>, _ x3: SIMD8<Int32>,
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
