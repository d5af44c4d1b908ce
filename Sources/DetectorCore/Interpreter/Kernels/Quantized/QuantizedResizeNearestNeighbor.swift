import Foundation

/// RESIZE_NEAREST_NEIGHBOR for any element size (TFLite reference): source index
/// `min(floor((o + offset) * scale), in - 1)` (or `round` with align_corners), offset 0.5 with
/// half-pixel centers; the scale is `in / out` (or `(in - 1) / (out - 1)` with align_corners) in `Float`.
public enum QuantizedResizeNearestNeighbor {
    /// Source index for output index `o`.
    public static func sourceIndex(_ o: Int, inputSize: Int, outputSize: Int, alignCorners: Bool, halfPixelCenters: Bool) -> Int {
        let scale: Float = (alignCorners && outputSize > 1)
            ? Float(inputSize - 1) / Float(outputSize - 1) : Float(inputSize) / Float(outputSize)
        let offset: Float = halfPixelCenters ? 0.5 : 0
        let v = (Float(o) + offset) * scale
        var r = alignCorners ? Int(v.rounded(.toNearestOrAwayFromZero)) : Int(v.rounded(.down))
        r = min(r, inputSize - 1)
        if halfPixelCenters { r = max(0, r) }
        return r
    }

    /// NHWC resize of `elementSize`-byte elements.
    public static func run(input: UnsafeRawPointer, output: UnsafeMutableRawPointer, elementSize: Int,
                           batches: Int, inputHeight: Int, inputWidth: Int, depth: Int,
                           outputHeight: Int, outputWidth: Int, alignCorners: Bool, halfPixelCenters: Bool) {
        let xs = (0..<outputWidth).map { sourceIndex($0, inputSize: inputWidth, outputSize: outputWidth, alignCorners: alignCorners, halfPixelCenters: halfPixelCenters) }
        let rowBytes = depth * elementSize
        var o = output
        for b in 0..<batches {
            for oy in 0..<outputHeight {
                let iy = sourceIndex(oy, inputSize: inputHeight, outputSize: outputHeight, alignCorners: alignCorners, halfPixelCenters: halfPixelCenters)
                let srcRow = input + ((b * inputHeight + iy) * inputWidth) * rowBytes
                for ox in 0..<outputWidth {
                    o.copyMemory(from: srcRow + xs[ox] * rowBytes, byteCount: rowBytes)
                    o += rowBytes
                }
            }
        }
    }
}
