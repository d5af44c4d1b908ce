import DetectorModelFile
import DetectorPlatform
/// `PAD` and `PADV2`: pads with a constant (PADV2's input 2; else 0, or the zero point for
/// quantized tensors). Paddings: an `[rank, 2]` int32/int64 tensor (constant or computed at
/// prepare). Type-agnostic.
final class PadKernel: PreparedKernel {
    let input: Int, output: Int
    let inShape: [Int], outShape: [Int], before: [Int]
    let elementSize: Int
    /// Fill value bytes (one element).
    let fill: [UInt8]
    let valueInput: Int?
    /// The copy as contiguous rows: the input splits into rows spanning every dimension from the
    /// innermost padded one (`rowDimension`) inwards, each landing contiguously in the output.
    let rowDimension: Int, rowBytes: Int
    /// Output element strides.
    let outStrides: [Int]
    /// Only the innermost of two or more dimensions is padded (channel padding).
    let innermostOnly: Bool

    init(input: Int, output: Int, inShape: [Int], outShape: [Int], before: [Int], elementSize: Int, fill: [UInt8], valueInput: Int?) {
        self.input = input; self.output = output; self.inShape = inShape; self.outShape = outShape
        self.before = before; self.elementSize = elementSize; self.fill = fill; self.valueInput = valueInput
        outStrides = Shape.strides(outShape)
        let padded = inShape.indices.last { inShape[$0] != outShape[$0] } ?? 0
        rowDimension = padded
        rowBytes = Shape.count(Array(inShape[padded...])) * elementSize
        innermostOnly = inShape.count > 1 && padded == inShape.count - 1 && inShape.dropLast() == outShape.dropLast()
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0)
        guard let size = x.type.byteSize else { throw c.invalid("type \(x.type) is not supported") }
        guard let p = try c.constantInts(input: 1) else { throw c.invalid("its paddings are not known at prepare") }
        guard p.count == x.rank * 2 else { throw c.invalid("paddings have \(p.count) values for rank \(x.rank)") }
        var out = x.shape
        var before = [Int](repeating: 0, count: x.rank)
        for d in 0..<x.rank {
            guard p[2 * d] >= 0, p[2 * d + 1] >= 0 else { throw c.invalid("negative padding \(p)") }
            let (s1, o1) = out[d].addingReportingOverflow(p[2 * d])
            let (s2, o2) = s1.addingReportingOverflow(p[2 * d + 1])
            guard !o1, !o2 else { throw c.invalid("padding overflows") }
            out[d] = s2
            before[d] = p[2 * d]
        }
        try c.setOutput(0, shape: out, type: x.type)
        var fill = [UInt8](repeating: 0, count: size)
        var valueInput: Int? = nil
        if let v = c.optionalInput(2) {
            guard v.type == x.type, v.elementCount == 1 else { throw c.invalid("pad value must be one \(x.type) value") }
            valueInput = v.index
        } else if let q = x.quantization, let zp = q.zeroPoints.first, zp != 0 {
            switch x.type {
            case .uint8: fill = [UInt8(truncatingIfNeeded: zp)]
            case .int8: fill = [UInt8(bitPattern: Int8(truncatingIfNeeded: zp))]
            case .int16: fill = withUnsafeBytes(of: Int16(truncatingIfNeeded: zp).littleEndian) { Array($0) }
            default: break
            }
        }
        return PadKernel(input: x.index, output: try c.output(0).index, inShape: x.shape, outShape: out,
                         before: before, elementSize: size, fill: fill, valueInput: valueInput)
    }

    func eval(_ e: EvalContext) throws {
        let dst = e.raw(output), src = e.raw(input)
        let es = elementSize
        var value = fill
        if let v = valueInput { value = Array(UnsafeRawBufferPointer(start: e.raw(v), count: es)) }
        let byteCount = Shape.count(outShape) * es
        if let first = value.first, value.allSatisfy({ $0 == first }), innermostOnly {
            padInnermost(dst, src, fill: first, threads: byteCount >= Self.parallelInnermostBytes ? e.threadCount : 1)
            return
        }
        let threads = byteCount >= KernelSupport.parallelCopyBytes ? e.threadCount : 1
        if inShape.isEmpty { dst.copyMemory(from: src, byteCount: es); return }
        guard rowBytes > 0 else { Self.fill(dst, byteCount: byteCount, with: value); return }
        // Every output byte written once: the input's rows land at increasing output offsets,
        // and each part fills the gap before each of its rows (the first part from the start,
        // the last part also the tail after the last row). Rows split over the threads; each
        // part walks its rows over the dimensions outside the row, from its first row on.
        let k = rowDimension, inShape = self.inShape, outStrides = self.outStrides, rowBytes = self.rowBytes
        var start = 0
        for d in 0...k { start += before[d] * outStrides[d] }
        let rows = Shape.count(Array(inShape[..<k]))
        guard rows > 0 else { Self.fill(dst, byteCount: byteCount, with: value); return }
        KernelSupport.parallelChunks(rows, parts: threads) { part in
            // The byte where the part's first gap starts: the end of the row before it.
            var gapStart = 0
            if part.lowerBound > 0 {
                RowWalk.forEach((part.lowerBound - 1)..<part.lowerBound, dimensions: k, sizes: inShape, stridesA: outStrides,
                                startA: start) { _, offset, _ in gapStart = offset * es + rowBytes }
            }
            RowWalk.forEach(part, dimensions: k, sizes: inShape, stridesA: outStrides, startA: start) { r, offset, _ in
                let at = offset * es
                if at > gapStart { Self.fill(dst + gapStart, byteCount: at - gapStart, with: value) }
                (dst + at).copyMemory(from: src + r * rowBytes, byteCount: rowBytes)
                gapStart = at + rowBytes
            }
            if part.upperBound == rows, byteCount > gapStart {
                Self.fill(dst + gapStart, byteCount: byteCount - gapStart, with: value)
            }
        }
    }

    /// Outputs from this size split `padInnermost` over the threads: each thread's pixels are
    /// then about those the op before wrote on it (face_detection_short_range's 24 → 28
    /// channel pads, 458 KB, AMD EPYC).
    static let parallelInnermostBytes = 1 << 16

    /// PAD of the innermost dimension only (channel padding) with a one-byte-pattern fill: per
    /// pixel the fill before, the input row, the fill after, written once each (the general
    /// path fills the whole output first), pixels split over `threads`.
    private func padInnermost(_ dst: UnsafeMutableRawPointer, _ src: UnsafeRawPointer, fill: UInt8, threads: Int) {
        let es = elementSize, rank = inShape.count
        let rows = Shape.count(Array(inShape[..<(rank - 1)]))
        let head = before[rank - 1] * es, copy = rowBytes, outRow = outShape[rank - 1] * es
        let tail = outRow - head - copy
        KernelSupport.parallelChunks(rows, parts: threads) { part in
            for r in part {
                let o = dst + r * outRow
                if head > 0 { o.initializeMemory(as: UInt8.self, repeating: fill, count: head) }
                Self.copyBytes(o + head, src + r * copy, count: copy)
                if tail > 0 { (o + head + copy).initializeMemory(as: UInt8.self, repeating: fill, count: tail) }
            }
        }
    }

    /// `count` bytes, 16 per step then one by one, inline: the rows are short (a pixel's
    /// channels), where a `memcpy` call per row costs as much as the copy.
    @inline(__always)
    static func copyBytes(_ dst: UnsafeMutableRawPointer, _ src: UnsafeRawPointer, count: Int) {
        var i = 0
        while i + 16 <= count {
            (dst + i).storeBytes(of: (src + i).loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
            i += 16
        }
        while i < count { (dst + i).storeBytes(of: (src + i).load(as: UInt8.self), as: UInt8.self); i += 1 }
    }

    /// Writes `value` (one element's bytes) repeatedly over `byteCount` bytes: a memset when all
    /// its bytes are equal, else the element once and then doubling copies.
    static func fill(_ dst: UnsafeMutableRawPointer, byteCount: Int, with value: [UInt8]) {
        guard byteCount > 0, let first = value.first else { return }
        if value.allSatisfy({ $0 == first }) {
            dst.initializeMemory(as: UInt8.self, repeating: first, count: byteCount)
            return
        }
        var filled = min(value.count, byteCount)
        value.withUnsafeBytes { if let v = $0.baseAddress { dst.copyMemory(from: v, byteCount: filled) } }
        while filled < byteCount {
            let n = min(filled, byteCount - filled)
            (dst + filled).copyMemory(from: dst, byteCount: n)
            filled += n
        }
    }

    /// Reference PAD, element by element: every output element is the input element it maps to,
    /// or the fill value. The oracle for `eval`.
    static func reference(input: UnsafeRawPointer, inShape: [Int], before: [Int], output: UnsafeMutableRawPointer,
                          outShape: [Int], elementSize es: Int, value: [UInt8]) {
        let outStrides = Shape.strides(outShape), inStrides = Shape.strides(inShape)
        for o in 0..<Shape.count(outShape) {
            var source = 0, inside = true
            for d in 0..<outShape.count {
                let i = (o / outStrides[d]) % outShape[d] - before[d]
                if i < 0 || i >= inShape[d] { inside = false; break }
                source += i * inStrides[d]
            }
            if inside {
                (output + o * es).copyMemory(from: input + source * es, byteCount: es)
            } else {
                value.withUnsafeBytes { if let v = $0.baseAddress { (output + o * es).copyMemory(from: v, byteCount: min(es, value.count)) } }
            }
        }
    }
}
