import DetectorModelFile
import DetectorPlatform
/// `SPACE_TO_BATCH_ND` for 4-D NHWC (and 3-D NWC) inputs: block shape and paddings from
/// tensors known at prepare; padded cells get 0 (the zero point for quantized tensors).
final class SpaceToBatchNDKernel: PreparedKernel {
    let input: Int, output: Int
    let inB: Int, inH: Int, inW: Int, depthBytes: Int
    let outB: Int, outH: Int, outW: Int
    let blockH: Int, blockW: Int, padTop: Int, padLeft: Int
    let fill: UInt8

    init(input: Int, output: Int, inB: Int, inH: Int, inW: Int, depthBytes: Int, outB: Int, outH: Int, outW: Int,
         blockH: Int, blockW: Int, padTop: Int, padLeft: Int, fill: UInt8) {
        self.input = input; self.output = output; self.inB = inB; self.inH = inH; self.inW = inW
        self.depthBytes = depthBytes; self.outB = outB; self.outH = outH; self.outW = outW
        self.blockH = blockH; self.blockW = blockW; self.padTop = padTop; self.padLeft = padLeft; self.fill = fill
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0)
        guard let size = x.type.byteSize else { throw c.invalid("type \(x.type) is not supported") }
        guard x.rank == 4 || x.rank == 3 else { throw c.invalid("input must be 3-D or 4-D, has shape \(x.shape)") }
        guard let block = try c.constantInts(input: 1), let pad = try c.constantInts(input: 2) else {
            throw c.invalid("its block shape and paddings are not known at prepare")
        }
        let spatial = x.rank - 2
        guard block.count == spatial, pad.count == 2 * spatial, block.allSatisfy({ $0 > 0 }), pad.allSatisfy({ $0 >= 0 }) else {
            throw c.invalid("block shape \(block) / paddings \(pad) are invalid for shape \(x.shape)")
        }
        let h = x.shape[1], w = x.rank == 4 ? x.shape[2] : 1
        let bh = block[0], bw = spatial == 2 ? block[1] : 1
        let pt = pad[0], pb = pad[1], pl = spatial == 2 ? pad[2] : 0, pr = spatial == 2 ? pad[3] : 0
        guard block.allSatisfy({ $0 <= Shape.maxElementCount }), pad.allSatisfy({ $0 <= Shape.maxElementCount }),
              let outB = Shape.elementCount([x.shape[0], bh, bw]) else {
            throw c.invalid("block shape \(block) / paddings \(pad) are too large")
        }
        guard (h + pt + pb) % bh == 0, (w + pl + pr) % bw == 0 else { throw c.invalid("padded size is not a multiple of the block") }
        let outH = (h + pt + pb) / bh, outW = (w + pl + pr) / bw
        let depth = x.shape[x.rank - 1]
        let shape = x.rank == 4 ? [outB, outH, outW, depth] : [outB, outH, depth]
        try c.setOutput(0, shape: shape, type: x.type)
        var fill: UInt8 = 0
        if let zp = x.quantization?.zeroPoints.first, size == 1 { fill = UInt8(truncatingIfNeeded: zp) }
        return SpaceToBatchNDKernel(input: x.index, output: try c.output(0).index, inB: x.shape[0], inH: h, inW: w,
                                    depthBytes: depth * size, outB: outB, outH: outH, outW: outW, blockH: bh, blockW: bw,
                                    padTop: pt, padLeft: pl, fill: fill)
    }

    func eval(_ e: EvalContext) throws {
        let src = e.raw(input), dst = e.raw(output)
        var o = dst
        for ob in 0..<outB {
            let b = ob % inB
            let shiftW = (ob / inB) % blockW, shiftH = (ob / inB) / blockW
            for oh in 0..<outH {
                let ih = oh * blockH + shiftH - padTop
                for ow in 0..<outW {
                    let iw = ow * blockW + shiftW - padLeft
                    if ih < 0 || ih >= inH || iw < 0 || iw >= inW {
                        o.initializeMemory(as: UInt8.self, repeating: fill, count: depthBytes)
                    } else {
                        o.copyMemory(from: src + ((b * inH + ih) * inW + iw) * depthBytes, byteCount: depthBytes)
                    }
                    o += depthBytes
                }
            }
        }
    }
}
