/// MediaPipe's CPU image→tensor resampling (OpenCV `warpPerspective` with `INTER_LINEAR` on an
/// axis-aligned region), bit for bit.
///
/// Output pixel `(x, y)` samples the source at `(x · sx + ox, y · sy + oy)` — corner-aligned,
/// no half-pixel offset. Each position is rounded to 1/32 pixel (`X = rint(pos · 32)`, ties to
/// even), split into `x0 = X >> 5` and `fx = X & 31`, and the four neighbours are blended with
/// weights `(32 − fx)(32 − fy)`, `fx(32 − fy)`, `(32 − fx)fy`, `fx·fy`: `out = (acc + 512) >> 10`.
/// Neighbours outside the image repeat the edge (`.replicate`, MediaPipe's stretch) or read a
/// constant (`.constant(0)`, MediaPipe's letterbox).
enum MediaPipeResampler {
    enum Border: Equatable {
        case replicate
        case constant(UInt8)
    }

    /// Sample positions: source = output · scale + offset, per axis.
    struct SampleGrid: Equatable {
        var outputWidth: Int
        var outputHeight: Int
        var scaleX: Double
        var scaleY: Double
        var offsetX: Double
        var offsetY: Double

        /// The whole image stretched onto the output (`x · W/w`).
        static func stretch(sourceWidth: Int, sourceHeight: Int, outputWidth: Int, outputHeight: Int) -> SampleGrid {
            SampleGrid(outputWidth: outputWidth, outputHeight: outputHeight,
                       scaleX: Double(sourceWidth) / Double(outputWidth),
                       scaleY: Double(sourceHeight) / Double(outputHeight),
                       offsetX: 0, offsetY: 0)
        }
    }

    /// 1/32-pixel positions for one axis: integer part and fraction.
    static func axis(count: Int, scale: Double, offset: Double) -> (index: [Int], fraction: [Int]) {
        var index = [Int](repeating: 0, count: count)
        var fraction = [Int](repeating: 0, count: count)
        for i in 0..<count {
            let pos = offset == 0 ? Double(i) * scale : Double(i) * scale + offset
            let q = (pos * 32.0).rounded(.toNearestOrEven)
            // Positions stay within a few image sizes of the origin, far inside Int range.
            let X = q.isFinite && abs(q) < 1e15 ? Int(q) : 0
            index[i] = X >> 5       // floor, also for negative positions
            fraction[i] = X & 31
        }
        return (index, fraction)
    }

    static func warp(_ src: PackedPixels, grid: SampleGrid, border: Border) -> [UInt8] {
        let w = grid.outputWidth, h = grid.outputHeight, ch = src.channels
        let xs = axis(count: w, scale: grid.scaleX, offset: grid.offsetX)
        let ys = axis(count: h, scale: grid.scaleY, offset: grid.offsetY)
        let W = src.width, H = src.height
        let replicate = border == .replicate
        var fill = 0
        if case let .constant(v) = border { fill = Int(v) }
        // Per output column: byte offsets of the two neighbours (or -1 when outside and constant).
        var x0Off = [Int](repeating: 0, count: w), x1Off = [Int](repeating: 0, count: w)
        for x in 0..<w {
            let a = xs.index[x], b = a + 1
            if replicate {
                x0Off[x] = min(max(a, 0), W - 1) * ch
                x1Off[x] = min(max(b, 0), W - 1) * ch
            } else {
                x0Off[x] = (a >= 0 && a < W) ? a * ch : -1
                x1Off[x] = (b >= 0 && b < W) ? b * ch : -1
            }
        }
        var out = [UInt8](repeating: 0, count: w * h * ch)
        let rowLen = W * ch
        src.bytes.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                guard let sp = s.baseAddress, let dp = d.baseAddress else { return }
                ParallelRows.run(rows: h, workPerRow: w * ch * 4) { range in
                    for y in range {
                        let a = ys.index[y], b = a + 1, fy = ys.fraction[y]
                        var r0 = -1, r1 = -1
                        if replicate {
                            r0 = min(max(a, 0), H - 1) * rowLen
                            r1 = min(max(b, 0), H - 1) * rowLen
                        } else {
                            if a >= 0 && a < H { r0 = a * rowLen }
                            if b >= 0 && b < H { r1 = b * rowLen }
                        }
                        let o = dp + y * w * ch
                        for x in 0..<w {
                            let fx = xs.fraction[x]
                            let w00 = (32 - fx) * (32 - fy), w01 = fx * (32 - fy)
                            let w10 = (32 - fx) * fy, w11 = fx * fy
                            let c0 = x0Off[x], c1 = x1Off[x]
                            for c in 0..<ch {
                                let p00 = (r0 >= 0 && c0 >= 0) ? Int(sp[r0 + c0 + c]) : fill
                                let p01 = (r0 >= 0 && c1 >= 0) ? Int(sp[r0 + c1 + c]) : fill
                                let p10 = (r1 >= 0 && c0 >= 0) ? Int(sp[r1 + c0 + c]) : fill
                                let p11 = (r1 >= 0 && c1 >= 0) ? Int(sp[r1 + c1 + c]) : fill
                                let acc = p00 * w00 + p01 * w01 + p10 * w10 + p11 * w11
                                o[x * ch + c] = UInt8(truncatingIfNeeded: (acc + 512) >> 10)
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}
