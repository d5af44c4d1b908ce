import DetectorModelFile
import DetectorPlatform
/// Float 3×3, stride-1 convolution by Winograd's minimal filtering F(2×2, 3×3) (Lavin & Gray,
/// "Fast Algorithms for Convolutional Neural Networks", 2016): each 2×2 block of outputs is
/// computed from a 4×4 input patch with 16 multiplications per (input, output) channel pair
/// instead of 36. With the transforms
///
///     Bᵀ = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]
///     G  = [1 0 0; ½ ½ ½; ½ -½ ½; 0 0 1]
///     Aᵀ = [1 1 1 0; 0 1 -1 -1]
///
/// the output block is Aᵀ [Σ_c (G g_c Gᵀ) ⊙ (Bᵀ d_c B)] A. The filter side G g Gᵀ is computed
/// once at prepare (in Double) and packed as 16 `FloatGEMM` matrices (input × output
/// channels); at eval, a block of tiles is transformed channel-vector by channel-vector into
/// 16 matrices (tiles × input channels), multiplied by the 16 filter matrices, and the
/// products are transformed back, with bias, activation or SiLU, straight into the output.
///
/// Results differ from direct summation by rounding only: the transforms' coefficients are
/// 0, ±1 and ±½, and the sums are regrouped. `Conv2DKernel.referenceFloat` is the oracle.
final class WinogradConvolution {
    let g: ConvGeometry
    /// `U[ξ]` for the 16 positions ξ of the 4×4 transformed tile, each inC × outC.
    let filters: [FloatGEMM.PackedMatrix]
    /// Tiles transformed and multiplied together (a multiple of the GEMM's 6 rows).
    let blockTiles: Int
    let tilesH: Int, tilesW: Int

    /// Whether a convolution takes this path: 3×3, stride 1, no dilation, not grouped, and
    /// enough channels that the transforms (per tile, in proportion to `inC + outC`) cost less
    /// than the multiplications they save (in proportion to `inC · outC`): `inC·outC ≥
    /// b·(inC + outC)` with `b` the table GEMM's `winogradBalance`. Measured on the AMD EPYC
    /// (Zen 4) against the GEMM reading the input in place: at AVX2 and AVX-512 (b = 24, 48 → 48
    /// the smallest square) 16 → 16 channels on 160×160 ran 4× slower (YOLOX nano's second
    /// layer, 12 → 16, 4.2 ms against 1.0), 32 → 32 about 10% slower, 64 → 64 1.7× faster; at the
    /// baseline (8-lane GEMM, b = 12) 12 → 16 10% slower, 32 → 32 faster.
    static func applies(to g: ConvGeometry, groups: Int, table: KernelTable) -> Bool {
        g.kH == 3 && g.kW == 3 && g.strideH == 1 && g.strideW == 1 && g.dilationH == 1 && g.dilationW == 1 &&
            groups == 1 && g.outH >= 2 && g.outW >= 2 && g.inC * g.outC >= table.floatGEMM.winogradBalance * (g.inC + g.outC)
    }

    /// `weights` in OHWI order (outC × 3 × 3 × inC).
    /// `table`/`fused`: how the 16 GEMM matrices are packed (see `FloatGEMM.PackedMatrix`).
    init(g: ConvGeometry, weights: UnsafePointer<Float>, table: KernelTable = .baseline, fused: Bool = false) {
        self.g = g
        let inC = g.inC, outC = g.outC
        tilesH = (g.outH + 1) / 2
        tilesW = (g.outW + 1) / 2
        // About 192 KiB of transformed input and products per block.
        let perTile = 16 * (inC + outC) * 4
        blockTiles = max(6, min(120, (192 * 1024 / perTile) / 6 * 6))
        // U = G g Gᵀ for every (output, input) channel pair, position-major, in Double and
        // separably: T = G g (rows), then U = T Gᵀ (columns), about 30 additions a pair instead of the
        // textbook triple loop's 144 three-way products. G's entries are 0, ±0.5 and 1, so every
        // product is exact and the sums of float weights are exact in Double whenever the
        // weights of a filter lie within 2²⁹ of each other in magnitude: then both orders give
        // the same Double, rounded once to Float. Four input channels at a time as lanes (each
        // filter tap's input channels are contiguous; lane-wise Double arithmetic, the same
        // values as one channel at a time); a pair's 16 results land one `inC × outC` plane apart.
        // Every value is written below (16 per channel pair), so the array starts uninitialized.
        let u = [Float](unsafeUninitializedCapacity: 16 * inC * outC) { ub, initialized in
            initialized = 16 * inC * outC
            guard let out = ub.baseAddress else { return }
            let plane = inC * outC
            for oc in 0..<outC {
                let filter = weights + oc * 9 * inC
                var ic = 0
                while ic < inC {
                    let lanes = min(4, inC - ic)
                    @inline(__always) func tap(_ k: Int) -> SIMD4<Double> {
                        let p = filter + k * inC + ic
                        if lanes == 4 { return SIMD4(Double(p[0]), Double(p[1]), Double(p[2]), Double(p[3])) }
                        var v = SIMD4<Double>()
                        for l in 0..<lanes { v[l] = Double(p[l]) }
                        return v
                    }
                    let w0 = tap(0), w1 = tap(1), w2 = tap(2), w3 = tap(3), w4 = tap(4)
                    let w5 = tap(5), w6 = tap(6), w7 = tap(7), w8 = tap(8)
                    let half = SIMD4<Double>(repeating: 0.5)
                    let o = out + ic * outC + oc
                    // T's four rows (G's rows: [1,0,0], [½,½,½], [½,−½,½], [0,0,1]), each turned
                    // into four values of U by Gᵀ's columns.
                    @inline(__always) func row(_ i: Int, _ a: SIMD4<Double>, _ b: SIMD4<Double>, _ c: SIMD4<Double>) {
                        let values = (SIMD4<Float>(a), SIMD4<Float>(half * a + half * b + half * c),
                                      SIMD4<Float>(half * a - half * b + half * c), SIMD4<Float>(c))
                        let p = o + 4 * i * plane
                        for l in 0..<lanes {
                            let q = p + l * outC
                            q[0] = values.0[l]; q[plane] = values.1[l]; q[2 * plane] = values.2[l]; q[3 * plane] = values.3[l]
                        }
                    }
                    row(0, w0, w1, w2)
                    row(1, half * w0 + half * w3 + half * w6, half * w1 + half * w4 + half * w7, half * w2 + half * w5 + half * w8)
                    row(2, half * w0 - half * w3 + half * w6, half * w1 - half * w4 + half * w7, half * w2 - half * w5 + half * w8)
                    row(3, w6, w7, w8)
                    ic += 4
                }
            }
        }
        filters = u.withUnsafeBufferPointer { ub in
            (0..<16).map { xi in
                guard let base = ub.baseAddress, ub.count >= 16 * inC * outC else {
                    return FloatGEMM.PackedMatrix(k: inC, n: outC, table: table, fused: fused) { _, _ in 0 }
                }
                return FloatGEMM.PackedMatrix(k: inC, n: outC, table: table, fused: fused,
                                              source: base + xi * inC * outC, kStride: outC, nStride: 1)
            }
        }
    }

    /// Scratch bytes one thread needs.
    var scratchBytes: Int { 16 * blockTiles * (g.inC + g.outC) * 4 }

    var tileCount: Int { g.batch * tilesH * tilesW }

    /// Computes tiles `tiles` (row-major over batch, tile rows, tile columns) into `output`.
    func run(tiles: Range<Int>, input: UnsafePointer<Float>, bias: UnsafePointer<Float>?,
             output: UnsafeMutablePointer<Float>, act: (min: Float, max: Float), silu: Bool,
             scratch: UnsafeMutableRawPointer) {
        let inC = g.inC, outC = g.outC
        let v = scratch.assumingMemoryBound(to: Float.self)
        let m = v + 16 * blockTiles * inC
        var t0 = tiles.lowerBound
        while t0 < tiles.upperBound {
            let count = min(blockTiles, tiles.upperBound - t0)
            for t in 0..<count { transformInput(tile: t0 + t, input: input, into: v + t * inC, stride: blockTiles * inC) }
            for xi in 0..<16 {
                FloatGEMM.multiply(rows: 0..<count, a: v + xi * blockTiles * inC, lda: inC, b: filters[xi], bias: nil,
                                   c: m + xi * blockTiles * outC, ldc: outC,
                                   clampMin: -.greatestFiniteMagnitude, clampMax: .greatestFiniteMagnitude)
            }
            for t in 0..<count {
                transformOutput(tile: t0 + t, products: m + t * outC, stride: blockTiles * outC, bias: bias,
                                output: output, act: act, silu: silu)
            }
            t0 += count
        }
    }

    // MARK: transforms

    @inline(__always)
    private static func load(_ p: UnsafePointer<Float>, _ count: Int) -> SIMD8<Float> {
        if count == 8 { return UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self) }
        var v = SIMD8<Float>()
        for l in 0..<count { v[l] = p[l] }
        return v
    }

    @inline(__always)
    private static func store(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>, _ count: Int) {
        if count == 8 { UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self); return }
        for l in 0..<count { p[l] = v[l] }
    }

    /// (tile index) → (batch, first output row, first output column).
    @inline(__always)
    private func origin(_ tile: Int) -> (b: Int, y: Int, x: Int) {
        let perImage = tilesH * tilesW
        let b = tile / perImage, r = tile % perImage
        return (b, (r / tilesW) * 2, (r % tilesW) * 2)
    }

    /// Bᵀ d B of the tile's 4×4 input patch (zero outside the image), 8 channels at a time,
    /// written to `dst + ξ·stride + c`.
    private func transformInput(tile: Int, input: UnsafePointer<Float>, into dst: UnsafeMutablePointer<Float>, stride: Int) {
        let (b, oy, ox) = origin(tile)
        let inC = g.inC, inH = g.inH, inW = g.inW
        let y0 = oy - g.padTop, x0 = ox - g.padLeft
        let image = input + b * inH * inW * inC
        let inside = y0 >= 0 && x0 >= 0 && y0 + 4 <= inH && x0 + 4 <= inW
        var c = 0
        while c < inC {
            let n = min(8, inC - c)
            // d[i][j] = input[y0 + i][x0 + j][c ..< c + n]
            @inline(__always) func at(_ i: Int, _ j: Int) -> SIMD8<Float> {
                let y = y0 &+ i, x = x0 &+ j
                if !inside && (y < 0 || y >= inH || x < 0 || x >= inW) { return SIMD8() }
                return WinogradConvolution.load(image + ((y &* inW &+ x) &* inC &+ c), n)
            }
            // Columns: (Bᵀ d)[·][j].
            @inline(__always) func column(_ j: Int) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
                let d0 = at(0, j), d1 = at(1, j), d2 = at(2, j), d3 = at(3, j)
                return (d0 - d2, d1 + d2, d2 - d1, d1 - d3)
            }
            // Rows: V[i][·] = (Bᵀ d)[i][·] B, stored at ξ = 4i ..< 4i + 4.
            @inline(__always) func row(_ i: Int, _ r0: SIMD8<Float>, _ r1: SIMD8<Float>, _ r2: SIMD8<Float>, _ r3: SIMD8<Float>) {
                let o = dst + (i &* 4 &* stride &+ c)
                WinogradConvolution.store(r0 - r2, o, n)
                WinogradConvolution.store(r1 + r2, o + stride, n)
                WinogradConvolution.store(r2 - r1, o + (2 &* stride), n)
                WinogradConvolution.store(r1 - r3, o + (3 &* stride), n)
            }
            let c0 = column(0), c1 = column(1), c2 = column(2), c3 = column(3)
            row(0, c0.0, c1.0, c2.0, c3.0)
            row(1, c0.1, c1.1, c2.1, c3.1)
            row(2, c0.2, c1.2, c2.2, c3.2)
            row(3, c0.3, c1.3, c2.3, c3.3)
            c += 8
        }
    }

    /// Aᵀ M A for one tile, 8 output channels at a time, plus bias and activation, into the
    /// output (the right column / bottom row are skipped at odd output sizes).
    private func transformOutput(tile: Int, products: UnsafePointer<Float>, stride: Int, bias: UnsafePointer<Float>?,
                                 output: UnsafeMutablePointer<Float>, act: (min: Float, max: Float), silu: Bool) {
        let (b, oy, ox) = origin(tile)
        let outC = g.outC, outH = g.outH, outW = g.outW
        let hasRight = ox + 1 < outW, hasBelow = oy + 1 < outH
        let base = output + ((b * outH + oy) * outW + ox) * outC
        let lo = SIMD8<Float>(repeating: act.min), hi = SIMD8<Float>(repeating: act.max)
        let clamp = act.min > -.greatestFiniteMagnitude || act.max < .greatestFiniteMagnitude
        var c = 0
        while c < outC {
            let n = min(8, outC - c)
            @inline(__always) func mv(_ xi: Int) -> SIMD8<Float> { WinogradConvolution.load(products + xi * stride + c, n) }
            // Rows: s[0][j] = m0j + m1j + m2j, s[1][j] = m1j - m2j - m3j (m_ij at ξ = 4i + j).
            @inline(__always) func column(_ j: Int) -> (SIMD8<Float>, SIMD8<Float>) {
                let a0 = mv(j), a1 = mv(4 &+ j), a2 = mv(8 &+ j), a3 = mv(12 &+ j)
                return (a0 + a1 + a2, a1 - a2 - a3)
            }
            let (t0, u0) = column(0), (t1, u1) = column(1), (t2, u2) = column(2), (t3, u3) = column(3)
            let s0 = (t0, t1, t2, t3), s1 = (u0, u1, u2, u3)
            let biasVector = bias.map { WinogradConvolution.load($0 + c, n) } ?? SIMD8()
            @inline(__always) func finish(_ v: SIMD8<Float>) -> SIMD8<Float> {
                let x = v + biasVector
                if silu { return FloatVectorMath.silu(x) }
                return clamp ? KernelSupport.clamp(x, lo, hi) : x
            }
            let y00 = finish(s0.0 + s0.1 + s0.2), y01 = finish(s0.1 - s0.2 - s0.3)
            WinogradConvolution.store(y00, base + c, n)
            if hasRight { WinogradConvolution.store(y01, base + outC + c, n) }
            if hasBelow {
                let y10 = finish(s1.0 + s1.1 + s1.2), y11 = finish(s1.1 - s1.2 - s1.3)
                let below = base + outW * outC
                WinogradConvolution.store(y10, below + c, n)
                if hasRight { WinogradConvolution.store(y11, below + outC + c, n) }
            }
            c += 8
        }
    }
}
