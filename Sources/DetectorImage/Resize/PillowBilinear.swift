import DetectorZlib
import DetectorPlatform
/// Pillow's `Image.resize(size, Image.BILINEAR)` for 8-bit images, bit for bit (Pillow 13).
///
/// Per axis, output index `i` of `outSize` over `inSize` source pixels:
/// `scale = in/out`, `fs = max(scale, 1)`, `support = fs`, `centre = (i + 0.5) · scale`,
/// taps `j` from `Int(centre − support + 0.5)` (≥ 0) to `Int(centre + support + 0.5)` (≤ in),
/// weight `max(0, 1 − |(j − centre + 0.5) · (1/fs)|)`, normalised to sum 1 (double), then
/// converted to fixed point with 22 fractional bits, rounding half away from zero.
/// A pass accumulates from 2²¹, shifts right by 22 and clamps to 0…255 into a uint8 image.
/// Horizontal pass first, unless the height shrinks by more than twice as many pixels as
/// the width (`(H − h) > 0 && (H − h) > 2 (W − w)`), when Pillow 13 runs the vertical pass
/// first. An axis whose size does not change is not resampled at all.
enum PillowBilinear {
    static let precisionBits = 22

    /// Fixed-point filter taps for one axis.
    struct Coefficients {
        /// First source index of each output index.
        var start: [Int]
        /// Number of taps of each output index.
        var count: [Int]
        /// `ksize` weights per output index (unused tail zero).
        var weights: [Int32]
        var ksize: Int
    }

    static func coefficients(inSize: Int, outSize: Int) -> Coefficients {
        let scale = Double(inSize) / Double(outSize)
        let filterScale = max(scale, 1.0)
        let support = 1.0 * filterScale
        let ksize = Int(support.rounded(.up)) * 2 + 1
        let invFilterScale = 1.0 / filterScale
        var start = [Int](repeating: 0, count: outSize)
        var count = [Int](repeating: 0, count: outSize)
        var weights = [Int32](repeating: 0, count: outSize * ksize)
        var k = [Double](repeating: 0, count: ksize)
        for xx in 0..<outSize {
            let center = (Double(xx) + 0.5) * scale
            // Pillow truncates toward zero with a C cast.
            var xmin = Int(center - support + 0.5)
            if xmin < 0 { xmin = 0 }
            var xmax = Int(center + support + 0.5)
            if xmax > inSize { xmax = inSize }
            let n = max(0, min(xmax - xmin, ksize))
            var ww = 0.0
            for x in 0..<n {
                var t = (Double(x + xmin) - center + 0.5) * invFilterScale
                if t < 0 { t = -t }
                let w = t < 1.0 ? 1.0 - t : 0.0
                k[x] = w
                ww += w
            }
            if ww != 0.0 {
                for x in 0..<n { k[x] /= ww }
            }
            let one = Double(1 << precisionBits)
            for x in 0..<n {
                let v = k[x] < 0 ? (-0.5 + k[x] * one) : (0.5 + k[x] * one)
                weights[xx * ksize + x] = Int32(v)   // C cast: truncation toward zero
            }
            start[xx] = xmin
            count[xx] = n
        }
        return Coefficients(start: start, count: count, weights: weights, ksize: ksize)
    }

    static func resize(_ src: PackedPixels, width: Int, height: Int) -> [UInt8] {
        let needH = width != src.width
        let needV = height != src.height
        let shrinkY = src.height - height, shrinkX = src.width - width
        let verticalFirst = shrinkY > 0 && shrinkY > shrinkX * 2
        var image = src
        if verticalFirst {
            if needV { image = vertical(image, height: height) }
            if needH { image = horizontal(image, width: width) }
        } else {
            if needH { image = horizontal(image, width: width) }
            if needV { image = vertical(image, height: height) }
        }
        return image.bytes
    }

    static func clip8(_ v: Int) -> UInt8 {
        let s = v >> precisionBits
        return s < 0 ? 0 : (s > 255 ? 255 : UInt8(s))
    }

    static func horizontal(_ src: PackedPixels, width: Int) -> PackedPixels {
        let c = coefficients(inSize: src.width, outSize: width)
        let ch = src.channels, rows = src.height
        var out = [UInt8](repeating: 0, count: width * rows * ch)
        let half = 1 << (precisionBits - 1)
        src.bytes.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                c.weights.withUnsafeBufferPointer { kw in
                    c.start.withUnsafeBufferPointer { st in
                        c.count.withUnsafeBufferPointer { cn in
                            guard let sp = s.baseAddress, let dp = d.baseAddress, let kp = kw.baseAddress else { return }
                            let inRow = src.width * ch, outRow = width * ch, ks = c.ksize
                            ParallelRows.run(rows: rows, workPerRow: width * ks * ch) { range in
                                for y in range {
                                    let line = sp + y * inRow
                                    let o = dp + y * outRow
                                    for xx in 0..<width {
                                        let k = kp + xx * ks
                                        let n = cn[xx]
                                        let p = line + st[xx] * ch
                                        if ch == 3 {
                                            var s0 = half, s1 = half, s2 = half
                                            for x in 0..<n {
                                                let w = Int(k[x])
                                                s0 &+= Int(p[3 * x]) &* w
                                                s1 &+= Int(p[3 * x + 1]) &* w
                                                s2 &+= Int(p[3 * x + 2]) &* w
                                            }
                                            o[3 * xx] = clip8(s0)
                                            o[3 * xx + 1] = clip8(s1)
                                            o[3 * xx + 2] = clip8(s2)
                                        } else {
                                            var s0 = half
                                            for x in 0..<n { s0 &+= Int(p[x]) &* Int(k[x]) }
                                            o[xx] = clip8(s0)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return PackedPixels(width: width, height: rows, channels: ch, bytes: out)
    }

    static func vertical(_ src: PackedPixels, height: Int) -> PackedPixels {
        let c = coefficients(inSize: src.height, outSize: height)
        let ch = src.channels
        let rowLen = src.width * ch
        var out = [UInt8](repeating: 0, count: rowLen * height)
        let half = 1 << (precisionBits - 1)
        src.bytes.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                c.weights.withUnsafeBufferPointer { kw in
                    guard let sp = s.baseAddress, let dp = d.baseAddress, let kp = kw.baseAddress else { return }
                    let ks = c.ksize
                    ParallelRows.run(rows: height, workPerRow: rowLen * ks) { range in
                        // Row accumulator reused across output rows of this chunk.
                        var acc = [Int](repeating: 0, count: rowLen)
                        acc.withUnsafeMutableBufferPointer { ab in
                            guard let a = ab.baseAddress else { return }
                            for yy in range {
                                for i in 0..<rowLen { a[i] = half }
                                let k = kp + yy * ks
                                for y in 0..<c.count[yy] {
                                    let w = Int(k[y])
                                    let line = sp + (c.start[yy] + y) * rowLen
                                    for i in 0..<rowLen { a[i] &+= Int(line[i]) &* w }
                                }
                                let o = dp + yy * rowLen
                                for i in 0..<rowLen { o[i] = clip8(a[i]) }
                            }
                        }
                    }
                }
            }
        }
        return PackedPixels(width: src.width, height: height, channels: ch, bytes: out)
    }
}
