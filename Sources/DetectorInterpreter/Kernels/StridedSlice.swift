import DetectorModelFile
import DetectorPlatform
/// `STRIDED_SLICE` with TensorFlow semantics: begin/end/strides tensors (constant or computed
/// at prepare), begin/end/ellipsis/new-axis/shrink-axis masks and the `offset` option.
enum StridedSliceKernel {
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0)
        guard let size = x.type.byteSize else { throw c.invalid("type \(x.type) is not supported") }
        guard let sBegin = try c.constantInts(input: 1), let sEnd = try c.constantInts(input: 2) else {
            throw c.invalid("its begin/end are not known at prepare")
        }
        let sStrides = try c.constantInts(input: 3) ?? [Int](repeating: 1, count: sBegin.count)
        guard sBegin.count == sEnd.count, sBegin.count == sStrides.count, sBegin.count <= 16 else {
            throw c.invalid("begin, end and strides must have the same length (≤ 16)")
        }
        let p = c.parameters
        let plan = try StridedSlicePlan(inputShape: x.shape, begin: sBegin, end: sEnd, strides: sStrides,
                                        beginMask: p.beginMask, endMask: p.endMask, ellipsisMask: p.ellipsisMask,
                                        newAxisMask: p.newAxisMask, shrinkAxisMask: p.shrinkAxisMask, offset: p.offset)
            .mapError(c)
        try c.setOutput(0, shape: plan.outputShape, type: x.type)
        return StridedCopyKernel(input: x.index, output: try c.output(0).index, inShape: x.shape,
                                 begin: plan.begin, step: plan.step, sizes: plan.sizes, elementSize: size)
    }
}

/// The resolved dense slice of a STRIDED_SLICE: per input dimension a start, a step and a
/// count, plus the output shape after new axes and shrunk axes.
struct StridedSlicePlan {
    var begin: [Int] = [], step: [Int] = [], sizes: [Int] = []
    var outputShape: [Int] = []
    var error: String? = nil

    init(inputShape: [Int], begin sBegin: [Int], end sEnd: [Int], strides sStrides: [Int],
         beginMask: Int, endMask: Int, ellipsisMask: Int, newAxisMask: Int, shrinkAxisMask: Int, offset: Bool) {
        let rank = inputShape.count
        var sparseCount = sBegin.count
        var ellipsis = ellipsisMask
        if ellipsis & ((1 << sparseCount) - 1) == 0 {
            ellipsis |= 1 << sparseCount   // implicit ellipsis at the end
            sparseCount += 1
        }
        // Build the dense spec (one entry per input dimension).
        var dBegin = [Int](repeating: 0, count: rank), dEnd = dBegin, dStride = [Int](repeating: 1, count: rank)
        var dBeginMask = 0, dEndMask = 0, dShrink = 0
        var gather: [Int] = []   // >= 0: dense dim, -1: new axis, -2: shrunk
        var full = 0
        var seenEllipsis = false
        for i in 0..<sparseCount {
            let bit = 1 << i
            if ellipsis & bit != 0 && !seenEllipsis {
                seenEllipsis = true
                var newAfter = 0
                for j in (i + 1)..<max(i + 1, sparseCount) where newAxisMask & (1 << j) != 0 && ellipsis & (1 << j) == 0 { newAfter += 1 }
                let next = min(rank - (sparseCount - i) + 1 + newAfter, rank)
                while full < next {
                    dBeginMask |= 1 << full; dEndMask |= 1 << full
                    gather.append(full)
                    full += 1
                }
            } else if newAxisMask & bit != 0 {
                gather.append(-1)
            } else {
                guard full < rank, i < sBegin.count else { error = "the slice has more dimensions than the input's rank \(rank)"; return }
                dBegin[full] = sBegin[i]
                dEnd[full] = offset ? sBegin[i] &+ sEnd[i] : sEnd[i]
                dStride[full] = sStrides[i]
                if beginMask & bit != 0 { dBeginMask |= 1 << full }
                if endMask & bit != 0 { dEndMask |= 1 << full }
                if shrinkAxisMask & bit != 0 { dShrink |= 1 << full; gather.append(-2) } else { gather.append(full) }
                full += 1
            }
        }
        // Dims not mentioned at all (no ellipsis consumed them) are full ranges.
        while full < rank {
            dBeginMask |= 1 << full; dEndMask |= 1 << full; gather.append(full); full += 1
        }
        var denseSizes = [Int](repeating: 0, count: rank)
        begin = [Int](repeating: 0, count: rank); step = begin; sizes = begin
        for d in 0..<rank {
            let dim = inputShape[d]
            let s = dStride[d]
            guard s != 0 else { error = "stride 0 in dimension \(d)"; return }
            if dShrink & (1 << d) != 0 {
                var b = dBegin[d]
                if b < 0 { b += dim }
                guard b >= 0, b < dim else { error = "index \(dBegin[d]) is out of range for dimension \(d) of size \(dim)"; return }
                begin[d] = b; step[d] = 1; sizes[d] = 1; denseSizes[d] = 1
                continue
            }
            func canonical(_ v: Int, masked: Bool, isBegin: Bool) -> Int {
                if masked { return s > 0 ? (isBegin ? 0 : dim) : (isBegin ? dim - 1 : -1) }
                var x = v < 0 ? v + dim : v
                if s > 0 { x = min(max(x, 0), dim) } else { x = min(max(x, -1), dim - 1) }
                return x
            }
            let b = canonical(dBegin[d], masked: dBeginMask & (1 << d) != 0, isBegin: true)
            let e = canonical(dEnd[d], masked: dEndMask & (1 << d) != 0, isBegin: false)
            var n = s > 0 ? (e - b + s - 1) / s : (b - e + (-s) - 1) / (-s)
            if n < 0 { n = 0 }
            begin[d] = n == 0 ? 0 : b; step[d] = s; sizes[d] = n; denseSizes[d] = n
        }
        outputShape = gather.compactMap { g in g == -1 ? 1 : (g == -2 ? nil : denseSizes[g]) }
    }

    func mapError(_ c: PrepareContext) throws -> StridedSlicePlan {
        if let error { throw c.invalid(error) }
        return self
    }
}
