import DetectorModelFile
import DetectorPlatform
/// Resolved geometry of a 2-D window op over NHWC (pools, conv, depthwise).
struct WindowGeometry {
    let batch: Int, inH: Int, inW: Int, inC: Int
    let outH: Int, outW: Int
    let filterH: Int, filterW: Int
    let strideH: Int, strideW: Int
    let dilationH: Int, dilationW: Int
    let padTop: Int, padLeft: Int

    /// Computes output size and padding like TFLite (`ComputePaddingHeightWidth`).
    static func make(_ c: PrepareContext, input: TensorInfo, filterH: Int, filterW: Int, dilationH: Int = 1, dilationW: Int = 1) throws -> WindowGeometry {
        let p = c.parameters
        guard input.rank == 4 else { throw c.invalid("input must be 4-D NHWC, has shape \(input.shape)") }
        guard p.strideHeight > 0, p.strideWidth > 0, dilationH > 0, dilationW > 0, filterH > 0, filterW > 0 else {
            throw c.invalid("strides, dilations and filter sizes must be positive")
        }
        guard let outH = KernelSupport.outputSize(padding: p.padding, input: input.shape[1], filter: filterH, stride: p.strideHeight, dilation: dilationH),
              let outW = KernelSupport.outputSize(padding: p.padding, input: input.shape[2], filter: filterW, stride: p.strideWidth, dilation: dilationW) else {
            throw c.invalid("window parameters overflow")
        }
        return WindowGeometry(batch: input.shape[0], inH: input.shape[1], inW: input.shape[2], inC: input.shape[3],
                              outH: outH, outW: outW, filterH: filterH, filterW: filterW,
                              strideH: p.strideHeight, strideW: p.strideWidth, dilationH: dilationH, dilationW: dilationW,
                              padTop: KernelSupport.paddingBefore(input: input.shape[1], filter: filterH, stride: p.strideHeight, dilation: dilationH, output: outH),
                              padLeft: KernelSupport.paddingBefore(input: input.shape[2], filter: filterW, stride: p.strideWidth, dilation: dilationW, output: outW))
    }
}
