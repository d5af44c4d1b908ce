/// MAX_POOL_2D and AVERAGE_POOL_2D (float, NHWC) of every tier: one output row per call,
/// 16 channels per vector.
///
/// TFLite's reference semantics: the window is clipped to the input; the maximum starts from
/// the lowest finite float and takes a value only when it is greater (a NaN is skipped, as
/// `std::max(acc, v)` does); the average sums the clipped window in (row, column) order and
/// divides by its size (0 for an empty window); then the fused activation's clamp. The
/// results are bit-identical with `Pool2DKernel`'s portable loop, which tests hold them to.
package enum TierPool {
    /// Output row: `outputWidth` pixels of `channels` floats at `output`. `input` is the first
    /// input row inside the window (column 0); `rows` window rows (0 or more) follow, `rowStride`
    /// floats apart. Columns: pixel `ox` reads input columns from `ox·strideW − padLeft`, `filterW`
    /// of them, clipped to `0..<inputWidth`.
    package static func row(_ input: UnsafePointer<Float>, rows: Int, rowStride: Int, inputWidth: Int, outputWidth: Int,
                            strideW: Int, padLeft: Int, filterW: Int, channels C: Int, output: UnsafeMutablePointer<Float>,
                            average: Bool, lo: Float, hi: Float) {
        if average {
            run(average: true, input, rows: rows, rowStride: rowStride, inputWidth: inputWidth, outputWidth: outputWidth,
                strideW: strideW, padLeft: padLeft, filterW: filterW, channels: C, output: output, lo: lo, hi: hi)
        } else {
            run(average: false, input, rows: rows, rowStride: rowStride, inputWidth: inputWidth, outputWidth: outputWidth,
                strideW: strideW, padLeft: padLeft, filterW: filterW, channels: C, output: output, lo: lo, hi: hi)
        }
    }

    @inline(__always)
    private static func run(average: Bool, _ input: UnsafePointer<Float>, rows: Int, rowStride: Int, inputWidth: Int,
                            outputWidth: Int, strideW: Int, padLeft: Int, filterW: Int, channels C: Int,
                            output: UnsafeMutablePointer<Float>, lo: Float, hi: Float) {
        let vlo = SIMD16<Float>(repeating: lo), vhi = SIMD16<Float>(repeating: hi)
        // With 16 channels or more, the last partial vector is redone as the 16 channels ending
        // at C (the overlap gets the same values again): no partial loads in the loop.
        let whole = C >= 16
        var ox = 0
        while ox < outputWidth {
            let x0 = ox &* strideW &- padLeft
            let fx0 = max(0, -x0), fx1 = min(filterW, inputWidth &- x0)
            let cols = max(0, fx1 &- fx0)
            let base = input + (x0 &+ fx0) &* C
            let o = output + ox &* C
            let divisor = SIMD16<Float>(repeating: Float(rows &* cols))
            var c = 0
            while c < C {
                let start = whole ? min(c, C &- 16) : c
                let width = whole ? 16 : C &- c
                @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD16<Float> {
                    whole ? UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self) : TierMath.load(p, count: width)
                }
                var acc = SIMD16<Float>(repeating: average ? 0 : -.greatestFiniteMagnitude)
                var fy = 0
                while fy < rows {
                    let p = base + (fy &* rowStride &+ start)
                    var fx = 0
                    while fx < cols {
                        let v = load(p + fx &* C)
                        if average { acc += v } else { acc.replace(with: v, where: v .> acc) }
                        fx &+= 1
                    }
                    fy &+= 1
                }
                if average { acc = rows &* cols > 0 ? acc / divisor : SIMD16() }
                acc = TierMath.clamp(acc, lo: vlo, hi: vhi)
                if whole {
                    UnsafeMutableRawPointer(o + start).storeBytes(of: acc, as: SIMD16<Float>.self)
                } else {
                    TierMath.store(acc, to: o + start, count: width)
                }
                c &+= 16
            }
            ox &+= 1
        }
    }
}
