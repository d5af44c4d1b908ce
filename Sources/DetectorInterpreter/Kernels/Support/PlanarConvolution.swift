/// A float convolution with few input channels (a network's first layer: RGB in, a handful of
/// channels out) run with output pixels in the vector lanes (`FloatPlanarConvKernel`, AVX-512)
/// instead of as a GEMM whose 8 output columns fill half a vector. The input is split at each
/// invoke into planes (per padded input row, channel and column residue modulo the stride),
/// kept in this object's buffer whose padding rows are zeroed once; the weights are packed at
/// prepare in blocks of 8 output channels.
///
/// Same sums as the fused float GEMM (taps in filter order from 0, bias last), so the same bits.
final class PlanarConvolution {
    let g: ConvGeometry
    let kernel: FloatPlanarConvKernel
    /// Padded input rows per batch, plane row length (floats), floats per padded input row.
    let rows: Int, width: Int, planeStride: Int, rowFloats: Int
    /// Per tap (ky, kx, c): its inputs' offset from the output row's first tap row.
    let taps: [Int]
    /// Per block of 8 output channels, `[taps][8]`.
    let weights: [Float]
    let buffer: AlignedBuffer

    /// Whether a convolution takes this path: the table has the kernel, the fused order is
    /// allowed, 1–4 input channels, at most 8 output channels (measured only there: MobileNet
    /// v1 0.25's 224 × 224 × 3 → 8, 3×3 stride 2, 0.145 → 0.130 ms on the Intel Xeon; from 16
    /// channels the GEMM's vectors are full), output rows of at least 16 pixels, a column
    /// stride of 1 or 2, and planes of at most 32 MB.
    static func applies(to g: ConvGeometry, groups: Int, table: KernelTable, fused: Bool) -> Bool {
        guard table.planarConv != nil, fused, groups == 1, !g.isPointwise, (1...4).contains(g.inC), g.outC <= 8,
              g.outW >= 16, g.outH > 0, (1...2).contains(g.strideW) else { return false }
        return planeBytes(g) != nil
    }

    private static func planeBytes(_ g: ConvGeometry) -> Int? {
        // Sizes from the model: every product checked.
        let (down, o3) = (g.outH - 1).multipliedReportingOverflow(by: g.strideH)
        let (reach, o4) = (g.kH - 1).multipliedReportingOverflow(by: g.dilationH)
        let (tall, o5) = down.addingReportingOverflow(reach)
        guard !o3, !o4, !o5, tall < 1 << 30, g.kW < 1 << 20, g.dilationW < 1 << 20 else { return nil }
        let rows = tall + 1
        let width = g.outW + (g.kW - 1) * g.dilationW / g.strideW
        let stride = (width + 15) / 16 * 16
        let (a, o1) = rows.multipliedReportingOverflow(by: g.inC * g.strideW * stride)
        let (b, o2) = a.multipliedReportingOverflow(by: g.batch * 4)
        guard !o1, !o2, b <= 32 << 20 else { return nil }
        return b
    }

    init(g: ConvGeometry, weights w: UnsafePointer<Float>, kernel: FloatPlanarConvKernel) {
        self.g = g
        self.kernel = kernel
        rows = (g.outH - 1) * g.strideH + (g.kH - 1) * g.dilationH + 1
        width = g.outW + (g.kW - 1) * g.dilationW / g.strideW
        planeStride = (width + 15) / 16 * 16
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
        buffer = AlignedBuffer(byteCount: max(64, PlanarConvolution.planeBytes(g) ?? 0))
        buffer.pointer.initializeMemory(as: UInt8.self, repeating: 0, count: buffer.byteCount)
    }

    /// The convolution of `input` into `output` over `parts` threads: the planes of every input
    /// row, then the output rows.
    func run(input: UnsafePointer<Float>, bias: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>,
             lo: Float, hi: Float, silu: Bool, parts: Int) {
        let g = self.g, planes = buffer.pointer.assumingMemoryBound(to: Float.self)
        let rows = self.rows, width = self.width, planeStride = self.planeStride, rowFloats = self.rowFloats
        let kernel = self.kernel
        // Rows of the input (rows in the padding stay zero), by batch.
        KernelSupport.parallelChunks(g.batch * g.inH, parts: parts) { part in
            var r = part.lowerBound
            while r < part.upperBound {
                let b = r / g.inH, y = r - b * g.inH
                let inBatch = min(part.upperBound - r, g.inH - y)
                // Input rows past the last one a window reads have no planes.
                let count = min(inBatch, rows - g.padTop - y)
                if count > 0 {
                    kernel.planes(input + r * g.inW * g.inC, count, g.inW * g.inC, g.inW, g.inC, g.strideW, g.padLeft, width,
                                  planeStride, rowFloats, planes + (b * rows + y + g.padTop) * rowFloats)
                }
                r += inBatch
            }
        }
        let mode = silu ? 2 : (lo > -.greatestFiniteMagnitude || hi < .greatestFiniteMagnitude ? 1 : 0)
        taps.withUnsafeBufferPointer { t in weights.withUnsafeBufferPointer { w in
            guard let t = t.baseAddress, let w = w.baseAddress else { return }
            KernelSupport.parallelChunks(g.batch * g.outH, parts: parts) { part in
                for row in part {
                    let b = row / g.outH, y = row - b * g.outH
                    kernel.row(UnsafePointer(planes + (b * rows + y * g.strideH) * rowFloats), t, taps.count, w, bias,
                               output + row * g.outW * g.outC, g.outW, g.outC, lo, hi, mode)
                }
            }
        } }
    }
}
