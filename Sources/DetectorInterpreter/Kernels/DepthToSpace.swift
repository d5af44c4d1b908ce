import DetectorModelFile
import DetectorPlatform
/// `DEPTH_TO_SPACE` (NHWC, DCR order): out[b, h*s+dy, w*s+dx, c] = in[b, h, w, (dy*s+dx)*C' + c].
final class DepthToSpaceKernel: PreparedKernel {
    let input: Int, output: Int
    let batch: Int, inH: Int, inW: Int, block: Int, outDepthBytes: Int

    init(input: Int, output: Int, batch: Int, inH: Int, inW: Int, block: Int, outDepthBytes: Int) {
        self.input = input; self.output = output; self.batch = batch; self.inH = inH; self.inW = inW
        self.block = block; self.outDepthBytes = outDepthBytes
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0)
        guard let size = x.type.byteSize, x.rank == 4 else { throw c.invalid("input must be 4-D, has shape \(x.shape)") }
        let s = c.parameters.blockSize
        guard s > 0, s <= 1 << 15, Shape.elementCount([x.shape[1], s]) != nil, Shape.elementCount([x.shape[2], s]) != nil,
              x.shape[3] % (s * s) == 0 else { throw c.invalid("depth \(x.shape[3]) is not a multiple of block² (\(s))") }
        let outDepth = x.shape[3] / (s * s)
        try c.setOutput(0, shape: [x.shape[0], x.shape[1] * s, x.shape[2] * s, outDepth], type: x.type)
        return DepthToSpaceKernel(input: x.index, output: try c.output(0).index, batch: x.shape[0], inH: x.shape[1],
                                  inW: x.shape[2], block: s, outDepthBytes: outDepth * size)
    }

    func eval(_ e: EvalContext) throws {
        let src = e.raw(input), dst = e.raw(output)
        let (inH, inW, block, outDepthBytes) = (self.inH, self.inW, self.block, self.outDepthBytes)
        // For one input row and one dy, the block's dx run (block · C' values) is contiguous in
        // the input and in the output: one copy per input pixel and dy. Output rows split over
        // the threads.
        let run = block * outDepthBytes, outRowBytes = inW * run, rows = batch * inH * block
        KernelSupport.parallelChunks(rows, parts: rows * outRowBytes >= KernelSupport.parallelCopyBytes ? e.threadCount : 1) { part in
            for outRow in part {
                let bh = outRow / block, dy = outRow - bh * block   // bh = b · inH + h
                var from = src + bh * inW * block * run + dy * run
                var to = dst + outRow * outRowBytes
                for _ in 0..<inW {
                    copyBytes(to, UnsafeRawPointer(from), run)
                    from += block * run
                    to += run
                }
            }
        }
    }
}
