import DetectorModelFile
import DetectorPlatform
/// Moves contiguous chunks between tensors: for each of `outer` steps, chunk k of the
/// single side is exchanged with the k-th multi side tensor. Used by SPLIT and UNPACK
/// (scatter: one input → many outputs) and PACK (gather: many inputs → one output).
final class ChunkCopyKernel: PreparedKernel {
    let single: Int
    let many: [Int]
    let chunkBytes: Int
    let outer: Int
    let scatter: Bool

    init(single: Int, many: [Int], chunkBytes: Int, outer: Int, scatter: Bool) {
        self.single = single; self.many = many; self.chunkBytes = chunkBytes; self.outer = outer; self.scatter = scatter
    }

    func eval(_ e: EvalContext) throws {
        guard chunkBytes > 0 else { return }
        var s = e.raw(single)
        for o in 0..<outer {
            for t in many {
                let m = e.raw(t) + o * chunkBytes
                if scatter { m.copyMemory(from: s, byteCount: chunkBytes) } else { s.copyMemory(from: m, byteCount: chunkBytes) }
                s += chunkBytes
            }
        }
    }
}
