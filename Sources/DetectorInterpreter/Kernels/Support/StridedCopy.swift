import DetectorModelFile
import DetectorPlatform
/// Copies a strided N-d window of a tensor: output element at index i (per dimension) comes
/// from input index `begin[d] + i[d] * step[d]`. Shared by STRIDED_SLICE and SLICE.
///
/// At prepare the window is reduced to as few dimensions as possible (size-1 dimensions dropped,
/// neighbours merged where the outer one steps exactly over the inner one), so a slice that keeps
/// whole contiguous runs copies them as byte rows.
final class StridedCopyKernel: PreparedKernel {
    let input: Int, output: Int
    let elementSize: Int
    /// Input element offset of the window's first element.
    let start: Int
    /// Merged window dimensions, outermost first: element count and input element step.
    let sizes: [Int], steps: [Int]
    /// Whether any element is copied at all.
    let isEmpty: Bool

    init(input: Int, output: Int, inShape: [Int], begin: [Int], step: [Int], sizes windowSizes: [Int], elementSize: Int) {
        self.input = input; self.output = output; self.elementSize = elementSize
        let inStrides = Shape.strides(inShape)
        var start = 0
        for d in windowSizes.indices { start += begin[d] * inStrides[d] }
        self.start = start
        isEmpty = windowSizes.contains(0)
        var sizes: [Int] = [], steps: [Int] = []
        for d in windowSizes.indices where windowSizes[d] != 1 {
            let dimStep = step[d] * inStrides[d]
            if let last = sizes.indices.last, steps[last] == dimStep * windowSizes[d] {
                sizes[last] *= windowSizes[d]; steps[last] = dimStep
            } else {
                sizes.append(windowSizes[d]); steps.append(dimStep)
            }
        }
        self.sizes = sizes; self.steps = steps
    }

    func eval(_ e: EvalContext) throws {
        guard !isEmpty else { return }
        let src = e.raw(input) + start * elementSize, dst = e.raw(output)
        let es = elementSize
        guard let inner = sizes.last, let innerStep = steps.last else {
            dst.copyMemory(from: src, byteCount: es)
            return
        }
        let rank = sizes.count, sizes = self.sizes, steps = self.steps
        let rows = Shape.count(sizes) / inner
        // Rows split over the threads; each part starts at its first row's input offset.
        KernelSupport.parallelChunks(rows, parts: rows * inner * es >= KernelSupport.parallelCopyBytes ? e.threadCount : 1) { part in
            RowWalk.forEach(part, dimensions: rank - 1, sizes: sizes, stridesA: steps) { row, base, _ in
                let s = src + base * es, o = dst + row * inner * es
                if innerStep == 1 {
                    copyBytes(o, s, inner * es)
                } else {
                    switch es {
                    case 1: Self.gather(UInt8.self, s, innerStep, o, inner)
                    case 2: Self.gather(UInt16.self, s, innerStep, o, inner)
                    case 4: Self.gather(UInt32.self, s, innerStep, o, inner)
                    case 8: Self.gather(UInt64.self, s, innerStep, o, inner)
                    default: for j in 0..<inner { (o + j * es).copyMemory(from: s + j * innerStep * es, byteCount: es) }
                    }
                }
            }
        }
    }

    /// `count` elements `step` apart from `src`, packed into `dst`.
    @inline(__always)
    static func gather<T>(_: T.Type, _ src: UnsafeRawPointer, _ step: Int, _ dst: UnsafeMutableRawPointer, _ count: Int) {
        let s = src.assumingMemoryBound(to: T.self), d = dst.assumingMemoryBound(to: T.self)
        for j in 0..<count { d[j] = s[j * step] }
    }

    /// Reference strided copy, element by element over the unmerged window. The oracle for `eval`.
    static func reference(input: UnsafeRawPointer, inShape: [Int], begin: [Int], step: [Int], sizes: [Int],
                          output: UnsafeMutableRawPointer, elementSize es: Int) {
        let inStrides = Shape.strides(inShape), outStrides = Shape.strides(sizes)
        for o in 0..<Shape.count(sizes) {
            var s = 0
            for d in sizes.indices { s += (begin[d] + (o / outStrides[d]) % sizes[d] * step[d]) * inStrides[d] }
            (output + o * es).copyMemory(from: input + s * es, byteCount: es)
        }
    }
}
