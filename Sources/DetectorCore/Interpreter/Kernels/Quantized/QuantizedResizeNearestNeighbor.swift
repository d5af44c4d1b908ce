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

/// Interpreter kernel for RESIZE_NEAREST_NEIGHBOR (any fixed-size element type).
final class ResizeNearestNeighborKernel: PreparedKernel {
    let input: Int, output: Int, elementSize: Int
    let batches: Int, inputHeight: Int, inputWidth: Int, depth: Int, outputHeight: Int, outputWidth: Int
    let alignCorners: Bool, halfPixelCenters: Bool
    init(input: Int, output: Int, elementSize: Int, inputShape s: [Int], outputHeight: Int, outputWidth: Int,
         alignCorners: Bool, halfPixelCenters: Bool) {
        self.input = input; self.output = output; self.elementSize = elementSize
        batches = s[0]; inputHeight = s[1]; inputWidth = s[2]; depth = s[3]
        self.outputHeight = outputHeight; self.outputWidth = outputWidth
        self.alignCorners = alignCorners; self.halfPixelCenters = halfPixelCenters
    }
    func eval(_ e: EvalContext) throws {
        QuantizedResizeNearestNeighbor.run(input: UnsafeRawPointer(e.raw(input)), output: e.raw(output), elementSize: elementSize,
                                           batches: batches, inputHeight: inputHeight, inputWidth: inputWidth, depth: depth,
                                           outputHeight: outputHeight, outputWidth: outputWidth,
                                           alignCorners: alignCorners, halfPixelCenters: halfPixelCenters)
    }
}

extension QuantizedResizeNearestNeighbor {
    /// Prepare: input NHWC, constant int32 size `[newHeight, newWidth]`.
    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0)
        guard x.rank == 4 else { throw c.invalid("input must have rank 4, has shape \(x.shape)") }
        guard let size = try c.constantInts(input: 1), size.count == 2, size[0] > 0, size[1] > 0, size[0] < 1 << 20, size[1] < 1 << 20 else {
            throw c.invalid("size must be a constant of two positive values")
        }
        guard let es = x.type.byteSize, x.shape[1] > 0, x.shape[2] > 0 else { throw c.invalid("unsupported input \(x.type) \(x.shape)") }
        try c.setOutput(0, shape: [x.shape[0], size[0], size[1], x.shape[3]], type: x.type)
        return ResizeNearestNeighborKernel(input: x.index, output: try c.output(0).index, elementSize: es, inputShape: x.shape,
                                           outputHeight: size[0], outputWidth: size[1],
                                           alignCorners: c.parameters.alignCorners, halfPixelCenters: c.parameters.halfPixelCenters)
    }
}
