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
        src.bytes.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                guard let sp = s.baseAddress, let dp = d.baseAddress else { return }
                ParallelRows.run(rows: height, workPerRow: width * ch * 4) { range in
                    for y in range {
                        let r0 = sp + ay.lo[y] * rowLen, r1 = sp + ay.hi[y] * rowLen
                        let dy = ay.frac[y]
                        let o = dp + y * width * ch
                        for x in 0..<width {
                            let c0 = ax.lo[x] * ch, c1 = ax.hi[x] * ch
                            let dx = ax.frac[x]
                            for c in 0..<ch {
                                let tl = Float(r0[c0 + c]), tr = Float(r0[c1 + c])
                                let bl = Float(r1[c0 + c]), br = Float(r1[c1 + c])
                                // TFLite's reference formula, term by term.
                                let v = tl * (1 - dy) * (1 - dx) + bl * dy * (1 - dx)
                                    + tr * (1 - dy) * dx + br * dy * dx
                                let r = v + 0.5
                                o[x * ch + c] = r <= 0 ? 0 : (r >= 255 ? 255 : UInt8(r))
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}
