/// Quantized AVERAGE_POOL_2D and MAX_POOL_2D (TFLite reference pooling): windows clipped to
/// the input; the average rounds half away from zero (`(sum ± count/2) / count`), then the
/// fused activation clamp.
public enum QuantizedPooling {
    public static func average<T: QuantizedElement>(_ g: WindowGeometry, depth: Int, activationMin: Int32, activationMax: Int32,
                                                    input: UnsafePointer<T>, output: UnsafeMutablePointer<T>) {
        window(g, depth: depth) { b, oy, ox, y0, y1, x0, x1 in
            let count = Int32((y1 - y0) * (x1 - x0))
            for c in 0..<depth {
                var acc: Int32 = 0
                for iy in y0..<y1 { for ix in x0..<x1 {
                    acc = acc &+ Int32(input[((b * g.inputHeight + iy) * g.inputWidth + ix) * depth + c])
                } }
                let avg = count == 0 ? 0 : (acc > 0 ? (acc &+ count / 2) / count : (acc &- count / 2) / count)
                output[((b * g.outputHeight + oy) * g.outputWidth + ox) * depth + c] = T.clamped(avg, activationMin, activationMax)
            }
        }
    }

    public static func max<T: QuantizedElement>(_ g: WindowGeometry, depth: Int, activationMin: Int32, activationMax: Int32,
                                                input: UnsafePointer<T>, output: UnsafeMutablePointer<T>) {
        window(g, depth: depth) { b, oy, ox, y0, y1, x0, x1 in
            let dst = output + ((b * g.outputHeight + oy) * g.outputWidth + ox) * depth
            for c in 0..<depth { dst[c] = T(truncatingIfNeeded: T.quantizedMin) }
            for iy in y0..<y1 { for ix in x0..<x1 {
                let src = input + ((b * g.inputHeight + iy) * g.inputWidth + ix) * depth
                for c in 0..<depth where src[c] > dst[c] { dst[c] = src[c] }
            } }
            for c in 0..<depth { dst[c] = T.clamped(Int32(dst[c]), activationMin, activationMax) }
        }
    }

    @inline(__always)
    static func window(_ g: WindowGeometry, depth: Int, _ body: (Int, Int, Int, Int, Int, Int, Int) -> Void) {
        for b in 0..<g.batches { for oy in 0..<g.outputHeight { for ox in 0..<g.outputWidth {
            let oy0 = oy * g.strideHeight - g.padTop, ox0 = ox * g.strideWidth - g.padLeft
            let y0 = Swift.max(0, oy0), y1 = Swift.min(g.inputHeight, oy0 + g.filterHeight)
            let x0 = Swift.max(0, ox0), x1 = Swift.min(g.inputWidth, ox0 + g.filterWidth)
            body(b, oy, ox, y0, Swift.max(y0, y1), x0, Swift.max(x0, x1))
        } } }
    }
}
