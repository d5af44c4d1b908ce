import DetectorModelFile
import DetectorPlatform
/// `TRANSPOSE` by a constant permutation (input 1). Type-agnostic.
///
/// At prepare the permutation is reduced: size-1 dimensions are dropped and input dimensions
/// that stay neighbours, in order, in the output are merged (NHWC → NCHW becomes one 2-D
/// transpose of (H·W) × C). When the output's innermost dimension then walks the input with a
/// step (a real transpose), the copy runs in square tiles of 16 × 16 elements: within a
/// tile, the 16 input rows read and the 16 output rows written each stay in cache (walking
/// whole output rows read one element per cache line: 0.55 ms for yolov8n's 80 × 80 × 144
/// head); byte tiles go through 64-bit words 8 × 8 at a time, 4-byte tiles through vector
/// lanes 4 × 4 at a time. Otherwise whole output rows are
/// copied. `TransposeKernel.reference` is the
/// element-by-element form (the test oracle).
final class TransposeKernel: PreparedKernel {
    let input: Int, output: Int
    /// The reduced output shape, and for each of its dimensions the input stride it walks.
    let outShape: [Int], strides: [Int]
    /// The tiled form, when the reduced transpose has one.
    let tiled: Tiled?
    let elementSize: Int

    /// A batch of 2-D transposes: for every index of the `outer` dimensions, `rows × cols`
    /// elements where a row is contiguous in the input (step 1) and a column walks the input by
    /// `colInStride`; in the output, columns are contiguous and rows `rowOutStride` apart.
    struct Tiled {
        let outerSizes: [Int], outerIn: [Int], outerOut: [Int]
        let rows: Int, cols: Int, colInStride: Int, rowOutStride: Int
    }

    static let tile = 16
    /// `transposeBytes8x8` reads byte j of a word as element j.
    static let littleEndian = 1.littleEndian == 1

    init(input: Int, output: Int, inShape: [Int], permutation: [Int], elementSize: Int) {
        self.input = input; self.output = output; self.elementSize = elementSize
        (outShape, strides) = Self.reduce(inShape: inShape, permutation: permutation)
        tiled = Self.tiledForm(outShape: outShape, strides: strides)
    }

    /// Drops size-1 dimensions and merges input dimensions that stay adjacent and in order.
    static func reduce(inShape: [Int], permutation: [Int]) -> (shape: [Int], strides: [Int]) {
        let inStrides = Shape.strides(inShape)
        var shape: [Int] = [], strides: [Int] = []
        for d in permutation where inShape[d] != 1 {
            if let last = shape.indices.last, strides[last] == inStrides[d] * inShape[d] {
                shape[last] *= inShape[d]; strides[last] = inStrides[d]
            } else {
                shape.append(inShape[d]); strides.append(inStrides[d])
            }
        }
        return (shape, strides)
    }

    static func tiledForm(outShape: [Int], strides: [Int]) -> Tiled? {
        let rank = outShape.count
        guard rank >= 2, strides[rank - 1] != 1,
              let j = strides.firstIndex(of: 1), j < rank - 1 else { return nil }
        let outStrides = Shape.strides(outShape)
        var sizes: [Int] = [], inS: [Int] = [], outS: [Int] = []
        for d in 0..<(rank - 1) where d != j {
            sizes.append(outShape[d]); inS.append(strides[d]); outS.append(outStrides[d])
        }
        return Tiled(outerSizes: sizes, outerIn: inS, outerOut: outS, rows: outShape[j], cols: outShape[rank - 1],
                     colInStride: strides[rank - 1], rowOutStride: outStrides[j])
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0)
        guard let size = x.type.byteSize else { throw c.invalid("type \(x.type) is not supported") }
        guard let perm = try c.constantInts(input: 1) else { throw c.invalid("its permutation is not known at prepare") }
        guard perm.count == x.rank, perm.sorted() == Array(0..<x.rank) else {
            throw c.invalid("permutation \(perm) is not a permutation of 0..<\(x.rank)")
        }
        try c.setOutput(0, shape: perm.map { x.shape[$0] }, type: x.type)
        return TransposeKernel(input: x.index, output: try c.output(0).index, inShape: x.shape, permutation: perm,
                               elementSize: size)
    }

    func eval(_ e: EvalContext) throws {
        withElementStorage(byteSize: elementSize) { t in run(e, t) }
    }

    private func run<T: FixedWidthInteger>(_ e: EvalContext, _: T.Type) {
        let src = e.pointer(input, as: T.self), dst = e.pointer(output, as: T.self)
        let total = Shape.count(outShape)
        if total == 0 { return }
        let parts = total * MemoryLayout<T>.stride >= KernelSupport.parallelCopyBytes ? e.threadCount : 1
        if let tiled { Self.runTiled(tiled, src, dst, parts: parts); return }
        let rank = outShape.count
        if rank == 0 { dst[0] = src[0]; return }
        let inner = outShape[rank - 1], innerStep = strides[rank - 1]
        let outShape = self.outShape, strides = self.strides
        // Output rows split over the threads; each part starts at its first row's input offset.
        KernelSupport.parallelChunks(total / inner, parts: parts) { rows in
            RowWalk.forEach(rows, dimensions: rank - 1, sizes: outShape, stridesA: strides) { row, base, _ in
                var o = row * inner, s = base
                for _ in 0..<inner { dst[o] = src[s]; o += 1; s += innerStep }
            }
        }
    }

    /// Tiles of `tile` rows × `tile` columns; the threads split (outer index, block of rows).
    @inline(__always)
    private static func runTiled<T>(_ t: Tiled, _ src: UnsafeMutablePointer<T>, _ dst: UnsafeMutablePointer<T>, parts: Int) {
        let tile = Self.tile
        let rowBlocks = (t.rows + tile - 1) / tile
        let outerCount = Shape.count(t.outerSizes)
        let rows = t.rows, cols = t.cols, colInStride = t.colInStride, rowOutStride = t.rowOutStride
        KernelSupport.parallelChunks(outerCount * rowBlocks, parts: parts) { items in
            for item in items {
                var rest = item / rowBlocks, inBase = 0, outBase = 0
                for d in stride(from: t.outerSizes.count - 1, through: 0, by: -1) {
                    let i = rest % t.outerSizes[d]; rest /= t.outerSizes[d]
                    inBase += i * t.outerIn[d]; outBase += i * t.outerOut[d]
                }
                let r0 = item % rowBlocks * tile, r1 = min(rows, r0 + tile)
                var c0 = 0
                while c0 < cols {
                    let c1 = min(cols, c0 + tile)
                    if Self.littleEndian && MemoryLayout<T>.size == 1 && r1 - r0 == tile && c1 - c0 == tile {
                        // Bytes: four 8 × 8 blocks, each through eight 64-bit words.
                        let s = UnsafeRawPointer(src + inBase), d = UnsafeMutableRawPointer(dst + outBase)
                        for rb in stride(from: r0, to: r1, by: 8) {
                            for cb in stride(from: c0, to: c1, by: 8) {
                                Self.transposeBytes8x8(s + rb + cb * colInStride, colInStride,
                                                       d + rb * rowOutStride + cb, rowOutStride)
                            }
                        }
                    } else if MemoryLayout<T>.size == 4 && r1 - r0 == tile && c1 - c0 == tile {
                        // 4-byte elements: sixteen 4 × 4 blocks through vector lanes.
                        let s = UnsafeRawPointer(src + inBase), d = UnsafeMutableRawPointer(dst + outBase)
                        for rb in stride(from: r0, to: r1, by: 4) {
                            for cb in stride(from: c0, to: c1, by: 4) {
                                Self.transposeWords4x4(s + 4 * (rb + cb * colInStride), 4 * colInStride,
                                                       d + 4 * (rb * rowOutStride + cb), 4 * rowOutStride)
                            }
                        }
                    } else {
                        for r in r0..<r1 {
                            let s = src + inBase + r, d = dst + outBase + r * rowOutStride
                            for c in c0..<c1 { d[c] = s[c * colInStride] }
                        }
                    }
                    c0 = c1
                }
            }
        }
    }

    /// An 8 × 8 block of bytes: input line k (8 bytes at `src + k·srcStride`) becomes column k
    /// of the 8 output lines (`dst + j·dstStride`). The eight lines are 64-bit words (byte j of
    /// word k is element (j, k)); three rounds swap 1-, 2- and 4-byte groups between words 1, 2
    /// and 4 apart, after which word j holds output line j.
    @inline(__always)
    static func transposeBytes8x8(_ src: UnsafeRawPointer, _ srcStride: Int, _ dst: UnsafeMutableRawPointer, _ dstStride: Int) {
        var w0 = src.loadUnaligned(as: UInt64.self), w1 = (src + srcStride).loadUnaligned(as: UInt64.self)
        var w2 = (src + 2 * srcStride).loadUnaligned(as: UInt64.self), w3 = (src + 3 * srcStride).loadUnaligned(as: UInt64.self)
        var w4 = (src + 4 * srcStride).loadUnaligned(as: UInt64.self), w5 = (src + 5 * srcStride).loadUnaligned(as: UInt64.self)
        var w6 = (src + 6 * srcStride).loadUnaligned(as: UInt64.self), w7 = (src + 7 * srcStride).loadUnaligned(as: UInt64.self)
        @inline(__always) func swap(_ a: inout UInt64, _ b: inout UInt64, _ shift: UInt64, _ mask: UInt64) {
            let t = ((a >> shift) ^ b) & mask
            b ^= t; a ^= t << shift
        }
        let m1: UInt64 = 0x00FF_00FF_00FF_00FF, m2: UInt64 = 0x0000_FFFF_0000_FFFF, m4: UInt64 = 0x0000_0000_FFFF_FFFF
        swap(&w0, &w1, 8, m1); swap(&w2, &w3, 8, m1); swap(&w4, &w5, 8, m1); swap(&w6, &w7, 8, m1)
        swap(&w0, &w2, 16, m2); swap(&w1, &w3, 16, m2); swap(&w4, &w6, 16, m2); swap(&w5, &w7, 16, m2)
        swap(&w0, &w4, 32, m4); swap(&w1, &w5, 32, m4); swap(&w2, &w6, 32, m4); swap(&w3, &w7, 32, m4)
        dst.storeBytes(of: w0, as: UInt64.self); (dst + dstStride).storeBytes(of: w1, as: UInt64.self)
        (dst + 2 * dstStride).storeBytes(of: w2, as: UInt64.self); (dst + 3 * dstStride).storeBytes(of: w3, as: UInt64.self)
        (dst + 4 * dstStride).storeBytes(of: w4, as: UInt64.self); (dst + 5 * dstStride).storeBytes(of: w5, as: UInt64.self)
        (dst + 6 * dstStride).storeBytes(of: w6, as: UInt64.self); (dst + 7 * dstStride).storeBytes(of: w7, as: UInt64.self)
    }

    /// A 4 × 4 block of 4-byte elements: input line k (at `src + k·srcStride` bytes) becomes
    /// column k of the 4 output lines.
    @inline(__always)
    static func transposeWords4x4(_ src: UnsafeRawPointer, _ srcStride: Int, _ dst: UnsafeMutableRawPointer, _ dstStride: Int) {
        let a = src.loadUnaligned(as: SIMD4<UInt32>.self), b = (src + srcStride).loadUnaligned(as: SIMD4<UInt32>.self)
        let c = (src + 2 * srcStride).loadUnaligned(as: SIMD4<UInt32>.self), d = (src + 3 * srcStride).loadUnaligned(as: SIMD4<UInt32>.self)
        dst.storeBytes(of: SIMD4(a.x, b.x, c.x, d.x), as: SIMD4<UInt32>.self)
        (dst + dstStride).storeBytes(of: SIMD4(a.y, b.y, c.y, d.y), as: SIMD4<UInt32>.self)
        (dst + 2 * dstStride).storeBytes(of: SIMD4(a.z, b.z, c.z, d.z), as: SIMD4<UInt32>.self)
        (dst + 3 * dstStride).storeBytes(of: SIMD4(a.w, b.w, c.w, d.w), as: SIMD4<UInt32>.self)
    }

    /// Element by element over the unreduced shape: output index i (per dimension) reads
    /// input index `i[permutation⁻¹]`. The oracle for `eval`.
    static func reference(input: UnsafeRawPointer, inShape: [Int], permutation: [Int], output: UnsafeMutableRawPointer,
                          elementSize es: Int) {
        let inStrides = Shape.strides(inShape), outShape = permutation.map { inShape[$0] }
        let outStrides = Shape.strides(outShape)
        for o in 0..<Shape.count(outShape) {
            var s = 0
            for d in outShape.indices { s += (o / outStrides[d]) % outShape[d] * inStrides[permutation[d]] }
            (output + o * es).copyMemory(from: input + s * es, byteCount: es)
        }
    }
}
