import DetectorModelFile
import DetectorPlatform
/// `DENSIFY`: expands a sparse constant tensor (TFLite sparsity: traversal order, block map,
/// DENSE / SPARSE_CSR dimension metadata) into a dense tensor. The input is constant, so this
/// runs once at prepare (constant folding). float32, float16 and int8 values.
final class DensifyKernel: PreparedKernel {
    let input: Int, output: Int
    let elementSize: Int
    /// Destination element index for each stored value, in storage order.
    let destinations: [Int]
    let denseCount: Int

    init(input: Int, output: Int, elementSize: Int, destinations: [Int], denseCount: Int) {
        self.input = input; self.output = output; self.elementSize = elementSize
        self.destinations = destinations; self.denseCount = denseCount
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.float32, .float16, .int8, .uint8, .int32])
        guard let g = c.graphTensor(input: 0), let sp = g.sparsity else { throw c.invalid("input has no sparsity metadata") }
        guard let bytes = c.constantData(input: 0) else { throw c.invalid("input is not constant") }
        let size = x.type.byteSize ?? 1
        let shape = x.shape
        let n = shape.count
        let k = sp.blockMap.count
        let total = n + k
        guard sp.traversalOrder.count == total, sp.dimensions.count == total,
              Set(sp.traversalOrder) == Set(0..<total), sp.blockMap.allSatisfy({ $0 >= 0 && $0 < n }) else {
            throw c.invalid("sparsity metadata does not fit rank \(n)")
        }
        var blockSize = [Int](repeating: 1, count: k)
        for (level, d) in sp.traversalOrder.enumerated() where d >= n {
            guard case .dense(let s) = sp.dimensions[level], s > 0 else { throw c.invalid("block dimension must be dense") }
            blockSize[d - n] = s
        }
        let strides = Shape.strides(shape)
        let valueCount = bytes.count / size
        var destinations: [Int] = []
        destinations.reserveCapacity(valueCount)
        var idx = [Int](repeating: 0, count: total)
        var failure: String? = nil
        func visit(_ level: Int, _ prev: Int) {
            if failure != nil { return }
            if level == total {
                var pos = 0
                for d in 0..<n {
                    var coord = idx[d]
                    if let j = sp.blockMap.firstIndex(of: d) { coord = coord * blockSize[j] + idx[n + j] }
                    guard coord >= 0, coord < shape[d] else { failure = "index outside the dense shape"; return }
                    pos += coord * strides[d]
                }
                destinations.append(pos)
                guard destinations.count <= valueCount else { failure = "more indices than stored values"; return }
                return
            }
            let d = sp.traversalOrder[level]
            switch sp.dimensions[level] {
            case .dense(let s):
                guard s >= 0, s <= Shape.maxElementCount else { failure = "bad dense size"; return }
                let (base, o) = prev.multipliedReportingOverflow(by: s)
                guard !o, base <= Shape.maxElementCount else { failure = "dense size overflows"; return }
                for i in 0..<s { idx[d] = i; visit(level + 1, base + i); if failure != nil { return } }
            case .sparseCSR(let segments, let indices):
                guard prev + 1 < segments.count, segments[prev] >= 0, segments[prev] <= segments[prev + 1],
                      segments[prev + 1] <= indices.count else { failure = "CSR segments out of range"; return }
                for i in segments[prev]..<segments[prev + 1] { idx[d] = indices[i]; visit(level + 1, i); if failure != nil { return } }
            }
        }
        visit(0, 0)
        if let failure { throw c.invalid("sparse tensor is inconsistent: \(failure)") }
        try c.setOutput(0, shape: shape, type: x.type)
        return DensifyKernel(input: x.index, output: try c.output(0).index, elementSize: size,
                             destinations: destinations, denseCount: Shape.count(shape))
    }

    func eval(_ e: EvalContext) throws {
        let src = e.raw(input), dst = e.raw(output)
        dst.initializeMemory(as: UInt8.self, repeating: 0, count: denseCount * elementSize)
        for (v, pos) in destinations.enumerated() {
            (dst + pos * elementSize).copyMemory(from: src + v * elementSize, byteCount: elementSize)
        }
    }
}
