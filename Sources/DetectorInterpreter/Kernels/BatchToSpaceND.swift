import DetectorModelFile
import DetectorPlatform
/// `BATCH_TO_SPACE_ND` for 4-D NHWC (and 3-D NWC) inputs: block shape and crops from
/// tensors known at prepare.
final class BatchToSpaceNDKernel: PreparedKernel {
    let input: Int, output: Int
    let inB: Int, inH: Int, inW: Int, depthBytes: Int
    let outB: Int, outH: Int, outW: Int
    let blockH: Int, blockW: Int, cropTop: Int, cropLeft: Int

    init(input: Int, output: Int, inB: Int, inH: Int, inW: Int, depthBytes: Int, outB: Int, outH: Int, outW: Int,
         blockH: Int, blockW: Int, cropTop: Int, cropLeft: Int) {
        self.input = input; self.output = output; self.inB = inB; self.inH = inH; self.inW = inW
        self.depthBytes = depthBytes; self.outB = outB; self.outH = outH; self.outW = outW
        self.blockH = blockH; self.blockW = blockW; self.cropTop = cropTop; self.cropLeft = cropLeft
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0)
        guard let size = x.type.byteSize else { throw c.invalid("type \(x.type) is not supported") }
        guard x.rank == 4 || x.rank == 3 else { throw c.invalid("input must be 3-D or 4-D, has shape \(x.shape)") }
        guard let block = try c.constantInts(input: 1), let crops = try c.constantInts(input: 2) else {
            throw c.invalid("its block shape and crops are not known at prepare")
        }
        let spatial = x.rank - 2
        guard block.count == spatial, crops.count == 2 * spatial, block.allSatisfy({ $0 > 0 }), crops.allSatisfy({ $0 >= 0 }) else {
            throw c.invalid("block shape \(block) / crops \(crops) are invalid for shape \(x.shape)")
        }
        let bh = block[0], bw = spatial == 2 ? block[1] : 1
        guard block.allSatisfy({ $0 <= Shape.maxElementCount }), crops.allSatisfy({ $0 <= Shape.maxElementCount }),
              Shape.elementCount([x.shape[1], bh]) != nil, Shape.elementCount([x.shape[2 % x.rank], bw]) != nil,
              Shape.elementCount([bh, bw]) != nil else {
            throw c.invalid("block shape \(block) / crops \(crops) are too large")
        }
        guard x.shape[0] % (bh * bw) == 0 else { throw c.invalid("batch \(x.shape[0]) is not a multiple of the block size") }
        let h = x.shape[1], w = x.rank == 4 ? x.shape[2] : 1
        let ct = crops[0], cb = crops[1], cl = spatial == 2 ? crops[2] : 0, cr = spatial == 2 ? crops[3] : 0
        let outH = h * bh - ct - cb, outW = w * bw - cl - cr
        guard outH >= 0, outW >= 0 else { throw c.invalid("crops \(crops) are larger than the output") }
        let depth = x.shape[x.rank - 1]
        let outB = x.shape[0] / (bh * bw)
        let shape = x.rank == 4 ? [outB, outH, outW, depth] : [outB, outH, depth]
        try c.setOutput(0, shape: shape, type: x.type)
        return BatchToSpaceNDKernel(input: x.index, output: try c.output(0).index, inB: x.shape[0], inH: h, inW: w,
                                    depthBytes: depth * size, outB: outB, outH: outH, outW: outW, blockH: bh, blockW: bw,
                                    cropTop: ct, cropLeft: cl)
    }

    func eval(_ e: EvalContext) throws {
        let src = e.raw(input), dst = e.raw(output)
        for ib in 0..<inB {
            let ob = ib % outB
            let spatial = ib / outB
            let offH = spatial / blockW, offW = spatial % blockW
            for ih in 0..<inH {
                let oh = ih * blockH + offH - cropTop
                if oh < 0 || oh >= outH { continue }
                for iw in 0..<inW {
                    let ow = iw * blockW + offW - cropLeft
                    if ow < 0 || ow >= outW { continue }
                    (dst + ((ob * outH + oh) * outW + ow) * depthBytes)
                        .copyMemory(from: src + ((ib * inH + ih) * inW + iw) * depthBytes, byteCount: depthBytes)
                }
            }
        }
    }
}
