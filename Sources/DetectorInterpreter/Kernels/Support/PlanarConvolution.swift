/// A float convolution with few input channels (a network's first layer: RGB in, a handful of
/// channels out) run with output pixels in the vector lanes (`FloatPlanarConvKernel`, AVX-512)
/// instead of as a GEMM whose 8 output columns fill half a vector. The input is split at each
/// invoke, a band of output rows at a time, into planes (per padded input row, channel and
/// column residue modulo the stride) in a per-thread buffer; the weights are packed at prepare
/// in blocks of 8 output channels.
///
/// Same sums as the fused float GEMM (taps in filter order from 0, bias last), so the same bits.
final class PlanarConvolution {
    let g: ConvGeometry
    let kernel: FloatPlanarConvKernel
    /// Output rows per band, padded input rows a band reads, plane row length (floats), its
    /// stride, floats per padded input row.
    let band: Int, bandRows: Int, width: Int, planeStride: Int, rowFloats: Int
    /// Per tap (ky, kx, c): its inputs' offset from the output row's first tap row.
    let taps: [Int]
    /// Per block of 8 output channels, `[taps][8]`.
    let weights: [Float]
    /// One band of planes per thread.
    let buffer: AlignedBuffer, parts: Int

    /// Output rows per band: their planes (≈ 50 KB for 224 × 224 × 3, stride 2) stay in the
    /// core's caches between being written and read, where whole-image planes went to L2
    /// and back; the rows two bands share are split twice.
    static let bandOutputRows = 8

    /// The planar form of a convolution, or nil where it does not take this path: it takes it
    /// when the table has the kernel, the fused order is allowed, 1–4 input channels, at most 8
    /// output channels (measured only there: MobileNet v1 0.25's 224 × 224 × 3 → 8, 3×3 stride 2,
    /// 0.145 → 0.110 ms on the Intel Xeon; from 16 channels the GEMM's vectors are full and it
    /// wins: DeepLab's 257 × 257 × 3 → 16 ran 0.31–0.39 ms planar against 0.21–0.28 on the
    /// GEMM), output rows of at least 16 pixels, a column stride of 1 or 2, and bands of planes
    /// of at most 4 MB. `w`: the filter, `[outC][kH][kW][inC]`.
    init?(g: ConvGeometry, groups: Int, weights w: UnsafePointer<Float>, table: KernelTable, fused: Bool, threads: Int) {
        guard let kernel = table.planarConv, fused, groups == 1, !g.isPointwise, (1...4).contains(g.inC), g.outC <= 8,
              g.outW >= 16, g.outH > 0, (1...2).contains(g.strideW) else { return nil }
        // Sizes from the model: every product checked before the band is sized.
        let (down, o1) = (PlanarConvolution.bandOutputRows - 1).multipliedReportingOverflow(by: g.strideH)
        let (reach, o2) = (g.kH - 1).multipliedReportingOverflow(by: g.dilationH)
        let (tall, o3) = down.addingReportingOverflow(reach)
        guard !o1, !o2, !o3, tall < 1 << 20, g.kW < 1 << 20, g.dilationW < 1 << 20 else { return nil }
        let width = g.outW + (g.kW - 1) * g.dilationW / g.strideW
        let planeStride = (width + 15) / 16 * 16
        let (bandBytes, o4) = (tall + 1).multipliedReportingOverflow(by: g.inC * g.strideW * planeStride * 4)
        guard !o4, bandBytes <= 4 << 20 else { return nil }
        self.g = g
        self.kernel = kernel
        band = PlanarConvolution.bandOutputRows
        bandRows = tall + 1
        self.width = width
        self.planeStride = planeStride
        rowFloats = g.inC * g.strideW * planeStride
        var taps: [Int] = []
        for ky in 0..<g.kH {
            for kx in 0..<g.kW {
                let column = kx * g.dilationW
                for c in 0..<g.inC {
                    taps.append((ky * g.dilationH * g.inC + c) * g.strideW * planeStride + (column % g.strideW) * planeStride
                                + column / g.strideW)
                }
            }
        }
        self.taps = taps
        let k = g.kH * g.kW * g.inC, blocks = (g.outC + 7) / 8
        var packed = [Float](repeating: 0, count: blocks * k * 8)
        for o in 0..<g.outC {
            for t in 0..<k { packed[((o / 8) * k + t) * 8 + o % 8] = w[o * k + t] }
        }
        weights = packed
        parts = max(1, threads)
        buffer = AlignedBuffer(byteCount: max(64, parts * (bandRows * rowFloats * 4 + 64)))
    }

    /// The convolution of `input` into `output` over `parts` threads, each taking bands of
    /// output rows: the band's planes (rows in the padding zeroed), then its rows.
    func run(input: UnsafePointer<Float>, bias: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>,
             lo: Float, hi: Float, silu: Bool, parts: Int) {
        let g = self.g, band = self.band, bandRows = self.bandRows, width = self.width, planeStride = self.planeStride
        let rowFloats = self.rowFloats, kernel = self.kernel, slotFloats = bandRows * rowFloats + 16
        let planes = buffer.pointer.assumingMemoryBound(to: Float.self)
        let mode = silu ? 2 : (lo > -.greatestFiniteMagnitude || hi < .greatestFiniteMagnitude ? 1 : 0)
        let bandsPerImage = (g.outH + band - 1) / band
        taps.withUnsafeBufferPointer { t in weights.withUnsafeBufferPointer { w in
            guard let t = t.baseAddress, let w = w.baseAddress else { return }
            let tapCount = taps.count
            KernelSupport.parallelRanges(g.batch * bandsPerImage, parts: min(parts, self.parts)) { slot, range in
                let mine = planes + slot * slotFloats
                for bandIndex in range {
                    let b = bandIndex / bandsPerImage, y0 = (bandIndex - b * bandsPerImage) * band
                    let y1 = min(g.outH, y0 + band)
                    // Padded rows r0 ..< r0 + used; padded row r is input row r − padTop.
                    let r0 = y0 * g.strideH, used = (y1 - 1 - y0) * g.strideH + (g.kH - 1) * g.dilationH + 1
                    let inLo = max(0, r0 - g.padTop), inHi = min(g.inH, r0 + used - g.padTop)
                    let top = max(0, min(used, inLo + g.padTop - r0))
                    if top > 0 { mine.update(repeating: 0, count: top * rowFloats) }
                    if inHi > inLo {
                        kernel.planes(input + (b * g.inH + inLo) * g.inW * g.inC, inHi - inLo, g.inW * g.inC, g.inW, g.inC,
                                      g.strideW, g.padLeft, width, planeStride, rowFloats,
                                      mine + (inLo + g.padTop - r0) * rowFloats)
                    }
                    let filled = max(top, inHi + g.padTop - r0)
                    if used > filled { (mine + filled * rowFloats).update(repeating: 0, count: (used - filled) * rowFloats) }
                    for y in y0..<y1 {
                        kernel.row(UnsafePointer(mine + (y - y0) * g.strideH * rowFloats), t, tapCount, w, bias,
                                   output + ((b * g.outH + y) * g.outW) * g.outC, g.outW, g.outC, lo, hi, mode)
                    }
                }
            }
        } }
    }
}
