/// The float depthwise convolution of every tier (multiplier 1): output pixels whose every
/// horizontal tap is inside the image, 4 pixels × `DepthwiseLanes` channels per step, each
/// filter vector loaded once for the 4 pixels; with masked loads (AVX-512) 8 pixels per step
/// while 8 remain, a block of at most 8 channels as 8-lane vectors (measured on the AMD EPYC
/// Zen 4: 8 channels 1.75× faster than 4 pixels of half-masked 16 lanes, 24 channels 1.3×),
/// and 4 pixels × 2 vectors where fewer than 8 remain. A single (edge) pixel takes 4 vectors
/// of channels a step. Both keep 4–8 sums in flight where one vector of 16 lanes left the
/// multiply-add latency unfilled (Intel Xeon, paired in one process: 7 × 7 × 256 3×3 layer
/// −36 %, 14 × 14 × 128 −21 %). `DepthwiseLanes` is the module's own (its
/// `Tier.swift`): 16 lanes at AVX2 and AVX-512, 8 at the baseline, whose 16 xmm registers hold
/// the 4 × 8 accumulators without spilling (at 16 lanes an 8-channel layer ran 4× slower).
///
/// Each output sums its taps in (ky, kx) order from 0 and adds the bias last, as the
/// reference loop does: bit-identical with `fused` false, one `vfmadd` per tap with it.
package enum TierDepthwise {
    /// `pixels` consecutive output pixels of one row. `input` is the first pixel's first tap
    /// (row `kyLo`'s offset is added here), `filter` is `[kH][kW][channels]` from the first
    /// tap column, `output` the first output pixel. Taps: rows `kyLo..<kyHi` (`rowStep` apart),
    /// `taps` columns (`colStep` apart; fewer than `kW` at the image's left and right edges,
    /// with `input` and `filter` starting at the first column inside); pixels are `pixelStep`
    /// apart in the input. Groups of 8 (AVX-512) or 4 pixels, the last group ending at the last
    /// pixel; fewer than 4 pixels one at a time.
    package static func interior(input: UnsafePointer<Float>, filter: UnsafePointer<Float>, bias: UnsafePointer<Float>?,
                                 output: UnsafeMutablePointer<Float>, channels: Int, pixels: Int,
                                 kyLo: Int, kyHi: Int, kW: Int, taps: Int, rowStep: Int, colStep: Int, pixelStep: Int,
                                 clampMin: Float, clampMax: Float, fused: Bool) {
        if fused {
            run(Fused.self, input: input, filter: filter, bias: bias, output: output, channels: channels, pixels: pixels,
                kyLo: kyLo, kyHi: kyHi, kW: kW, taps: taps, rowStep: rowStep, colStep: colStep, pixelStep: pixelStep,
                clampMin: clampMin, clampMax: clampMax)
        } else {
            run(Separate.self, input: input, filter: filter, bias: bias, output: output, channels: channels, pixels: pixels,
                kyLo: kyLo, kyHi: kyHi, kW: kW, taps: taps, rowStep: rowStep, colStep: colStep, pixelStep: pixelStep,
                clampMin: clampMin, clampMax: clampMax)
        }
    }

    @inline(__always)
    private static func run<M: MultiplyAdd>(_: M.Type, input: UnsafePointer<Float>, filter: UnsafePointer<Float>,
                                            bias: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>,
                                            channels C: Int, pixels: Int, kyLo: Int, kyHi: Int, kW: Int, taps: Int,
                                            rowStep: Int, colStep: Int, pixelStep: Int, clampMin: Float, clampMax: Float) {
        let lanes = DepthwiseLanes.scalarCount
        let lo = DepthwiseLanes(repeating: clampMin), hi = DepthwiseLanes(repeating: clampMax)
        let clamps = clampMin > -.greatestFiniteMagnitude || clampMax < .greatestFiniteMagnitude
        // A run's last group of pixels ends at its last pixel, overlapping the group before (the
        // overlapped pixels are computed again, the same way, to the same values): 31 interior
        // pixels ran as 8 + 8 + 8 + 4 + 3 single pixels, and the single-pixel kernel, one
        // dependent chain per 16 channels, was a fifth of a 33 × 33 × 480 layer (Intel Xeon).
        var p = 0
        if lanes == 16 && C == 8 && pixelStep == 8 && pixels >= 16 {
            // 8 channels at stride 1 (16 lanes: AVX2, AVX-512): two neighbouring pixels are one
            // contiguous 16-lane vector, so 16 pixels a step take 8 whole vectors per tap (8 sums
            // in flight, no empty lanes, no width checks), the last step ending at the last
            // pixel. MobileNet v1's 112 × 112 × 8 layer: 0.102 → 0.034 ms at AVX-512, 0.157 →
            // 0.097 ms at AVX2 (Intel Xeon, family 6 model 207).
            while p < pixels {
                if p &+ 16 > pixels { p = pixels &- 16 }
                sixteenOfEight(M.self, base: input + p &* 8, filter: filter, bias: bias, o: output + p &* 8,
                               kyLo: kyLo, kyHi: kyHi, kW: kW, taps: taps, rowStep: rowStep, colStep: colStep,
                               clamps: clamps, lo: SIMD16(repeating: clampMin), hi: SIMD16(repeating: clampMax))
                p &+= 16
            }
            return
        }
        while p &+ 4 <= pixels || (p < pixels && pixels >= 4) {
            if p &+ 4 > pixels { p = pixels &- 4 }
            if Tier.hasMaskedLoads && pixels >= 8 && p &+ 8 > pixels && pixels &- p > 4 { p = pixels &- 8 }
            let base = input + p &* pixelStep, o = output + p &* C
            var c = 0
            if Tier.hasMaskedLoads {
                // AVX-512: a partial load is one masked load, cheap inside the loop. 8 pixels a
                // step where they fit: 8 independent sums per tap (4 leave a 4-cycle multiply-add
                // latency between a sum's taps unfilled on a core with two FMA pipes), and 8
                // channels or fewer as 8-lane vectors (no multiply-adds on padding lanes).
                if p &+ 8 <= pixels {
                    while c < C {
                        let width = min(16, C &- c)
                        if width <= 8 {
                            eight8(M.self, base: base, filter: filter, bias: bias, o: o, c: c, width: width, channels: C,
                                   kyLo: kyLo, kyHi: kyHi, kW: kW, taps: taps, rowStep: rowStep, colStep: colStep, pixelStep: pixelStep,
                                   clamps: clamps, lo: clampMin, hi: clampMax)
                        } else {
                            eight(M.self, base: base, filter: filter, bias: bias, o: o, c: c, width: width, channels: C,
                                  kyLo: kyLo, kyHi: kyHi, kW: kW, taps: taps, rowStep: rowStep, colStep: colStep, pixelStep: pixelStep,
                                  clamps: clamps, lo: SIMD16(repeating: clampMin), hi: SIMD16(repeating: clampMax))
                        }
                        c &+= 16
                    }
                    p &+= 8
                    continue
                }
                // 4 pixels: two vectors of channels a step where they fit (8 independent sums,
                // as in `eight`; 4 leave the multiply-add latency unfilled), whole loads.
                while c &+ 2 &* lanes <= C {
                    pair(M.self, base: base, filter: filter, bias: bias, o: o, c: c, channels: C, kyLo: kyLo, kyHi: kyHi,
                         kW: kW, taps: taps, rowStep: rowStep, colStep: colStep, pixelStep: pixelStep,
                         clamps: clamps, lo: lo, hi: hi)
                    c &+= 2 &* lanes
                }
                while c < C {
                    block(M.self, full: false, base: base, filter: filter, bias: bias, o: o, c: c, width: min(lanes, C &- c),
                          channels: C, kyLo: kyLo, kyHi: kyHi, kW: kW, taps: taps, rowStep: rowStep, colStep: colStep,
                          pixelStep: pixelStep, clamps: clamps, lo: lo, hi: hi)
                    c &+= lanes
                }
                p &+= 4
                continue
            }
            // Whole vectors of channels, then the last partial one: the partial loads stay out
            // of the loop over whole vectors (an out-of-line partial load there makes the
            // accumulators spill around it; measured 1.75× slower at the baseline).
            while c &+ lanes <= C {
                block(M.self, full: true, base: base, filter: filter, bias: bias, o: o, c: c, width: lanes, channels: C,
                      kyLo: kyLo, kyHi: kyHi, kW: kW, taps: taps, rowStep: rowStep, colStep: colStep, pixelStep: pixelStep,
                      clamps: clamps, lo: lo, hi: hi)
                c &+= lanes
            }
            if c < C {
                block(M.self, full: false, base: base, filter: filter, bias: bias, o: o, c: c, width: C &- c, channels: C,
                      kyLo: kyLo, kyHi: kyHi, kW: kW, taps: taps, rowStep: rowStep, colStep: colStep, pixelStep: pixelStep,
                      clamps: clamps, lo: lo, hi: hi)
            }
            p &+= 4
        }
        while p < pixels {
            one(M.self, base: input + p &* pixelStep, filter: filter, bias: bias, o: output + p &* C, channels: C,
                kyLo: kyLo, kyHi: kyHi, kW: kW, taps: taps, rowStep: rowStep, colStep: colStep,
                clamps: clamps, lo: lo, hi: hi)
            p &+= 1
        }
    }

    /// One pixel, every channel: whole vectors, then the last partial one (out of the loop over
    /// whole vectors, as in `run`). Each channel's sum is one chain over the taps in order.
    @inline(never)
    private static func one<M: MultiplyAdd>(_: M.Type, base: UnsafePointer<Float>, filter: UnsafePointer<Float>,
                                            bias: UnsafePointer<Float>?, o: UnsafeMutablePointer<Float>, channels C: Int,
                                            kyLo: Int, kyHi: Int, kW: Int, taps: Int, rowStep: Int, colStep: Int,
                                            clamps: Bool, lo: DepthwiseLanes, hi: DepthwiseLanes) {
        let lanes = DepthwiseLanes.scalarCount
        @inline(__always) func pixel(_ c: Int, _ width: Int, full: Bool) {
            @inline(__always) func load(_ p: UnsafePointer<Float>) -> DepthwiseLanes {
                full ? UnsafeRawPointer(p).loadUnaligned(as: DepthwiseLanes.self) : TierMath.load(p, count: width, as: DepthwiseLanes.self)
            }
            var a = DepthwiseLanes()
            var ky = kyLo
            while ky < kyHi {
                let ip = base + (ky &* rowStep &+ c)
                let wp = filter + (ky &* kW &* C &+ c)
                var kx = 0
                while kx < taps {
                    a = M.add(a, load(ip + kx &* colStep), load(wp + kx &* C))
                    kx &+= 1
                }
                ky &+= 1
            }
            if let bias { a += load(bias + c) }
            if clamps { a = TierMath.clamp(a, lo: lo, hi: hi) }
            TierMath.store(a, to: o + c, count: width)
        }
        // Four whole vectors a step: four independent sums (one would wait out the multiply-add
        // latency at every tap), each still over the taps in order.
        var c = 0
        while c &+ 4 &* lanes <= C {
            @inline(__always) func load(_ p: UnsafePointer<Float>) -> DepthwiseLanes { UnsafeRawPointer(p).loadUnaligned(as: DepthwiseLanes.self) }
            var a0 = DepthwiseLanes(), a1 = a0, a2 = a0, a3 = a0
            var ky = kyLo
            while ky < kyHi {
                let ip = base + (ky &* rowStep &+ c)
                let wp = filter + (ky &* kW &* C &+ c)
                var kx = 0
                while kx < taps {
                    let x = ip + kx &* colStep, w = wp + kx &* C
                    a0 = M.add(a0, load(x), load(w))
                    a1 = M.add(a1, load(x + lanes), load(w + lanes))
                    a2 = M.add(a2, load(x + 2 &* lanes), load(w + 2 &* lanes))
                    a3 = M.add(a3, load(x + 3 &* lanes), load(w + 3 &* lanes))
                    kx &+= 1
                }
                ky &+= 1
            }
            if let bias {
                a0 += load(bias + c); a1 += load(bias + (c &+ lanes))
                a2 += load(bias + (c &+ 2 &* lanes)); a3 += load(bias + (c &+ 3 &* lanes))
            }
            if clamps {
                a0 = TierMath.clamp(a0, lo: lo, hi: hi); a1 = TierMath.clamp(a1, lo: lo, hi: hi)
                a2 = TierMath.clamp(a2, lo: lo, hi: hi); a3 = TierMath.clamp(a3, lo: lo, hi: hi)
            }
            TierMath.store(a0, to: o + c, count: lanes)
            TierMath.store(a1, to: o + (c &+ lanes), count: lanes)
            TierMath.store(a2, to: o + (c &+ 2 &* lanes), count: lanes)
            TierMath.store(a3, to: o + (c &+ 3 &* lanes), count: lanes)
            c &+= 4 &* lanes
        }
        while c &+ lanes <= C {
            pixel(c, lanes, full: true)
            c &+= lanes
        }
        if c < C { pixel(c, C &- c, full: false) }
    }

    /// 4 pixels × 2 whole vectors of channels from channel `c` (AVX-512: 8 accumulators).
    @inline(__always)
    private static func pair<M: MultiplyAdd>(_: M.Type, base: UnsafePointer<Float>, filter: UnsafePointer<Float>,
                                             bias: UnsafePointer<Float>?, o: UnsafeMutablePointer<Float>, c: Int,
                                             channels C: Int, kyLo: Int, kyHi: Int, kW: Int, taps: Int, rowStep: Int, colStep: Int,
                                             pixelStep: Int, clamps: Bool, lo: DepthwiseLanes, hi: DepthwiseLanes) {
        let lanes = DepthwiseLanes.scalarCount
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> DepthwiseLanes { UnsafeRawPointer(p).loadUnaligned(as: DepthwiseLanes.self) }
        var a0 = DepthwiseLanes(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0
        var ky = kyLo
        while ky < kyHi {
            let ip = base + (ky &* rowStep &+ c)
            let wp = filter + (ky &* kW &* C &+ c)
            var kx = 0
            while kx < taps {
                let w = load(wp + kx &* C), v = load(wp + (kx &* C &+ lanes))
                let xp = ip + kx &* colStep
                a0 = M.add(a0, load(xp), w); b0 = M.add(b0, load(xp + lanes), v)
                a1 = M.add(a1, load(xp + pixelStep), w); b1 = M.add(b1, load(xp + (pixelStep &+ lanes)), v)
                a2 = M.add(a2, load(xp + 2 &* pixelStep), w); b2 = M.add(b2, load(xp + (2 &* pixelStep &+ lanes)), v)
                a3 = M.add(a3, load(xp + 3 &* pixelStep), w); b3 = M.add(b3, load(xp + (3 &* pixelStep &+ lanes)), v)
                kx &+= 1
            }
            ky &+= 1
        }
        if let bias {
            let u = load(bias + c), v = load(bias + (c &+ lanes))
            a0 += u; a1 += u; a2 += u; a3 += u; b0 += v; b1 += v; b2 += v; b3 += v
        }
        if clamps {
            a0 = TierMath.clamp(a0, lo: lo, hi: hi); a1 = TierMath.clamp(a1, lo: lo, hi: hi)
            a2 = TierMath.clamp(a2, lo: lo, hi: hi); a3 = TierMath.clamp(a3, lo: lo, hi: hi)
            b0 = TierMath.clamp(b0, lo: lo, hi: hi); b1 = TierMath.clamp(b1, lo: lo, hi: hi)
            b2 = TierMath.clamp(b2, lo: lo, hi: hi); b3 = TierMath.clamp(b3, lo: lo, hi: hi)
        }
        TierMath.store(a0, to: o + c, count: lanes); TierMath.store(b0, to: o + (c &+ lanes), count: lanes)
        TierMath.store(a1, to: o + (C &+ c), count: lanes); TierMath.store(b1, to: o + (C &+ c &+ lanes), count: lanes)
        TierMath.store(a2, to: o + (2 &* C &+ c), count: lanes); TierMath.store(b2, to: o + (2 &* C &+ c &+ lanes), count: lanes)
        TierMath.store(a3, to: o + (3 &* C &+ c), count: lanes); TierMath.store(b3, to: o + (3 &* C &+ c &+ lanes), count: lanes)
    }

    /// 4 pixels × `width` channels from channel `c`; `full`: `width` is the whole vector.
    @inline(__always)
    private static func block<M: MultiplyAdd>(_: M.Type, full: Bool, base: UnsafePointer<Float>, filter: UnsafePointer<Float>,
                                              bias: UnsafePointer<Float>?, o: UnsafeMutablePointer<Float>, c: Int, width: Int,
                                              channels C: Int, kyLo: Int, kyHi: Int, kW: Int, taps: Int, rowStep: Int, colStep: Int,
                                              pixelStep: Int, clamps: Bool, lo: DepthwiseLanes, hi: DepthwiseLanes) {
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> DepthwiseLanes {
            full ? UnsafeRawPointer(p).loadUnaligned(as: DepthwiseLanes.self) : TierMath.load(p, count: width, as: DepthwiseLanes.self)
        }
        var a0 = DepthwiseLanes(), a1 = a0, a2 = a0, a3 = a0
        var ky = kyLo
        while ky < kyHi {
            let ip = base + (ky &* rowStep &+ c)
            let wp = filter + (ky &* kW &* C &+ c)
            var kx = 0
            while kx < taps {
                let w = load(wp + kx &* C)
                let xp = ip + kx &* colStep
                a0 = M.add(a0, load(xp), w)
                a1 = M.add(a1, load(xp + pixelStep), w)
                a2 = M.add(a2, load(xp + 2 &* pixelStep), w)
                a3 = M.add(a3, load(xp + 3 &* pixelStep), w)
                kx &+= 1
            }
            ky &+= 1
        }
        if let bias {
            let b = load(bias + c)
            a0 += b; a1 += b; a2 += b; a3 += b
        }
        if clamps {
            a0 = TierMath.clamp(a0, lo: lo, hi: hi); a1 = TierMath.clamp(a1, lo: lo, hi: hi)
            a2 = TierMath.clamp(a2, lo: lo, hi: hi); a3 = TierMath.clamp(a3, lo: lo, hi: hi)
        }
        TierMath.store(a0, to: o + c, count: width)
        TierMath.store(a1, to: o + (C &+ c), count: width)
        TierMath.store(a2, to: o + (2 &* C &+ c), count: width)
        TierMath.store(a3, to: o + (3 &* C &+ c), count: width)
    }

    /// 8 pixels × `width` (≤ 16) channels from channel `c` (masked loads: AVX-512 only).
    @inline(__always)
    private static func eight<M: MultiplyAdd>(_: M.Type, base: UnsafePointer<Float>, filter: UnsafePointer<Float>,
                                              bias: UnsafePointer<Float>?, o: UnsafeMutablePointer<Float>, c: Int, width: Int,
                                              channels C: Int, kyLo: Int, kyHi: Int, kW: Int, taps: Int, rowStep: Int, colStep: Int,
                                              pixelStep: Int, clamps: Bool, lo: SIMD16<Float>, hi: SIMD16<Float>) {
        // Every load masked (as cheap as a whole one with AVX-512): no branch on the width per load.
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD16<Float> { Tier.load(p, count: width) }
        var a0 = SIMD16<Float>(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0
        var ky = kyLo
        while ky < kyHi {
            let ip = base + (ky &* rowStep &+ c)
            let wp = filter + (ky &* kW &* C &+ c)
            var kx = 0
            while kx < taps {
                let w = load(wp + kx &* C)
                let xp = ip + kx &* colStep
                a0 = M.add(a0, load(xp), w)
                a1 = M.add(a1, load(xp + pixelStep), w)
                a2 = M.add(a2, load(xp + 2 &* pixelStep), w)
                a3 = M.add(a3, load(xp + 3 &* pixelStep), w)
                a4 = M.add(a4, load(xp + 4 &* pixelStep), w)
                a5 = M.add(a5, load(xp + 5 &* pixelStep), w)
                a6 = M.add(a6, load(xp + 6 &* pixelStep), w)
                a7 = M.add(a7, load(xp + 7 &* pixelStep), w)
                kx &+= 1
            }
            ky &+= 1
        }
        if let bias {
            let b = load(bias + c)
            a0 += b; a1 += b; a2 += b; a3 += b; a4 += b; a5 += b; a6 += b; a7 += b
        }
        if clamps {
            a0 = TierMath.clamp(a0, lo: lo, hi: hi); a1 = TierMath.clamp(a1, lo: lo, hi: hi)
            a2 = TierMath.clamp(a2, lo: lo, hi: hi); a3 = TierMath.clamp(a3, lo: lo, hi: hi)
            a4 = TierMath.clamp(a4, lo: lo, hi: hi); a5 = TierMath.clamp(a5, lo: lo, hi: hi)
            a6 = TierMath.clamp(a6, lo: lo, hi: hi); a7 = TierMath.clamp(a7, lo: lo, hi: hi)
        }
        TierMath.store(a0, to: o + c, count: width)
        TierMath.store(a1, to: o + (C &+ c), count: width)
        TierMath.store(a2, to: o + (2 &* C &+ c), count: width)
        TierMath.store(a3, to: o + (3 &* C &+ c), count: width)
        TierMath.store(a4, to: o + (4 &* C &+ c), count: width)
        TierMath.store(a5, to: o + (5 &* C &+ c), count: width)
        TierMath.store(a6, to: o + (6 &* C &+ c), count: width)
        TierMath.store(a7, to: o + (7 &* C &+ c), count: width)
    }

    /// 16 consecutive pixels of a layer of exactly 8 channels at stride 1 (`pixelStep` 8): the
    /// pixels 2j and 2j + 1 are one 16-lane vector (contiguous in the input and the output),
    /// each tap's 8 weights repeated in both halves. Same sums in the same order as `eight8`.
    @inline(__always)
    private static func sixteenOfEight<M: MultiplyAdd>(_: M.Type, base: UnsafePointer<Float>, filter: UnsafePointer<Float>,
                                                        bias: UnsafePointer<Float>?, o: UnsafeMutablePointer<Float>,
                                                        kyLo: Int, kyHi: Int, kW: Int, taps: Int, rowStep: Int, colStep: Int,
                                                        clamps: Bool, lo: SIMD16<Float>, hi: SIMD16<Float>) {
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD16<Float> {
            UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self)
        }
        @inline(__always) func twice(_ p: UnsafePointer<Float>) -> SIMD16<Float> {
            let h = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
            return SIMD16(lowHalf: h, highHalf: h)
        }
        var a0 = SIMD16<Float>(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0
        var ky = kyLo
        while ky < kyHi {
            let ip = base + ky &* rowStep
            let wp = filter + ky &* kW &* 8
            var kx = 0
            while kx < taps {
                let w = twice(wp + kx &* 8)
                let xp = ip + kx &* colStep
                a0 = M.add(a0, load(xp), w)
                a1 = M.add(a1, load(xp + 16), w)
                a2 = M.add(a2, load(xp + 32), w)
                a3 = M.add(a3, load(xp + 48), w)
                a4 = M.add(a4, load(xp + 64), w)
                a5 = M.add(a5, load(xp + 80), w)
                a6 = M.add(a6, load(xp + 96), w)
                a7 = M.add(a7, load(xp + 112), w)
                kx &+= 1
            }
            ky &+= 1
        }
        if let bias {
            let b = twice(bias)
            a0 += b; a1 += b; a2 += b; a3 += b; a4 += b; a5 += b; a6 += b; a7 += b
        }
        if clamps {
            a0 = TierMath.clamp(a0, lo: lo, hi: hi); a1 = TierMath.clamp(a1, lo: lo, hi: hi)
            a2 = TierMath.clamp(a2, lo: lo, hi: hi); a3 = TierMath.clamp(a3, lo: lo, hi: hi)
            a4 = TierMath.clamp(a4, lo: lo, hi: hi); a5 = TierMath.clamp(a5, lo: lo, hi: hi)
            a6 = TierMath.clamp(a6, lo: lo, hi: hi); a7 = TierMath.clamp(a7, lo: lo, hi: hi)
        }
        let out = UnsafeMutableRawPointer(o)
        out.storeBytes(of: a0, as: SIMD16<Float>.self)
        (out + 64).storeBytes(of: a1, as: SIMD16<Float>.self)
        (out + 128).storeBytes(of: a2, as: SIMD16<Float>.self)
        (out + 192).storeBytes(of: a3, as: SIMD16<Float>.self)
        (out + 256).storeBytes(of: a4, as: SIMD16<Float>.self)
        (out + 320).storeBytes(of: a5, as: SIMD16<Float>.self)
        (out + 384).storeBytes(of: a6, as: SIMD16<Float>.self)
        (out + 448).storeBytes(of: a7, as: SIMD16<Float>.self)
    }

    /// `eight` with at most 8 channels, as 8-lane vectors.
    @inline(__always)
    private static func eight8<M: MultiplyAdd>(_: M.Type, base: UnsafePointer<Float>, filter: UnsafePointer<Float>,
                                               bias: UnsafePointer<Float>?, o: UnsafeMutablePointer<Float>, c: Int, width: Int,
                                               channels C: Int, kyLo: Int, kyHi: Int, kW: Int, taps: Int, rowStep: Int, colStep: Int,
                                               pixelStep: Int, clamps: Bool, lo: Float, hi: Float) {
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> { TierMath.load(p, count: width, as: SIMD8<Float>.self) }
        var a0 = SIMD8<Float>(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0
        var ky = kyLo
        while ky < kyHi {
            let ip = base + (ky &* rowStep &+ c)
            let wp = filter + (ky &* kW &* C &+ c)
            var kx = 0
            while kx < taps {
                let w = load(wp + kx &* C)
                let xp = ip + kx &* colStep
                a0 = M.add(a0, load(xp), w)
                a1 = M.add(a1, load(xp + pixelStep), w)
                a2 = M.add(a2, load(xp + 2 &* pixelStep), w)
                a3 = M.add(a3, load(xp + 3 &* pixelStep), w)
                a4 = M.add(a4, load(xp + 4 &* pixelStep), w)
                a5 = M.add(a5, load(xp + 5 &* pixelStep), w)
                a6 = M.add(a6, load(xp + 6 &* pixelStep), w)
                a7 = M.add(a7, load(xp + 7 &* pixelStep), w)
                kx &+= 1
            }
            ky &+= 1
        }
        if let bias {
            let b = load(bias + c)
            a0 += b; a1 += b; a2 += b; a3 += b; a4 += b; a5 += b; a6 += b; a7 += b
        }
        if clamps {
            let l = SIMD8<Float>(repeating: lo), h = SIMD8<Float>(repeating: hi)
            a0 = TierMath.clamp(a0, lo: l, hi: h); a1 = TierMath.clamp(a1, lo: l, hi: h)
            a2 = TierMath.clamp(a2, lo: l, hi: h); a3 = TierMath.clamp(a3, lo: l, hi: h)
            a4 = TierMath.clamp(a4, lo: l, hi: h); a5 = TierMath.clamp(a5, lo: l, hi: h)
            a6 = TierMath.clamp(a6, lo: l, hi: h); a7 = TierMath.clamp(a7, lo: l, hi: h)
        }
        TierMath.store(a0, to: o + c, count: width)
        TierMath.store(a1, to: o + (C &+ c), count: width)
        TierMath.store(a2, to: o + (2 &* C &+ c), count: width)
        TierMath.store(a3, to: o + (3 &* C &+ c), count: width)
        TierMath.store(a4, to: o + (4 &* C &+ c), count: width)
        TierMath.store(a5, to: o + (5 &* C &+ c), count: width)
        TierMath.store(a6, to: o + (6 &* C &+ c), count: width)
        TierMath.store(a7, to: o + (7 &* C &+ c), count: width)
    }
}
