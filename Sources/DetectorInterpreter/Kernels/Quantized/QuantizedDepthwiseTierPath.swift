import DetectorModelFile
import DetectorPlatform

/// The prepared arrays of the kernel table's quantized depthwise kernel (`TierQuantizedDepthwise`,
/// every tier; depth multiplier 1, requantization without a left shift): per channel
/// arrays of `channels + 16` entries, entry `i` for channel `i % channels`.
///
/// Example: 8 channels → `weights` rows of 24 entries, entries 8…23 repeating channels 0…7,
/// so 16 lanes of two neighbouring pixels read one weight vector.
package struct QuantizedDepthwiseTierPath: Sendable {
    /// `[taps][channels + 16]`: the zero-point-shifted filter value in the low 16 bits, 0 above.
    package let weights: [Int32]
    /// `bias − inputZeroPoint · Σ_taps w`: for windows with every tap inside the input.
    let interiorBias: [Int32]
    /// The bias alone: for windows cut by the border (their zero point term is summed per tap).
    package let bias: [Int32]
    let doubledMultiplier: [UInt32]
    package let rightShift: [UInt32]
    /// The kernel-table entry that reads these arrays.
    package let kernel: QuantizedDepthwiseKernel

    /// nil when the depth multiplier is not 1, a multiplier has a left shift or a weight does not
    /// fit 16 bits (the general loops run those).
    package init?(weights w: [Int32], taps: Int, channels: Int, depthMultiplier: Int, bias: [Int32], inputZeroPoint: Int32,
          requantization: VectorRequantization?, kernel: QuantizedDepthwiseKernel) {
        guard depthMultiplier == 1, channels > 0, let requantization,
              w.count == taps * channels, bias.count == channels,
              w.allSatisfy({ Int32(Int16.min)...Int32(Int16.max) ~= $0 }) else { return nil }
        self.kernel = kernel
        let stride = channels + 16
        func repeated<E>(_ value: (Int) -> E) -> [E] { (0..<stride).map { value($0 % channels) } }
        var weights = [Int32](repeating: 0, count: taps * stride)
        for t in 0..<taps {
            for i in 0..<stride {
                weights[t * stride + i] = Int32(UInt16(bitPattern: Int16(truncatingIfNeeded: w[t * channels + i % channels])))
            }
        }
        self.weights = weights
        interiorBias = repeated { c in
            var sum: Int32 = 0
            for t in 0..<taps { sum = sum &+ w[t * channels + c] }
            return bias[c] &- inputZeroPoint &* sum
        }
        self.bias = repeated { bias[$0] }
        doubledMultiplier = repeated { requantization.doubledMultiplier[$0] }
        rightShift = repeated { requantization.rightShift[$0] }
    }
}

extension QuantizedDepthwiseConv2D {
    /// The kernel table's path: each output row split into its left border pixels (one call each,
    /// their in-bounds taps), the interior run (every column tap inside the input: one call;
    /// stride 1 as one flat lane vector) and the right border; output rows split over
    /// `threads`. Reads the 8-bit input in place: nothing is allocated.
    static func runTier<T: QuantizedElement>(_ p: QuantizedDepthwiseConvParams, _ path: QuantizedDepthwiseTierPath,
                                             input: UnsafePointer<T>, output: UnsafeMutablePointer<T>, threads: Int) {
        let g = p.geometry, C = p.inputDepth
        let fh = g.filterHeight, fw = g.filterWidth, H = g.inputHeight, W = g.inputWidth
        let sw = g.strideWidth, dh = g.dilationHeight, dw = g.dilationWidth
        let inputStart = UnsafeRawPointer(input), inputEnd = inputStart + g.batches * H * W * C
        let out = UnsafeMutableRawPointer(output)
        let signed = T.self == Int8.self
        // The table's `QuantizedDepthwiseKernel.Run` (its arguments in order: input, inputEnd, signed,
        // weights, bias, doubledMultiplier, rightShift, zeroPoint, outputZeroPoint, activationMin,
        // activationMax, output, channels, pixels, flat, tapRows, tapCols, firstTap, filterWidth,
        // rowStep, colStep, pixelStep).
        let kernel = path.kernel.run
        // Output columns whose every column tap is inside the input.
        let interiorLo = min(g.outputWidth, (g.padLeft + sw - 1) / sw)
        let lastStart = W - 1 + g.padLeft - (fw - 1) * dw
        let interiorHi = max(interiorLo, lastStart < 0 ? 0 : min(g.outputWidth, lastStart / sw + 1))
        // The in-bounds taps of a window starting at input row/column `start`: first and count.
        @inline(__always) func taps(start: Int, filter: Int, dilation: Int, size: Int) -> (first: Int, count: Int) {
            let first = start >= 0 ? 0 : (dilation - 1 - start) / dilation
            let end = start > size - 1 ? 0 : min(filter, (size - 1 - start) / dilation + 1)
            return (first, max(0, end - first))
        }
        path.weights.withUnsafeBufferPointer { wb in
        path.interiorBias.withUnsafeBufferPointer { ib in
        path.bias.withUnsafeBufferPointer { bb in
        path.doubledMultiplier.withUnsafeBufferPointer { mb in
        path.rightShift.withUnsafeBufferPointer { sb in
            guard let w = wb.baseAddress, let interiorBias = ib.baseAddress, let bias = bb.baseAddress,
                  let mul = mb.baseAddress, let shift = sb.baseAddress else { return }
            parallelChunks(count: g.batches * g.outputHeight, threads: threads) { begin, end in
                for row in begin..<end {
                    let b = row / g.outputHeight, oy = row % g.outputHeight
                    let iy = oy * g.strideHeight - g.padTop
                    let rows = taps(start: iy, filter: fh, dilation: dh, size: H)
                    let rowBase = (b * H + iy + rows.first * dh) * W
                    let outRow = out + (b * g.outputHeight + oy) * g.outputWidth * C * MemoryLayout<T>.stride
                    // `pixels` outputs from column `ox` sharing the column taps `cols`.
                    @inline(__always) func call(_ ox: Int, pixels: Int, cols: (first: Int, count: Int), flat: Bool) {
                        let cut = rows.count != fh || cols.count != fw
                        let ix = ox * sw - g.padLeft + cols.first * dw
                        let first = rows.count > 0 && cols.count > 0 ? inputStart + (rowBase + ix) * C : inputStart
                        let zeroPoint: Int32? = cut ? p.inputZeroPoint : nil
                        let o = outRow + ox * C
                        kernel(first, inputEnd, signed, w, cut ? bias : interiorBias, mul, shift, zeroPoint,
                               p.outputZeroPoint, p.activationMin, p.activationMax, o, C, pixels, flat, rows.count,
                               cols.count, rows.first * fw + cols.first, fw, dh * W * C, dw * C, sw * C)
                    }
                    for ox in 0..<interiorLo {
                        call(ox, pixels: 1, cols: taps(start: ox * sw - g.padLeft, filter: fw, dilation: dw, size: W), flat: false)
                    }
                    if interiorHi > interiorLo {
                        call(interiorLo, pixels: interiorHi - interiorLo, cols: (0, fw), flat: sw == 1 && C % 16 != 0)
                    }
                    for ox in interiorHi..<g.outputWidth {
                        call(ox, pixels: 1, cols: taps(start: ox * sw - g.padLeft, filter: fw, dilation: dw, size: W), flat: false)
                    }
                }
            }
        } } } } }
    }
}
