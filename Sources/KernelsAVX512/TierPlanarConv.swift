import _Builtin_intrinsics.intel

/// The float convolution of a network's first layer (few input channels, few output channels,
/// e.g. 224 × 224 × 3 → 112 × 112 × 8, 3×3 stride 2) with output pixels in the lanes: behind
/// `PlanarConvolution`. As a GEMM its 8 output channels filled half a vector and each of the
/// 27 depth steps broadcast 12 input values for 96 products; here 16 pixels of one output row
/// share every input load and each weight is one broadcast operand of 16 products.
///
/// The input is first split into planes (`planes`): per padded input row, channel and column
/// residue s modulo the stride, the columns s, s + stride, … in a row of floats, so that a
/// tap's inputs for 16 consecutive output pixels are 16 consecutive floats. `row` then sums,
/// per block of 8 output channels, each tap into 8 accumulators (one per channel, a pixel per
/// lane; 16 for 32 pixels while they fit, each weight broadcast once for both: 6 % faster on
/// MobileNet v1's first layer), turns each 8 × 16 block into pixel-major order (24 two-source
/// permutes) and stores it.
///
/// Every output sums its taps in the filter's (ky, kx, c) order from 0 with fused multiply-adds,
/// then adds the bias: the float GEMM's order (`TierFloatGEMM`, fused), so the same bits.
package enum TierPlanarConv {
    /// Writes the planes of `count` input rows (`rowStride` floats apart; their planes
    /// `planesStride` floats apart): `dst[(c · strideW + s) · planeStride + q]` = the input at
    /// column `q · strideW + s − padLeft`, channel `c` (0 outside the row) for `q < width`.
    ///
    /// With P = inC · strideW (≤ 8) "phases" φ = s · inC + c, plane φ is every P-th float of the
    /// row shifted by `padLeft · inC`: 16 of them come from P consecutive vectors, one
    /// two-source permute (`vpermt2ps`) and blend per pair of them. Blocks reaching past either end of
    /// the row are copied one value at a time.
    package static func planes(rows src: UnsafePointer<Float>, count: Int, rowStride: Int, inW: Int, inC: Int, strideW: Int,
                               padLeft: Int, width: Int, planeStride: Int, planesStride: Int, into dst: UnsafeMutablePointer<Float>) {
        let phases = inC &* strideW
        guard phases >= 1, phases <= 8 else { return }
        withUnsafeTemporaryAllocation(of: SIMD16<Int32>.self, capacity: 32) { index in
            withUnsafeTemporaryAllocation(of: UInt16.self, capacity: 32) { masks in
                guard let index = index.baseAddress, let masks = masks.baseAddress else { return }
                // Output lane j of phase φ is float f = j·P + φ of the block: lane f mod 32 of
                // the source pair f / 32 (vectors 2i and 2i + 1; an odd P's last pair is its
                // last vector twice, and f mod 32 < 16 there).
                let pairs = (phases &+ 1) / 2
                for phase in 0..<phases {
                    for pair in 0..<pairs {
                        var lanes = SIMD16<Int32>(), mask: UInt16 = 0
                        for j in 0..<16 {
                            let f = j &* phases &+ phase
                            lanes[j] = Int32(truncatingIfNeeded: f & 31)
                            if f >> 5 == pair { mask |= UInt16(truncatingIfNeeded: 1 << j) }
                        }
                        index[phase &* pairs &+ pair] = lanes
                        masks[phase &* pairs &+ pair] = mask
                    }
                }
                // A constant phase count unrolls the block (the sources stay in registers).
                // Constant channel counts and strides unroll the block (the sources stay in registers).
                switch (inC, strideW) {
                case (3, 2): planeRows(3, 2, rows: src, count: count, rowStride: rowStride, inW: inW, padLeft: padLeft, width: width,
                                       planeStride: planeStride, planesStride: planesStride, into: dst, index: index, masks: masks)
                case (3, 1): planeRows(3, 1, rows: src, count: count, rowStride: rowStride, inW: inW, padLeft: padLeft, width: width,
                                       planeStride: planeStride, planesStride: planesStride, into: dst, index: index, masks: masks)
                default: planeRows(inC, strideW, rows: src, count: count, rowStride: rowStride, inW: inW, padLeft: padLeft,
                                   width: width, planeStride: planeStride, planesStride: planesStride, into: dst, index: index,
                                   masks: masks)
                }
            }
        }
    }

    @inline(__always)
    private static func planeRows(_ inC: Int, _ strideW: Int, rows src: UnsafePointer<Float>, count: Int, rowStride: Int, inW: Int,
                                  padLeft: Int, width: Int, planeStride: Int, planesStride: Int,
                                  into dst: UnsafeMutablePointer<Float>, index: UnsafePointer<SIMD16<Int32>>,
                                  masks: UnsafePointer<UInt16>) {
        let phases = inC &* strideW
        let pairs = (phases &+ 1) / 2
        let rowFloats = inW &* inC, shift = padLeft &* inC
        for r in 0..<count {
            let row = src + r &* rowStride, planes = dst + r &* planesStride
            var q = 0
            while q < width {
                let first = q &* phases &- shift
                if first >= 0 && first &+ 16 &* phases <= rowFloats {
                    let from = row + first
                    for s in 0..<strideW {
                      for c in 0..<inC {
                        let phase = s &* inC &+ c
                        var v = _mm512_setzero_ps()
                        for pair in 0..<pairs {
                            let a = UnsafeRawPointer(from + pair &* 32).loadUnaligned(as: SIMD16<Float>.self)
                            let b = 2 &* pair &+ 1 < phases ? UnsafeRawPointer(from + (pair &* 32 &+ 16)).loadUnaligned(as: SIMD16<Float>.self) : a
                            let k = phase &* pairs &+ pair
                            let t = _mm512_permutex2var_ps(a, unsafeBitCast(index[k], to: __m512i.self), b)
                            v = _mm512_mask_blend_ps(__mmask16(masks[k]), v, t)
                        }
                        let plane: Int = c &* strideW &+ s
                        let at: UnsafeMutablePointer<Float> = planes + (plane &* planeStride &+ q)
                        UnsafeMutableRawPointer(at).storeBytes(of: v, as: SIMD16<Float>.self)
                      }
                    }
                } else {
                    for c in 0..<inC {
                        for s in 0..<strideW {
                            let d = planes + (c &* strideW &+ s) &* planeStride
                            for k in q..<min(q &+ 16, width) {
                                let ix = k &* strideW &+ s &- padLeft
                                d[k] = ix >= 0 && ix < inW ? row[ix &* inC &+ c] : 0
                            }
                        }
                    }
                }
                q &+= 16
            }
        }
    }

    /// One output row of `pixels` (≥ 16) pixels and `outC` channels. `base` is the planes of the
    /// row's first tap row; tap t's 16 inputs for pixels x…x+15 are at `base + taps[t] + x`.
    /// `weights` holds per block of 8 output channels `[tapCount][8]` (channels past `outC` 0).
    /// `mode`: 0 nothing, 1 clamp to `lo…hi`, 2 SiLU, after the bias.
    package static func row(base: UnsafePointer<Float>, taps: UnsafePointer<Int>, tapCount: Int, weights: UnsafePointer<Float>,
                            bias: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>, pixels: Int, outC: Int,
                            lo: Float, hi: Float, mode: Int) {
        let blocks = (outC &+ 7) / 8
        var x = 0
        while x < pixels {
            // The last block ends at the last pixel (its first pixels computed again, the same way).
            if x &+ 16 > pixels { x = pixels &- 16 }
            // 32 pixels a step while they fit: 16 sums in flight, each weight broadcast once for both halves.
            let both = x &+ 32 <= pixels
            var b = 0
            while b < blocks {
                let width = min(8, outC &- b &* 8)
                if both {
                    pair(base: base + x, taps: taps, tapCount: tapCount, weights: weights + b &* tapCount &* 8,
                         bias: bias.map { $0 + b &* 8 }, width: width, output: output + x &* outC + b &* 8, outC: outC,
                         lo: lo, hi: hi, mode: mode)
                } else {
                    block(base: base + x, taps: taps, tapCount: tapCount, weights: weights + b &* tapCount &* 8,
                          bias: bias.map { $0 + b &* 8 }, width: width, output: output + x &* outC + b &* 8, outC: outC,
                          lo: lo, hi: hi, mode: mode)
                }
                b &+= 1
            }
            x &+= both ? 32 : 16
        }
    }

    @inline(__always)
    private static func block(base: UnsafePointer<Float>, taps: UnsafePointer<Int>, tapCount: Int, weights: UnsafePointer<Float>,
                              bias: UnsafePointer<Float>?, width: Int, output: UnsafeMutablePointer<Float>, outC: Int,
                              lo: Float, hi: Float, mode: Int) {
        var a0 = SIMD16<Float>(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0
        var t = 0
        var w = weights
        while t < tapCount {
            let v = UnsafeRawPointer(base + taps[t]).loadUnaligned(as: SIMD16<Float>.self)
            a0 = a0.addingProduct(v, SIMD16(repeating: w[0]))
            a1 = a1.addingProduct(v, SIMD16(repeating: w[1]))
            a2 = a2.addingProduct(v, SIMD16(repeating: w[2]))
            a3 = a3.addingProduct(v, SIMD16(repeating: w[3]))
            a4 = a4.addingProduct(v, SIMD16(repeating: w[4]))
            a5 = a5.addingProduct(v, SIMD16(repeating: w[5]))
            a6 = a6.addingProduct(v, SIMD16(repeating: w[6]))
            a7 = a7.addingProduct(v, SIMD16(repeating: w[7]))
            w += 8
            t &+= 1
        }
        put(a0, a1, a2, a3, a4, a5, a6, a7, bias: bias, width: width, output: output, outC: outC, lo: lo, hi: hi, mode: mode)
    }

    /// `block` for pixels x…x+31 (two blocks of 16 sharing each weight broadcast).
    @inline(__always)
    private static func pair(base: UnsafePointer<Float>, taps: UnsafePointer<Int>, tapCount: Int, weights: UnsafePointer<Float>,
                             bias: UnsafePointer<Float>?, width: Int, output: UnsafeMutablePointer<Float>, outC: Int,
                             lo: Float, hi: Float, mode: Int) {
        var a0 = SIMD16<Float>(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0
        var b0 = a0, b1 = a0, b2 = a0, b3 = a0, b4 = a0, b5 = a0, b6 = a0, b7 = a0
        var t = 0
        var w = weights
        while t < tapCount {
            let from = UnsafeRawPointer(base + taps[t])
            let u = from.loadUnaligned(as: SIMD16<Float>.self), v = from.loadUnaligned(fromByteOffset: 64, as: SIMD16<Float>.self)
            var c = SIMD16<Float>(repeating: w[0])
            a0 = a0.addingProduct(u, c); b0 = b0.addingProduct(v, c)
            c = SIMD16(repeating: w[1]); a1 = a1.addingProduct(u, c); b1 = b1.addingProduct(v, c)
            c = SIMD16(repeating: w[2]); a2 = a2.addingProduct(u, c); b2 = b2.addingProduct(v, c)
            c = SIMD16(repeating: w[3]); a3 = a3.addingProduct(u, c); b3 = b3.addingProduct(v, c)
            c = SIMD16(repeating: w[4]); a4 = a4.addingProduct(u, c); b4 = b4.addingProduct(v, c)
            c = SIMD16(repeating: w[5]); a5 = a5.addingProduct(u, c); b5 = b5.addingProduct(v, c)
            c = SIMD16(repeating: w[6]); a6 = a6.addingProduct(u, c); b6 = b6.addingProduct(v, c)
            c = SIMD16(repeating: w[7]); a7 = a7.addingProduct(u, c); b7 = b7.addingProduct(v, c)
            w += 8
            t &+= 1
        }
        put(a0, a1, a2, a3, a4, a5, a6, a7, bias: bias, width: width, output: output, outC: outC, lo: lo, hi: hi, mode: mode)
        put(b0, b1, b2, b3, b4, b5, b6, b7, bias: bias, width: width, output: output + 16 &* outC, outC: outC,
            lo: lo, hi: hi, mode: mode)
    }

    /// Bias, activation and store of one block's sums `a_c` (channel c, pixel per lane).
    @inline(__always)
    private static func put(_ a0: SIMD16<Float>, _ a1: SIMD16<Float>, _ a2: SIMD16<Float>, _ a3: SIMD16<Float>,
                            _ a4: SIMD16<Float>, _ a5: SIMD16<Float>, _ a6: SIMD16<Float>, _ a7: SIMD16<Float>,
                            bias: UnsafePointer<Float>?, width: Int, output: UnsafeMutablePointer<Float>, outC: Int,
                            lo: Float, hi: Float, mode: Int) {
        // Channel-major (a_c: pixel per lane) → pixel-major (o_j: pixels 2j and 2j + 1, 8
        // channels each), in three rounds of two-source permutes: channel pairs interleaved
        // (pixel, c mod 2), then pairs of pairs (pixel, c mod 4), then halves (pixel, c).
        let p0 = perm(a0, Index.pairsLow, a1), p1 = perm(a0, Index.pairsHigh, a1)
        let p2 = perm(a2, Index.pairsLow, a3), p3 = perm(a2, Index.pairsHigh, a3)
        let p4 = perm(a4, Index.pairsLow, a5), p5 = perm(a4, Index.pairsHigh, a5)
        let p6 = perm(a6, Index.pairsLow, a7), p7 = perm(a6, Index.pairsHigh, a7)
        // q: 4 pixels × channels 0–3 (q0…q3 for pixels 0–3, 4–7, 8–11, 12–15), r: channels 4–7.
        let q0 = perm(p0, Index.quadsLow, p2), q1 = perm(p0, Index.quadsHigh, p2)
        let q2 = perm(p1, Index.quadsLow, p3), q3 = perm(p1, Index.quadsHigh, p3)
        let r0 = perm(p4, Index.quadsLow, p6), r1 = perm(p4, Index.quadsHigh, p6)
        let r2 = perm(p5, Index.quadsLow, p7), r3 = perm(p5, Index.quadsHigh, p7)
        let biasHalf = bias.map { Tier.load($0, count: width).lowHalf } ?? SIMD8<Float>()
        let biasVector = SIMD16(lowHalf: biasHalf, highHalf: biasHalf)
        @inline(__always) func store(_ v: SIMD16<Float>, _ j: Int) {
            let o = TierFloatGEMM.finish(v, bias: biasVector, lo: lo, hi: hi, mode: mode)
            let p = output + (2 &* j) &* outC
            if outC == 8 {
                UnsafeMutableRawPointer(p).storeBytes(of: o, as: SIMD16<Float>.self)
            } else if width == 8 {
                UnsafeMutableRawPointer(p).storeBytes(of: o.lowHalf, as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(p + outC).storeBytes(of: o.highHalf, as: SIMD8<Float>.self)
            } else {
                Tier.store(o, to: p, count: width)
                Tier.store(SIMD16(lowHalf: o.highHalf, highHalf: o.highHalf), to: p + outC, count: width)
            }
        }
        store(perm(q0, Index.halvesLow, r0), 0); store(perm(q0, Index.halvesHigh, r0), 1)
        store(perm(q1, Index.halvesLow, r1), 2); store(perm(q1, Index.halvesHigh, r1), 3)
        store(perm(q2, Index.halvesLow, r2), 4); store(perm(q2, Index.halvesHigh, r2), 5)
        store(perm(q3, Index.halvesLow, r3), 6); store(perm(q3, Index.halvesHigh, r3), 7)
    }

    /// Lane l of the result: `a[i]` for index i < 16, else `b[i − 16]` (`vpermt2ps`).
    @inline(__always)
    private static func perm(_ a: SIMD16<Float>, _ index: SIMD16<Int32>, _ b: SIMD16<Float>) -> SIMD16<Float> {
        _mm512_permutex2var_ps(a, unsafeBitCast(index, to: __m512i.self), b)
    }

    /// The permutes' lane indices (16 + i: the second operand's lane i).
    private enum Index {
        /// a0 b0 a1 b1 … a7 b7, and the same for lanes 8–15.
        static var pairsLow: SIMD16<Int32> { SIMD16(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23) }
        static var pairsHigh: SIMD16<Int32> { SIMD16(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31) }
        /// Two-lane groups alternately from a and b: (a0 a1)(b0 b1)(a2 a3)(b2 b3)…
        static var quadsLow: SIMD16<Int32> { SIMD16(0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23) }
        static var quadsHigh: SIMD16<Int32> { SIMD16(8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31) }
        /// Four-lane groups alternately from a and b.
        static var halvesLow: SIMD16<Int32> { SIMD16(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23) }
        static var halvesHigh: SIMD16<Int32> { SIMD16(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31) }
    }
}
