/// Everything CONV_2D / DEPTHWISE_CONV_2D resolve at prepare.
struct ConvGeometry {
    let batch: Int, inH: Int, inW: Int, inC: Int
    let outH: Int, outW: Int, outC: Int
    let kH: Int, kW: Int
    let strideH: Int, strideW: Int
    let dilationH: Int, dilationW: Int
    let padTop: Int, padLeft: Int

    init(window g: WindowGeometry, outC: Int) {
        batch = g.batch; inH = g.inH; inW = g.inW; inC = g.inC
        outH = g.outH; outW = g.outW; self.outC = outC
        kH = g.filterH; kW = g.filterW
        strideH = g.strideH; strideW = g.strideW
        dilationH = g.dilationH; dilationW = g.dilationW
        padTop = g.padTop; padLeft = g.padLeft
    }

    var outputShape: [Int] { [batch, outH, outW, outC] }
    var outputPixels: Int { batch * outH * outW }

    /// Whether the conv is a plain matrix product over the input (1×1, stride 1, no padding).
    var isPointwise: Bool { kH == 1 && kW == 1 && strideH == 1 && strideW == 1 && padTop == 0 && padLeft == 0 }

    /// Writes the im2col rows of output pixels `pixels` (row = kH·kW·C values in
    /// filter order (ky, kx, c); `c` spans `channels` starting at `channelOffset`;
    /// out-of-bounds taps are `padValue`).
    func im2col<T>(_ input: UnsafePointer<T>, pixels: Range<Int>, channelOffset: Int = 0, channels: Int,
                   padValue: T, into dst: UnsafeMutablePointer<T>) {
        var o = dst
        for p in pixels {
            let b = p / (outH * outW), r = p % (outH * outW)
            let oy = r / outW, ox = r % outW
            let y0 = oy * strideH - padTop, x0 = ox * strideW - padLeft
            for ky in 0..<kH {
                let y = y0 &+ ky &* dilationH
                if y < 0 || y >= inH {
                    o.update(repeating: padValue, count: kW &* channels)
                    o += kW &* channels
                    continue
                }
                if dilationW == 1 && channels == inC {
                    // The row's taps are contiguous: pad, one copy, pad.
                    let lo = max(0, -x0), hi = min(kW, inW &- x0)
                    if lo > 0 { o.update(repeating: padValue, count: lo &* channels); o += lo &* channels }
                    if hi > lo {
                        let n = (hi &- lo) &* channels
                        let src = input + (((b &* inH &+ y) &* inW &+ x0 &+ lo) &* inC)
                        if n <= 32 { for i in 0..<n { o[i] = src[i] } } else { o.update(from: src, count: n) }
                        o += n
                    }
                    let after = kW &- max(hi, lo)
                    if after > 0 { o.update(repeating: padValue, count: after &* channels); o += after &* channels }
                    continue
                }
                for kx in 0..<kW {
                    let x = x0 &+ kx &* dilationW
                    if x < 0 || x >= inW {
                        o.update(repeating: padValue, count: channels)
                    } else {
                        o.update(from: input + (((b &* inH &+ y) &* inW &+ x) &* inC &+ channelOffset), count: channels)
                    }
                    o += channels
                }
            }
        }
    }
}
