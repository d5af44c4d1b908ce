/// The quantized depthwise convolution of the wide tiers (depth multiplier 1), with its
/// requantization, straight from the 8-bit input.
///
/// Each input byte is widened to an `Int32` lane (zero- or sign-extended) and multiplied by
/// its weight with one `vpmaddwd` (`vpdpwssd` at AVX-512): a weight lane holds the
/// zero-point-shifted filter value in its low 16 bits and 0 in its high 16 bits, so the high
/// halves of the input lanes (0 or −1) add nothing and the product is exact. The input zero
/// point is not subtracted per tap: `Σ (x − zx)·w = Σ x·w − zx·Σ w`, and for windows with every
/// tap inside the image `− zx·Σ w` is folded into the bias at prepare (`bias` then holds it);
/// windows cut by the border add `zx·w` per tap (`zeroPoint` non-nil) and subtract it at the end.
/// Integer sums are exact in any order, so the bytes are those of TFLite's reference kernel.
///
/// Per-channel arrays (`weights` rows, `bias`, `doubledMultiplier`, `rightShift`) have
/// `channels + 16` entries, entry `i` belonging to channel `i % channels`, so 16 lanes starting
/// at any channel offset read one vector (the flat layout below). Lanes past the end of a
/// pixel or of the run compute garbage that is never stored; loads reach past the values
/// needed only while 16 bytes stay before `inputEnd`.
package enum TierQuantizedDepthwise {
    /// One run of `pixels` output pixels of a row whose windows share their taps: rows
    /// `0..<tapRows` (`rowStep` bytes apart) × columns `0..<tapCols` (`colStep` apart) starting
    /// at filter tap `firstTap` (`filterWidth` taps per filter row); pixel `p`'s first tap is
    /// `input + p · pixelStep`, its outputs `output + p · channels`.
    ///
    /// With `flat` (stride 1: `pixelStep == channels`) the run is one vector of
    /// `pixels · channels` lanes, 16 at a time, whatever the channel count; otherwise 4 pixels ×
    /// 16 channels per step, each weight vector loaded once for the 4 pixels.
    package static func run(input: UnsafeRawPointer, inputEnd: UnsafeRawPointer, signed: Bool,
                            weights: UnsafePointer<Int32>, bias: UnsafePointer<Int32>,
                            doubledMultiplier: UnsafePointer<UInt32>, rightShift: UnsafePointer<UInt32>,
                            zeroPoint: Int32?, outputZeroPoint: Int32, activationMin: Int32, activationMax: Int32,
                            output: UnsafeMutableRawPointer, channels: Int, pixels: Int, flat: Bool,
                            tapRows: Int, tapCols: Int, firstTap: Int, filterWidth: Int,
                            rowStep: Int, colStep: Int, pixelStep: Int) {
        let run = Run(input: input, inputEnd: inputEnd, weights: weights, bias: bias, doubledMultiplier: doubledMultiplier,
                      rightShift: rightShift, zeroPoint: zeroPoint.map { SIMD16<Int32>(repeating: $0 & 0xFFFF) },
                      outputZeroPoint: SIMD16<Int32>(repeating: outputZeroPoint),
                      lo: SIMD16<Int32>(repeating: activationMin), hi: SIMD16<Int32>(repeating: activationMax),
                      output: output, channels: channels, tapRows: tapRows, tapCols: tapCols, firstTap: firstTap,
                      filterWidth: filterWidth, rowStep: rowStep, colStep: colStep, pixelStep: pixelStep)
        switch (signed, flat) {
        case (false, false): blocks(ZeroExtended.self, run, pixels: pixels)
        case (true, false): blocks(SignExtended.self, run, pixels: pixels)
        case (false, true): lanes(ZeroExtended.self, run, count: pixels &* channels)
        case (true, true): lanes(SignExtended.self, run, count: pixels &* channels)
        }
    }

    /// The arguments of `run` (a tuple: tier modules define no structs).
    typealias Run = (input: UnsafeRawPointer, inputEnd: UnsafeRawPointer, weights: UnsafePointer<Int32>,
                     bias: UnsafePointer<Int32>, doubledMultiplier: UnsafePointer<UInt32>, rightShift: UnsafePointer<UInt32>,
                     zeroPoint: SIMD16<Int32>?, outputZeroPoint: SIMD16<Int32>, lo: SIMD16<Int32>, hi: SIMD16<Int32>,
                     output: UnsafeMutableRawPointer, channels: Int, tapRows: Int, tapCols: Int, firstTap: Int,
                     filterWidth: Int, rowStep: Int, colStep: Int, pixelStep: Int)

    /// Byte offset of the last tap from the first.
    @inline(__always)
    private static func lastTap(_ r: Run) -> Int {
        r.tapRows > 0 && r.tapCols > 0 ? (r.tapRows &- 1) &* r.rowStep &+ (r.tapCols &- 1) &* r.colStep : 0
    }

    /// Bias, requantization, zero point, clamp and store of 16 sums at channel offset `m`
    /// (`width` lanes stored at `out`); `correction` (zx·Σw of the taps) is subtracted first.
    @inline(__always)
    private static func finish(_ r: Run, _ acc: SIMD16<Int32>, _ correction: SIMD16<Int32>, m: Int,
                               out: UnsafeMutableRawPointer, width: Int) {
        let x = acc &- correction &+ UnsafeRawPointer(r.bias + m).loadUnaligned(as: SIMD16<Int32>.self)
        let q = TierRequantization.requantize(x, doubledMultiplier: UnsafeRawPointer(r.doubledMultiplier + m).loadUnaligned(as: SIMD16<UInt32>.self),
                                              shift: UnsafeRawPointer(r.rightShift + m).loadUnaligned(as: SIMD16<UInt32>.self))
        Tier.storeLowBytes(Tier.clamp(q &+ r.outputZeroPoint, lo: r.lo, hi: r.hi), to: out, count: width)
    }

    @inline(__always)
    private static func weight(_ r: Run, row: Int, col: Int) -> UnsafePointer<Int32> {
        r.weights + (r.firstTap &+ row &* r.filterWidth &+ col) &* (r.channels &+ 16)
    }

    /// 4 pixels × 16 channels per step, then single pixels.
    @inline(__always)
    private static func blocks<B: ByteWidening>(_: B.Type, _ r: Run, pixels: Int) {
        let C = r.channels, last = lastTap(r)
        var p = 0
        while p &+ 4 <= pixels {
            let base = r.input + p &* r.pixelStep, out = r.output + p &* C
            var c = 0
            while c &+ 16 <= C {
                fourPixels(B.self, r, base: base, out: out, c: c, width: 16, count: 16)
                c &+= 16
            }
            if c < C {
                // Pixel 3's farthest load decides whether all four may read 16 bytes.
                let width = C &- c
                let count = base + (3 &* r.pixelStep &+ last &+ c &+ 16) <= r.inputEnd ? 16 : width
                fourPixels(B.self, r, base: base, out: out, c: c, width: width, count: count)
            }
            p &+= 4
        }
        while p < pixels {
            let base = r.input + p &* r.pixelStep, out = r.output + p &* C
            var c = 0
            while c < C {
                let width = min(16, C &- c)
                let count = base + (last &+ c &+ 16) <= r.inputEnd ? 16 : width
                var a = SIMD16<Int32>(), z = a
                for row in 0..<r.tapRows {
                    for col in 0..<r.tapCols {
                        let w = UnsafeRawPointer(weight(r, row: row, col: col) + c).loadUnaligned(as: SIMD16<Int32>.self)
                        a = Tier.addLowProducts(a, B.widen(base + (row &* r.rowStep &+ col &* r.colStep &+ c), count: count), w)
                        if let zp = r.zeroPoint { z = Tier.addLowProducts(z, zp, w) }
                    }
                }
                finish(r, a, z, m: c, out: out + c, width: width)
                c &+= 16
            }
            p &+= 1
        }
    }

    /// Channels `c..<c + width` of 4 pixels (loads of `count` bytes).
    @inline(__always)
    private static func fourPixels<B: ByteWidening>(_: B.Type, _ r: Run, base: UnsafeRawPointer, out: UnsafeMutableRawPointer,
                                                     c: Int, width: Int, count: Int) {
        let C = r.channels
        var a0 = SIMD16<Int32>(), a1 = a0, a2 = a0, a3 = a0, z = a0
        if r.tapCols == 3 && r.colStep == r.pixelStep {
            // Three column taps one pixel apart (stride = dilation): pixel p's tap k is pixel
            // p + k's first, so a filter row of the 4 pixels reads 6 input vectors, not 12.
            let s = r.pixelStep, next = C &+ 16
            for row in 0..<r.tapRows {
                let wp = weight(r, row: row, col: 0) + c
                let w0 = UnsafeRawPointer(wp).loadUnaligned(as: SIMD16<Int32>.self)
                let w1 = UnsafeRawPointer(wp + next).loadUnaligned(as: SIMD16<Int32>.self)
                let w2 = UnsafeRawPointer(wp + 2 &* next).loadUnaligned(as: SIMD16<Int32>.self)
                let x = base + (row &* r.rowStep &+ c)
                let x0 = B.widen(x, count: count)
                a0 = Tier.addLowProducts(a0, x0, w0)
                let x1 = B.widen(x + s, count: count)
                a0 = Tier.addLowProducts(a0, x1, w1); a1 = Tier.addLowProducts(a1, x1, w0)
                let x2 = B.widen(x + 2 &* s, count: count)
                a0 = Tier.addLowProducts(a0, x2, w2); a1 = Tier.addLowProducts(a1, x2, w1); a2 = Tier.addLowProducts(a2, x2, w0)
                let x3 = B.widen(x + 3 &* s, count: count)
                a1 = Tier.addLowProducts(a1, x3, w2); a2 = Tier.addLowProducts(a2, x3, w1); a3 = Tier.addLowProducts(a3, x3, w0)
                let x4 = B.widen(x + 4 &* s, count: count)
                a2 = Tier.addLowProducts(a2, x4, w2); a3 = Tier.addLowProducts(a3, x4, w1)
                a3 = Tier.addLowProducts(a3, B.widen(x + 5 &* s, count: count), w2)
                if let zp = r.zeroPoint {
                    z = Tier.addLowProducts(Tier.addLowProducts(Tier.addLowProducts(z, zp, w0), zp, w1), zp, w2)
                }
            }
            finish(r, a0, z, m: c, out: out + c, width: width)
            finish(r, a1, z, m: c, out: out + (C &+ c), width: width)
            finish(r, a2, z, m: c, out: out + (2 &* C &+ c), width: width)
            finish(r, a3, z, m: c, out: out + (3 &* C &+ c), width: width)
            return
        }
        for row in 0..<r.tapRows {
            for col in 0..<r.tapCols {
                let w = UnsafeRawPointer(weight(r, row: row, col: col) + c).loadUnaligned(as: SIMD16<Int32>.self)
                let x = base + (row &* r.rowStep &+ col &* r.colStep &+ c)
                a0 = Tier.addLowProducts(a0, B.widen(x, count: count), w)
                a1 = Tier.addLowProducts(a1, B.widen(x + r.pixelStep, count: count), w)
                a2 = Tier.addLowProducts(a2, B.widen(x + 2 &* r.pixelStep, count: count), w)
                a3 = Tier.addLowProducts(a3, B.widen(x + 3 &* r.pixelStep, count: count), w)
                if let zp = r.zeroPoint { z = Tier.addLowProducts(z, zp, w) }
            }
        }
        finish(r, a0, z, m: c, out: out + c, width: width)
        finish(r, a1, z, m: c, out: out + (C &+ c), width: width)
        finish(r, a2, z, m: c, out: out + (2 &* C &+ c), width: width)
        finish(r, a3, z, m: c, out: out + (3 &* C &+ c), width: width)
    }

    /// Stride 1: the run's outputs as `count` consecutive lanes (lane `j` is channel
    /// `j % channels` of pixel `j / channels`, its tap at `input + j` plus the tap's offset),
    /// 4 vectors of 16 lanes per step, then single vectors.
    @inline(__always)
    private static func lanes<B: ByteWidening>(_: B.Type, _ r: Run, count: Int) {
        let C = r.channels, last = lastTap(r), step = 16 % C
        @inline(__always) func next(_ m: Int) -> Int { let n = m &+ step; return n >= C ? n &- C : n }
        var j = 0, m0 = 0
        if step == 0 {
            // 16 a multiple of the channel count: every vector has the same weights.
            while j &+ 64 <= count {
                fourVectors(B.self, r, j: j, m: (0, 0, 0, 0))
                j &+= 64
            }
        }
        while j &+ 64 <= count {
            let m1 = next(m0), m2 = next(m1), m3 = next(m2)
            fourVectors(B.self, r, j: j, m: (m0, m1, m2, m3))
            m0 = next(m3)
            j &+= 64
        }
        while j < count {
            let width = min(16, count &- j)
            let base = r.input + j
            let n = base + (last &+ 16) <= r.inputEnd ? 16 : width
            var a = SIMD16<Int32>(), z = a
            for row in 0..<r.tapRows {
                for col in 0..<r.tapCols {
                    let w = UnsafeRawPointer(weight(r, row: row, col: col) + m0).loadUnaligned(as: SIMD16<Int32>.self)
                    a = Tier.addLowProducts(a, B.widen(base + (row &* r.rowStep &+ col &* r.colStep), count: n), w)
                    if let zp = r.zeroPoint { z = Tier.addLowProducts(z, zp, w) }
                }
            }
            finish(r, a, z, m: m0, out: r.output + j, width: width)
            m0 = next(m0)
            j &+= 16
        }
    }

    /// Lanes `j..<j + 64` (all real outputs, so every load stays on their taps), the four
    /// vectors' channel offsets `m`.
    @inline(__always)
    private static func fourVectors<B: ByteWidening>(_: B.Type, _ r: Run, j: Int, m: (Int, Int, Int, Int)) {
        let (m0, m1, m2, m3) = m
        let base = r.input + j
        var a0 = SIMD16<Int32>(), a1 = a0, a2 = a0, a3 = a0
        var z0 = a0, z1 = a0, z2 = a0, z3 = a0
        for row in 0..<r.tapRows {
            for col in 0..<r.tapCols {
                let wp = weight(r, row: row, col: col)
                let w0 = UnsafeRawPointer(wp + m0).loadUnaligned(as: SIMD16<Int32>.self)
                let w1 = UnsafeRawPointer(wp + m1).loadUnaligned(as: SIMD16<Int32>.self)
                let w2 = UnsafeRawPointer(wp + m2).loadUnaligned(as: SIMD16<Int32>.self)
                let w3 = UnsafeRawPointer(wp + m3).loadUnaligned(as: SIMD16<Int32>.self)
                let x = base + (row &* r.rowStep &+ col &* r.colStep)
                a0 = Tier.addLowProducts(a0, B.widen(x, count: 16), w0)
                a1 = Tier.addLowProducts(a1, B.widen(x + 16, count: 16), w1)
                a2 = Tier.addLowProducts(a2, B.widen(x + 32, count: 16), w2)
                a3 = Tier.addLowProducts(a3, B.widen(x + 48, count: 16), w3)
                if let zp = r.zeroPoint {
                    z0 = Tier.addLowProducts(z0, zp, w0); z1 = Tier.addLowProducts(z1, zp, w1)
                    z2 = Tier.addLowProducts(z2, zp, w2); z3 = Tier.addLowProducts(z3, zp, w3)
                }
            }
        }
        let out = r.output + j
        finish(r, a0, z0, m: m0, out: out, width: 16)
        finish(r, a1, z1, m: m1, out: out + 16, width: 16)
        finish(r, a2, z2, m: m2, out: out + 32, width: 16)
        finish(r, a3, z3, m: m3, out: out + 48, width: 16)
    }
}

/// How an input byte becomes an `Int32` lane.
protocol ByteWidening {
    /// 16 bytes from `p` as `Int32` lanes; only the first `count` are read (the others are 0).
    static func widen(_ p: UnsafeRawPointer, count: Int) -> SIMD16<Int32>
}

/// uint8 inputs (`vpmovzxbd`).
enum ZeroExtended: ByteWidening {
    @inline(__always)
    static func widen(_ p: UnsafeRawPointer, count: Int) -> SIMD16<Int32> { Tier.widenBytes(p, count: count, signed: false) }
}

/// int8 inputs (`vpmovsxbd`).
enum SignExtended: ByteWidening {
    @inline(__always)
    static func widen(_ p: UnsafeRawPointer, count: Int) -> SIMD16<Int32> { Tier.widenBytes(p, count: count, signed: true) }
}
