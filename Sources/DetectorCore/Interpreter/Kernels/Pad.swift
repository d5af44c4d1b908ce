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

    init(input: Int, output: Int, inShape: [Int], outShape: [Int], before: [Int], elementSize: Int, fill: [UInt8], valueInput: Int?) {
        self.input = input; self.output = output; self.inShape = inShape; self.outShape = outShape
        self.before = before; self.elementSize = elementSize; self.fill = fill; self.valueInput = valueInput
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
        let dst = e.raw(output)
        let total = Shape.count(outShape)
        let es = elementSize
        // Fill everything with the pad value, then copy the input rows in.
        var value = fill
        if let v = valueInput { value = Array(UnsafeRawBufferPointer(start: e.raw(v), count: es)) }
        if value.allSatisfy({ $0 == 0 }) {
            dst.initializeMemory(as: UInt8.self, repeating: 0, count: total * es)
        } else {
            value.withUnsafeBytes { v in
                for i in 0..<total { (dst + i * es).copyMemory(from: v.baseAddress!, byteCount: es) }
            }
        }
        let rank = inShape.count
        if rank == 0 { dst.copyMemory(from: e.raw(input), byteCount: es); return }
        let inner = inShape[rank - 1]
        let rows = inner == 0 ? 0 : Shape.count(inShape) / inner
        let outStrides = Shape.strides(outShape)
        let src = e.raw(input)
        var index = [Int](repeating: 0, count: rank)
        for r in 0..<rows {
            var off = before[rank - 1]
            for d in 0..<(rank - 1) { off += (index[d] + before[d]) * outStrides[d] }
            (dst + off * es).copyMemory(from: src + r * inner * es, byteCount: inner * es)
            var d = rank - 2
            while d >= 0 {
                index[d] += 1
                if index[d] < inShape[d] { break }
                index[d] = 0
                d -= 1
            }
        }
    }
}
