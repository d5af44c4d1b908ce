/// Float RESIZE_BILINEAR (NHWC) of every tier: one output row per call, 16 channels per vector.
///
/// Each value is TFLite's reference expression in its order, `p00·ny·nx + p10·dy·nx +
/// p01·ny·dx + p11·dy·dx` (products and sums left to right, no fused multiply-adds), so the
/// results are the reference kernel's bits, which tests hold them to at every tier.
package enum TierResize {
    /// Output row: `outputWidth` pixels of `channels` floats at `output`, from input rows `top`
    /// (source row y0, column 0) and `bottom` (y1) weighted `1 − dy` and `dy`. Pixel `x` reads
    /// columns `x0[x]` and `x1[x]` weighted `1 − dx[x]` and `dx[x]`.
    package static func bilinearRow(top: UnsafePointer<Float>, bottom: UnsafePointer<Float>, dy: Float,
                                    x0: UnsafePointer<Int>, x1: UnsafePointer<Int>, dx: UnsafePointer<Float>,
                                    outputWidth: Int, channels C: Int, output: UnsafeMutablePointer<Float>) {
        let ny = SIMD16<Float>(repeating: 1 - dy), vdy = SIMD16<Float>(repeating: dy)
        // With 16 channels or more, the last partial vector is redone as the 16 channels ending
        // at C (the overlap gets the same values again): no partial loads in the loop.
        let whole = C >= 16
        var x = 0
        while x < outputWidth {
            let p00 = top + x0[x] &* C, p01 = top + x1[x] &* C
            let p10 = bottom + x0[x] &* C, p11 = bottom + x1[x] &* C
            let d = dx[x]
            let vdx = SIMD16<Float>(repeating: d), nx = SIMD16<Float>(repeating: 1 - d)
            let o = output + x &* C
            var c = 0
            while c < C {
                let start = whole ? min(c, C &- 16) : c
                let width = whole ? 16 : C &- c
                let a = TierMath.load(p00 + start, count: width) * ny * nx
                let b = TierMath.load(p10 + start, count: width) * vdy * nx
                let e = TierMath.load(p01 + start, count: width) * ny * vdx
                let f = TierMath.load(p11 + start, count: width) * vdy * vdx
                TierMath.store(a + b + e + f, to: o + start, count: width)
                c &+= 16
            }
            x &+= 1
        }
    }
}
