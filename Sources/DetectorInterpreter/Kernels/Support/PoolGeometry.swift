import DetectorModelFile
import DetectorPlatform
extension WindowGeometry {
    /// The window of a float or hybrid op: a 4-D NHWC input, the op's strides and padding, the
    /// given filter size and dilation. An empty VALID output is allowed (the op writes nothing).
    static func make(_ c: PrepareContext, input: TensorInfo, filterH: Int, filterW: Int, dilationH: Int = 1, dilationW: Int = 1) throws -> WindowGeometry {
        let p = c.parameters
        guard input.rank == 4 else { throw c.invalid("input must be 4-D NHWC, has shape \(input.shape)") }
        guard let g = WindowGeometry(batches: input.shape[0], inputHeight: input.shape[1], inputWidth: input.shape[2],
                                     filterHeight: filterH, filterWidth: filterW,
                                     strideHeight: p.strideHeight, strideWidth: p.strideWidth,
                                     dilationHeight: dilationH, dilationWidth: dilationW,
                                     samePadding: p.padding == .same, allowsEmptyOutput: true) else {
            throw c.invalid("strides, dilations and filter sizes must be positive and below 2^20 (filter \(filterH)x\(filterW), strides \(p.strideHeight)x\(p.strideWidth), dilations \(dilationH)x\(dilationW))")
        }
        return g
    }
}
