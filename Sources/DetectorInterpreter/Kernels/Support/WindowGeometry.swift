import DetectorModelFile
import DetectorPlatform
/// The spatial geometry of a 2-D window op over NHWC — CONV_2D, DEPTHWISE_CONV_2D, the pools and
/// FULLY_CONNECTED's 1×1 view; float, hybrid and quantized alike — resolved once at prepare. The one
/// place output sizes and padding are computed (TFLite's `ComputePaddingHeightWidth`, through
/// `KernelSupport.outputSize` and `paddingBefore`).
package struct WindowGeometry: Sendable, Equatable {
    package var batches: Int
    package var inputHeight: Int, inputWidth: Int
    package var outputHeight: Int, outputWidth: Int
    package var filterHeight: Int, filterWidth: Int
    package var strideHeight: Int, strideWidth: Int
    package var dilationHeight: Int, dilationWidth: Int
    /// Rows/columns of implicit padding before the first input row/column (TFLite `padding.height/width`).
    package var padTop: Int, padLeft: Int

    /// Computes output size and padding the way TFLite's `ComputePaddingHeightWidth` does.
    /// Returns nil for negative sizes, non-positive strides/dilations/filters, filters or
    /// dilations of 2^20 or more, or — unless `allowsEmptyOutput` (the float kernels accept an
    /// empty VALID output) — an empty output.
    package init?(batches: Int, inputHeight: Int, inputWidth: Int, filterHeight: Int, filterWidth: Int,
                 strideHeight: Int, strideWidth: Int, dilationHeight: Int = 1, dilationWidth: Int = 1,
                 samePadding: Bool, allowsEmptyOutput: Bool = false) {
        guard batches >= 0, inputHeight >= 0, inputWidth >= 0, filterHeight > 0, filterWidth > 0,
              strideHeight > 0, strideWidth > 0, dilationHeight > 0, dilationWidth > 0,
              filterHeight < 1 << 20, filterWidth < 1 << 20, dilationHeight < 1 << 20, dilationWidth < 1 << 20
        else { return nil }
        let padding: OperatorParameters.Padding = samePadding ? .same : .valid
        guard let outH = KernelSupport.outputSize(padding: padding, input: inputHeight, filter: filterHeight,
                                                  stride: strideHeight, dilation: dilationHeight),
              let outW = KernelSupport.outputSize(padding: padding, input: inputWidth, filter: filterWidth,
                                                  stride: strideWidth, dilation: dilationWidth),
              allowsEmptyOutput || (outH > 0 && outW > 0)
        else { return nil }
        self.init(batches: batches, inputHeight: inputHeight, inputWidth: inputWidth, outputHeight: outH, outputWidth: outW,
                  filterHeight: filterHeight, filterWidth: filterWidth, strideHeight: strideHeight, strideWidth: strideWidth,
                  dilationHeight: dilationHeight, dilationWidth: dilationWidth,
                  padTop: KernelSupport.paddingBefore(input: inputHeight, filter: filterHeight, stride: strideHeight,
                                                      dilation: dilationHeight, output: outH),
                  padLeft: KernelSupport.paddingBefore(input: inputWidth, filter: filterWidth, stride: strideWidth,
                                                       dilation: dilationWidth, output: outW))
    }

    /// A geometry given in full (tests, and views derived from a resolved one); nothing is checked.
    package init(batches: Int, inputHeight: Int, inputWidth: Int, outputHeight: Int, outputWidth: Int,
                 filterHeight: Int, filterWidth: Int, strideHeight: Int, strideWidth: Int,
                 dilationHeight: Int, dilationWidth: Int, padTop: Int, padLeft: Int) {
        self.batches = batches
        self.inputHeight = inputHeight; self.inputWidth = inputWidth
        self.outputHeight = outputHeight; self.outputWidth = outputWidth
        self.filterHeight = filterHeight; self.filterWidth = filterWidth
        self.strideHeight = strideHeight; self.strideWidth = strideWidth
        self.dilationHeight = dilationHeight; self.dilationWidth = dilationWidth
        self.padTop = padTop; self.padLeft = padLeft
    }
}

extension WindowGeometry {
    /// The window of a float or hybrid op: a 4-D NHWC input, the op's strides and padding, the
    /// given filter size and dilation. An empty VALID output is allowed (the op writes nothing).
    ///
    /// With a PAD folded into the op (`PrepareContext.foldedPadding`, VALID padding only) the
    /// window is the VALID one over the padded size, read from the unpadded input with the PAD's
    /// rows and columns as implicit padding (`padTop`, `padLeft`; the windows past the bottom and
    /// right edges are clipped like SAME padding's).
    static func make(_ c: PrepareContext, input: TensorInfo, filterH: Int, filterW: Int, dilationH: Int = 1, dilationW: Int = 1,
                     allowsEmptyOutput: Bool = true) throws -> WindowGeometry {
        let p = c.parameters
        guard input.rank == 4 else { throw c.invalid("input must be 4-D NHWC, has shape \(input.shape)") }
        let pad = c.foldedPadding
        guard pad == nil || p.padding == .valid else { throw c.invalid("a folded PAD needs VALID padding") }
        let (h, oh) = input.shape[1].addingReportingOverflow((pad?.top ?? 0) + (pad?.bottom ?? 0))
        let (w, ow) = input.shape[2].addingReportingOverflow((pad?.left ?? 0) + (pad?.right ?? 0))
        guard !oh, !ow, var g = WindowGeometry(batches: input.shape[0], inputHeight: h, inputWidth: w,
                                               filterHeight: filterH, filterWidth: filterW,
                                               strideHeight: p.strideHeight, strideWidth: p.strideWidth,
                                               dilationHeight: dilationH, dilationWidth: dilationW,
                                               samePadding: p.padding == .same, allowsEmptyOutput: allowsEmptyOutput) else {
            throw c.invalid("invalid window: input \(input.shape), filter \(filterH)x\(filterW), strides \(p.strideHeight)x\(p.strideWidth), dilations \(dilationH)x\(dilationW) (all positive and below 2^20, and a non-empty output)")
        }
        if let pad {
            g.inputHeight = input.shape[1]; g.inputWidth = input.shape[2]
            g.padTop = pad.top; g.padLeft = pad.left
        }
        return g
    }
}
