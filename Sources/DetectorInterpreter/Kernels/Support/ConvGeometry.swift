import DetectorModelFile
import DetectorPlatform
/// Everything float CONV_2D / DEPTHWISE_CONV_2D resolve at prepare: the op's `WindowGeometry` with
/// its channel counts, in the short names the float loops use, and im2col.
struct ConvGeometry {
    private(set) var batch: Int, inH: Int, inW: Int, inC: Int
    private(set) var outH: Int, outW: Int, outC: Int
    private(set) var kH: Int, kW: Int
    private(set) var strideH: Int, strideW: Int
    private(set) var dilationH: Int, dilationW: Int
    private(set) var padTop: Int, padLeft: Int

    /// The window of the op, with its input and output channel counts.
    init(window g: WindowGeometry, inC: Int, outC: Int) {
        batch = g.batches; inH = g.inputHeight; inW = g.inputWidth; self.inC = inC
        outH = g.outputHeight; outW = g.outputWidth; self.outC = outC
        kH = g.filterHeight; kW = g.filterWidth
        strideH = g.strideHeight; strideW = g.strideWidth
        dilationH = g.dilationHeight; dilationW = g.dilationWidth
        padTop = g.padTop; padLeft = g.padLeft
    }

    var outputShape: [Int] { [batch, outH, outW, outC] }
    var outputPixels: Int { batch * outH * outW }

    /// Whether the conv is a plain matrix product over the input (1×1, stride 1, no padding).
    var isPointwise: Bool { kH == 1 && kW == 1 && strideH == 1 && strideW == 1 && padTop == 0 && padLeft == 0 }

    /// The same convolution over the input copied into a zero-filled `paddedH × paddedW`
    /// image with the padding written out (`PaddedInput`): no padding left, so it reads in
    /// place. Nil with dilation (windows would skip rows) or an empty output.
    var overPaddedInput: ConvGeometry? {
        guard dilationH == 1, dilationW == 1, outH > 0, outW > 0 else { return nil }
        var g = self
        g.inH = (outH - 1) * strideH + kH
        g.inW = (outW - 1) * strideW + kW
        g.padTop = 0; g.padLeft = 0
        return g
    }

    /// Whether every window lies inside the input with unit dilation (VALID padding, or SAME
    /// where it pads nothing): then a filter row's taps of an output pixel are `kW × inC`
    /// contiguous input values, and a GEMM can read them in place (`FloatGEMM.RowLayout`).
    var readsInPlace: Bool {
        padTop == 0 && padLeft == 0 && dilationH == 1 && dilationW == 1 && outH > 0 && outW > 0 &&
            (outH - 1) * strideH + kH <= inH && (outW - 1) * strideW + kW <= inW
    }

    /// Writes the im2col rows of output pixels `pixels` (row = kH·kW·C values in
    /// filter order (ky, kx, c); `c` spans `channels` starting at `channelOffset`;
    /// out-of-bounds taps are `padValue`). The output position advances pixel by pixel
    /// (no divisions in the loop); with unit dilation over all channels a filter row's
    /// taps are contiguous: pad, one copy, pad.
    func im2col<T>(_ input: UnsafePointer<T>, pixels: Range<Int>, channelOffset: Int = 0, channels: Int,
                   padValue: T, into dst: UnsafeMutablePointer<T>) {
        guard !pixels.isEmpty else { return }
        var o = dst
        let plane = outH * outW
        var b = pixels.lowerBound / plane
        var oy = (pixels.lowerBound % plane) / outW
        var ox = pixels.lowerBound % outW
        let contiguous = dilationW == 1 && channels == inC
        let rowCount = kW &* channels
        for _ in pixels {
            let y0 = oy &* strideH &- padTop, x0 = ox &* strideW &- padLeft
            let lo = max(0, -x0), hi = min(kW, inW &- x0)
            let imageBase = input + b &* inH &* inW &* inC
            for ky in 0..<kH {
                let y = y0 &+ ky &* dilationH
                if y < 0 || y >= inH {
                    o.update(repeating: padValue, count: rowCount)
                    o += rowCount
                    continue
                }
                if contiguous {
                    if lo > 0 { o.update(repeating: padValue, count: lo &* channels); o += lo &* channels }
                    if hi > lo {
                        let n = (hi &- lo) &* channels
                        let src = imageBase + ((y &* inW &+ x0 &+ lo) &* inC)
                        if n <= 32 { var i = 0; while i < n { o[i] = src[i]; i &+= 1 } } else { o.update(from: src, count: n) }
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
                        o.update(from: imageBase + ((y &* inW &+ x) &* inC &+ channelOffset), count: channels)
                    }
                    o += channels
                }
            }
            ox &+= 1
            if ox == outW { ox = 0; oy &+= 1; if oy == outH { oy = 0; b &+= 1 } }
        }
    }
}

/// A zero-filled buffer holding a convolution's input with its padding written out
/// (`ConvGeometry.overPaddedInput`). The borders are zeroed once at creation; `fill` copies
/// the image rows into the interior at each invoke, a fraction of what im2col rows copy
/// (kH·kW / (strideH·strideW) times the input).
final class PaddedInput {
    let original: ConvGeometry, padded: ConvGeometry
    let buffer: AlignedBuffer

    init?(_ g: ConvGeometry, maxBytes: Int = 32 << 20) {
        guard let p = g.overPaddedInput else { return nil }
        let (plane, o1) = p.inH.multipliedReportingOverflow(by: p.inW)
        let (count, o2) = plane.multipliedReportingOverflow(by: p.inC * p.batch)
        guard !o1, !o2, count <= maxBytes / 4 else { return nil }
        original = g; padded = p
        buffer = AlignedBuffer(byteCount: count * 4)
    }

    /// Copies `input` (the original geometry) into the interior; returns the padded image.
    /// Rows split over `threads` from `KernelSupport.parallelCopyBytes` (on one thread the copy
    /// left the other idle, as a PAD op would).
    func fill(from input: UnsafePointer<Float>, threads: Int = 1) -> UnsafePointer<Float> {
        let g = original, p = padded, c = g.inC
        let dst = buffer.pointer.assumingMemoryBound(to: Float.self)
        // Output column x' reads input column x' - padLeft: the columns that exist.
        let x0 = max(0, g.padLeft), x1 = min(p.inW, g.padLeft + g.inW)
        guard x1 > x0 else { return UnsafePointer(dst) }
        let rows = g.batch * p.inH
        KernelSupport.parallelChunks(rows, parts: g.batch * g.inH * g.inW * c * 4 >= KernelSupport.parallelCopyBytes ? threads : 1) { part in
            for r in part {
                let b = r / p.inH, y = r - b * p.inH
                let sy = y - g.padTop
                guard sy >= 0, sy < g.inH else { continue }
                let from = input + ((b * g.inH + sy) * g.inW + (x0 - g.padLeft)) * c
                (dst + (r * p.inW + x0) * c).update(from: from, count: (x1 - x0) * c)
            }
        }
        return UnsafePointer(dst)
    }
}
