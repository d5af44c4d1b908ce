import DetectorZlib
import DetectorPlatform
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
        let fill: Int
        if case let .constant(v) = border { fill = Int(v) } else { fill = 0 }
        // Per output column: byte offsets of the two neighbours (or -1 when outside and constant).
        var cols = [Int](repeating: 0, count: 3 * w)   // x0 offset, x1 offset, fx
        for x in 0..<w {
            let a = xs.index[x], b = a + 1
            if replicate {
                cols[3 * x] = min(max(a, 0), W - 1) * ch
                cols[3 * x + 1] = min(max(b, 0), W - 1) * ch
            } else {
                cols[3 * x] = (a >= 0 && a < W) ? a * ch : -1
                cols[3 * x + 1] = (b >= 0 && b < W) ? b * ch : -1
            }
            cols[3 * x + 2] = xs.fraction[x]
        }
        // Per output row: byte offsets of the two source rows (or -1) and fy.
        let rowLen = W * ch
        var rows = [Int](repeating: 0, count: 3 * h)
        for y in 0..<h {
            let a = ys.index[y], b = a + 1
            if replicate {
                rows[3 * y] = min(max(a, 0), H - 1) * rowLen
                rows[3 * y + 1] = min(max(b, 0), H - 1) * rowLen
            } else {
                rows[3 * y] = (a >= 0 && a < H) ? a * rowLen : -1
                rows[3 * y + 1] = (b >= 0 && b < H) ? b * rowLen : -1
            }
            rows[3 * y + 2] = ys.fraction[y]
        }
        var out = [UInt8](repeating: 0, count: w * h * ch)
        src.bytes.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                cols.withUnsafeBufferPointer { cb in
                    rows.withUnsafeBufferPointer { rb in
                        guard let sp = s.baseAddress, let dp = d.baseAddress,
                              let cp = cb.baseAddress, let rp = rb.baseAddress else { return }
                        ParallelRows.run(rows: h, workPerRow: w * ch * 4) { range in
                            for y in range {
                                let r0 = rp[3 * y], r1 = rp[3 * y + 1], fy = rp[3 * y + 2]
                                let o = dp + y * w * ch
                                let inside = r0 >= 0 && r1 >= 0
                                for x in 0..<w {
                                    let c0 = cp[3 * x], c1 = cp[3 * x + 1], fx = cp[3 * x + 2]
                                    let w00 = (32 - fx) * (32 - fy), w01 = fx * (32 - fy)
                                    let w10 = (32 - fx) * fy, w11 = fx * fy
                                    if inside && c0 >= 0 && c1 >= 0 {
                                        let p0 = sp + r0, p1 = sp + r1
                                        for c in 0..<ch {
                                            let acc = Int(p0[c0 + c]) * w00 + Int(p0[c1 + c]) * w01
                                                + Int(p1[c0 + c]) * w10 + Int(p1[c1 + c]) * w11
                                            o[x * ch + c] = UInt8(truncatingIfNeeded: (acc + 512) >> 10)
                                        }
                                    } else {
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
                }
            }
        }
        return out
    }
}
