/// The float depthwise convolution of the wide tiers (multiplier 1): output pixels whose
/// every horizontal tap is inside the image, 4 pixels × 16 channels per step, each filter
/// vector loaded once for the 4 pixels.
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
        let lo = SIMD16<Float>(repeating: clampMin), hi = SIMD16<Float>(repeating: clampMax)
        let clamps = clampMin > -.greatestFiniteMagnitude || clampMax < .greatestFiniteMagnitude
        var p = 0
        while p &+ 4 <= pixels {
            let base = input + p &* pixelStep, o = output + p &* C
            var c = 0
            while c < C {
                let width = min(16, C &- c)
                var a0 = SIMD16<Float>(), a1 = a0, a2 = a0, a3 = a0
                var ky = kyLo
                while ky < kyHi {
                    let ip = base + (ky &* rowStep &+ c)
                    let wp = filter + (ky &* kW &* C &+ c)
                    var kx = 0
                    while kx < kW {
                        let w = TierMath.load(wp + kx &* C, count: width)
                        let xp = ip + kx &* colStep
                        a0 = M.add(a0, TierMath.load(xp, count: width), w)
                        a1 = M.add(a1, TierMath.load(xp + pixelStep, count: width), w)
                        a2 = M.add(a2, TierMath.load(xp + 2 &* pixelStep, count: width), w)
                        a3 = M.add(a3, TierMath.load(xp + 3 &* pixelStep, count: width), w)
                        kx &+= 1
                    }
                    ky &+= 1
                }
                if let bias {
                    let b = TierMath.load(bias + c, count: width)
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
                c &+= 16
            }
            p &+= 4
        }
    }
}
