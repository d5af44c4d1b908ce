import DetectorModelFile
import DetectorPlatform
/// `SPACE_TO_DEPTH` (NHWC): out[b, h, w, (dy*s+dx)*C + c] = in[b, h*s+dy, w*s+dx, c].
final class SpaceToDepthKernel: PreparedKernel {
    let input: Int, output: Int
    let batch: Int, outH: Int, outW: Int, block: Int, inDepthBytes: Int

    init(input: Int, output: Int, batch: Int, outH: Int, outW: Int, block: Int, inDepthBytes: Int) {
        self.input = input; self.output = output; self.batch = batch; self.outH = outH; self.outW = outW
        self.block = block; self.inDepthBytes = inDepthBytes
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0)
        guard let size = x.type.byteSize, x.rank == 4 else { throw c.invalid("input must be 4-D, has shape \(x.shape)") }
        let s = c.parameters.blockSize
        guard s > 0, s <= 1 << 15, Shape.elementCount([x.shape[3], s, s]) != nil, x.shape[1] % s == 0, x.shape[2] % s == 0 else { throw c.invalid("height/width \(x.shape) not divisible by block \(s)") }
        try c.setOutput(0, shape: [x.shape[0], x.shape[1] / s, x.shape[2] / s, x.shape[3] * s * s], type: x.type)
        return SpaceToDepthKernel(input: x.index, output: try c.output(0).index, batch: x.shape[0], outH: x.shape[1] / s,
                                  outW: x.shape[2] / s, block: s, inDepthBytes: x.shape[3] * size)
    }

    func eval(_ e: EvalContext) throws {
        let src = e.raw(input), dst = e.raw(output)
        let inW = outW * block, inH = outH * block
        for b in 0..<batch {
            for h in 0..<outH {
                for w in 0..<outW {
                    for dy in 0..<block {
                        for dx in 0..<block {
                            let to = (((b * outH + h) * outW + w) * block * block + dy * block + dx) * inDepthBytes
                            let from = ((b * inH + h * block + dy) * inW + w * block + dx) * inDepthBytes
                            (dst + to).copyMemory(from: src + from, byteCount: inDepthBytes)
                        }
                    }
                }
            }
        }
    }
}
