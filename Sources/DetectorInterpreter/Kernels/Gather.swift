import DetectorModelFile
import DetectorPlatform
/// `GATHER` along `axis` with `batch_dims`; int32/int64 indices, checked at eval.
final class GatherKernel: PreparedKernel {
    let params: Int, indices: Int, output: Int
    let indices64: Bool
    let batch: Int, outer: Int, axisSize: Int, innerBytes: Int, coords: Int
    let opIndex: Int

    init(params: Int, indices: Int, output: Int, indices64: Bool, batch: Int, outer: Int, axisSize: Int,
         innerBytes: Int, coords: Int, opIndex: Int) {
        self.params = params; self.indices = indices; self.output = output; self.indices64 = indices64
        self.batch = batch; self.outer = outer; self.axisSize = axisSize; self.innerBytes = innerBytes
        self.coords = coords; self.opIndex = opIndex
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let p = try c.input(0)
        let ix = try c.input(1, types: [.int32, .int64])
        guard let size = p.type.byteSize else { throw c.invalid("type \(p.type) is not supported") }
        guard let axis = Shape.axis(c.parameters.axis, rank: p.rank) else { throw c.invalid("axis \(c.parameters.axis) is out of range") }
        var bd = c.parameters.batchDims
        if bd < 0 { bd += ix.rank }
        guard bd >= 0, bd <= axis, bd <= ix.rank else { throw c.invalid("batch_dims \(c.parameters.batchDims) is invalid") }
        for d in 0..<bd where p.shape[d] != ix.shape[d] { throw c.invalid("batch dimension \(d) differs") }
        let shape = Array(p.shape[..<axis]) + Array(ix.shape[bd...]) + Array(p.shape[(axis + 1)...])
        try c.setOutput(0, shape: shape, type: p.type)
        return GatherKernel(params: p.index, indices: ix.index, output: try c.output(0).index, indices64: ix.type == .int64,
                            batch: Shape.count(Array(p.shape[..<bd])), outer: Shape.count(Array(p.shape[bd..<axis])),
                            axisSize: p.shape[axis], innerBytes: Shape.count(Array(p.shape[(axis + 1)...])) * size,
                            coords: Shape.count(Array(ix.shape[bd...])), opIndex: c.operatorIndex)
    }

    func eval(_ e: EvalContext) throws {
        let src = e.raw(params), dst = e.raw(output)
        let i32 = e.pointer(indices, as: Int32.self), i64 = e.pointer(indices, as: Int64.self)
        for b in 0..<batch {
            for o in 0..<outer {
                for k in 0..<coords {
                    let raw = indices64 ? Int(truncatingIfNeeded: i64[b * coords + k]) : Int(i32[b * coords + k])
                    guard raw >= 0, raw < axisSize else {
                        throw InterpreterError.invalidOperator(index: opIndex, opName: BuiltinOperator.gather.name, reason: "index \(raw) is outside 0..<\(axisSize)")
                    }
                    let from = ((b * outer + o) * axisSize + raw) * innerBytes
                    let to = ((b * outer + o) * coords + k) * innerBytes
                    if innerBytes > 0 { (dst + to).copyMemory(from: src + from, byteCount: innerBytes) }
                }
            }
        }
    }
}
