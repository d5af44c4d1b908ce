import DetectorZlib
import DetectorPlatform
/// Bilinear resize with half-pixel centres (TFLite `RESIZE_BILINEAR` with
/// `half_pixel_centers = true`, OpenCV `INTER_LINEAR` semantics, computed in `Float`).
///
/// Output index `i` samples source position `p = (i + 0.5) · in/out − 0.5`;
/// `lo = max(floor(p), 0)`, `hi = min(ceil(p), in − 1)`, fraction `p − lo` (as TFLite's reference
/// kernel computes it, which clamps positions before the first pixel to it). The two-axis blend
/// is rounded to the nearest integer (`Int(v + 0.5)`).
enum HalfPixelBilinear {
    struct Axis {
        var lo: [Int]
        var hi: [Int]
        var frac: [Float]
    }

    static func axis(inSize: Int, outSize: Int) -> Axis {
        let scale = Float(inSize) / Float(outSize)
        var lo = [Int](repeating: 0, count: outSize), hi = lo
        var frac = [Float](repeating: 0, count: outSize)
        for i in 0..<outSize {
            let p = (Float(i) + 0.5) * scale - 0.5
            let f = p.rounded(.down)
            let l = max(Int(f), 0)
            lo[i] = l
            hi[i] = min(Int(p.rounded(.up)), inSize - 1)
            frac[i] = p - Float(l)
        }
        return Axis(lo: lo, hi: hi, frac: frac)
    }

    static func resize(_ src: PackedPixels, width: Int, height: Int) -> [UInt8] {
        let ax = axis(inSize: src.width, outSize: width)
        let ay = axis(inSize: src.height, outSize: height)
        let ch = src.channels, rowLen = src.width * ch
        var out = [UInt8](repeating: 0, count: width * height * ch)
        // Column byte offsets and weights, flattened for pointer access in the inner loop.
        let c0s = ax.lo.map { $0 * ch }, c1s = ax.hi.map { $0 * ch }
        src.bytes.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                c0s.withUnsafeBufferPointer { c0b in
                    c1s.withUnsafeBufferPointer { c1b in
                        ax.frac.withUnsafeBufferPointer { fb in
                            guard let sp = s.baseAddress, let dp = d.baseAddress, let c0p = c0b.baseAddress,
                                  let c1p = c1b.baseAddress, let fxp = fb.baseAddress else { return }
                            ParallelRows.run(rows: height, workPerRow: width * ch * 4) { range in
                                for y in range {
                                    let r0 = sp + ay.lo[y] * rowLen, r1 = sp + ay.hi[y] * rowLen
                                    let dy = ay.frac[y]
                                    let o = dp + y * width * ch
                                    for x in 0..<width {
                                        let c0 = c0p[x], c1 = c1p[x]
                                        let dx = fxp[x]
                                        let ey = 1 - dy, ex = 1 - dx
                                        for c in 0..<ch {
                                            // TFLite's float reference formula, term by term and in its order.
                                            let tl = Float(r0[c0 + c]) * ey * ex
                                            let bl = Float(r1[c0 + c]) * dy * ex
                                            let tr = Float(r0[c1 + c]) * ey * dx
                                            let br = Float(r1[c1 + c]) * dy * dx
                                            let v = tl + bl + tr + br
                                            let r = v + 0.5
                                            o[x * ch + c] = r <= 0 ? 0 : (r >= 255 ? 255 : UInt8(r))
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
