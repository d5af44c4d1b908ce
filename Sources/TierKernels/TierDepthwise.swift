/// The float depthwise convolution of every tier (multiplier 1): output pixels whose every
/// horizontal tap is inside the image, 4 pixels × `DepthwiseLanes` channels per step, each
/// filter vector loaded once for the 4 pixels. `DepthwiseLanes` is the module's own (its
/// `Tier.swift`): 16 lanes at AVX2 and AVX-512, 8 at the baseline, whose 16 xmm registers hold
/// the 4 × 8 accumulators without spilling (at 16 lanes an 8-channel layer ran 4× slower).
///
/// Each output sums its taps in (ky, kx) order from 0 and adds the bias last, as the
/// reference loop does: bit-identical with `fused` false, one `vfmadd` per tap with it.
package enum TierDepthwise {
    /// `pixels` (a multiple of 4) consecutive output pixels of one row. `input` is the first
    /// pixel's first tap (row `kyLo`'s offset is added here), `filter` is `[kH][kW][channels]`,
    /// `output` the first output pixel. Taps: rows `kyLo..<kyHi` (`rowStep` apart), columns
    /// `0..<kW` (`colStep` apart); pixels are `pixelStep` apart in the input.
    package static func interior(input: UnsafePointer<Float>, filter: UnsafePointer<Float>, bias: UnsafePointer<Float>?,
                                 output: UnsafeMutablePointer<Float>, channels: Int, pixels: Int,
                                 kyLo: Int, kyHi: Int, kW: Int, rowStep: Int, colStep: Int, pixelStep: Int,
                                 clampMin: Float, clampMax: Float, fused: Bool) {
        if fused {
            run(Fused.self, input: input, filter: filter, bias: bias, output: output, channels: channels, pixels: pixels,
                kyLo: kyLo, kyHi: kyHi, kW: kW, rowStep: rowStep, colStep: colStep, pixelStep: pixelStep,
                clampMin: clampMin, clampMax: clampMax)
        } else {
            run(Separate.self, input: input, filter: filter, bias: bias, output: output, channels: channels, pixels: pixels,
                kyLo: kyLo, kyHi: kyHi, kW: kW, rowStep: rowStep, colStep: colStep, pixelStep: pixelStep,
                clampMin: clampMin, clampMax: clampMax)
        }
    }

    @inline(__always)
    private static func run<M: MultiplyAdd>(_: M.Type, input: UnsafePointer<Float>, filter: UnsafePointer<Float>,
                                            bias: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>,
                                            channels C: Int, pixels: Int, kyLo: Int, kyHi: Int, kW: Int,
                                            rowStep: Int, colStep: Int, pixelStep: Int, clampMin: Float, clampMax: Float) {
        let lanes = DepthwiseLanes.scalarCount
        let lo = DepthwiseLanes(repeating: clampMin), hi = DepthwiseLanes(repeating: clampMax)
        let clamps = clampMin > -.greatestFiniteMagnitude || clampMax < .greatestFiniteMagnitude
        var p = 0
        while p &+ 4 <= pixels {
            let base = input + p &* pixelStep, o = output + p &* C
            var c = 0
            if Tier.hasMaskedLoads {
                // AVX-512: a partial load is one masked load, cheap inside the loop.
                while c < C {
                    block(M.self, full: false, base: base, filter: filter, bias: bias, o: o, c: c, width: min(lanes, C &- c),
                          channels: C, kyLo: kyLo, kyHi: kyHi, kW: kW, rowStep: rowStep, colStep: colStep,
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
                      kyLo: kyLo, kyHi: kyHi, kW: kW, rowStep: rowStep, colStep: colStep, pixelStep: pixelStep,
                      clamps: clamps, lo: lo, hi: hi)
                c &+= lanes
            }
            if c < C {
                block(M.self, full: false, base: base, filter: filter, bias: bias, o: o, c: c, width: C &- c, channels: C,
                      kyLo: kyLo, kyHi: kyHi, kW: kW, rowStep: rowStep, colStep: colStep, pixelStep: pixelStep,
                      clamps: clamps, lo: lo, hi: hi)
            }
            p &+= 4
        }
    }

    /// 4 pixels × `width` channels from channel `c`; `full`: `width` is the whole vector.
    @inline(__always)
    private static func block<M: MultiplyAdd>(_: M.Type, full: Bool, base: UnsafePointer<Float>, filter: UnsafePointer<Float>,
                                              bias: UnsafePointer<Float>?, o: UnsafeMutablePointer<Float>, c: Int, width: Int,
                                              channels C: Int, kyLo: Int, kyHi: Int, kW: Int, rowStep: Int, colStep: Int,
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
            while kx < kW {
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
}
