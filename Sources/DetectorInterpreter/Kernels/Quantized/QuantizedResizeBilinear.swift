import DetectorModelFile
import DetectorPlatform
/// Quantized RESIZE_BILINEAR as the runtime's reference kernels compute it: uint8 with the
/// float `ResizeBilinear` (weights in `Float`, result truncated toward zero), int8 with
/// `ResizeBilinearInteger` (10-bit fixed-point positions, 20-bit products rounded half away
/// from zero).
package enum QuantizedResizeBilinear {
    package struct Geometry: Sendable, Equatable {
        package var batches: Int, inputHeight: Int, inputWidth: Int, depth: Int, outputHeight: Int, outputWidth: Int
        package var alignCorners: Bool, halfPixelCenters: Bool
    }

    /// Float interpolation positions (TFLite `ComputeInterpolationValues`).
    static func floatPosition(_ v: Int, scale: Float, halfPixel: Bool, size: Int) -> (Float, Int, Int) {
        let s: Float = halfPixel ? (Float(v) + 0.5) * scale - 0.5 : Float(v) * scale
        let lower = max(Int(s.rounded(.down)), 0)
        let upper = min(Int(s.rounded(.up)), size - 1)
        return (s, lower, upper)
    }

    package static func scale(_ input: Int, _ output: Int, _ alignCorners: Bool) -> Float {
        (alignCorners && output > 1) ? Float(input - 1) / Float(output - 1) : Float(input) / Float(output)
    }

    package static func runUInt8(_ g: Geometry, input: UnsafePointer<UInt8>, output: UnsafeMutablePointer<UInt8>) {
        let hs = scale(g.inputHeight, g.outputHeight, g.alignCorners), ws = scale(g.inputWidth, g.outputWidth, g.alignCorners)
        var o = 0
        for b in 0..<g.batches { for y in 0..<g.outputHeight {
            let (iy, y0, y1) = floatPosition(y, scale: hs, halfPixel: g.halfPixelCenters, size: g.inputHeight)
            for x in 0..<g.outputWidth {
                let (ix, x0, x1) = floatPosition(x, scale: ws, halfPixel: g.halfPixelCenters, size: g.inputWidth)
                let dy = iy - Float(y0), dx = ix - Float(x0)
                let p00 = input + ((b * g.inputHeight + y0) * g.inputWidth + x0) * g.depth
                let p10 = input + ((b * g.inputHeight + y1) * g.inputWidth + x0) * g.depth
                let p01 = input + ((b * g.inputHeight + y0) * g.inputWidth + x1) * g.depth
                let p11 = input + ((b * g.inputHeight + y1) * g.inputWidth + x1) * g.depth
                for c in 0..<g.depth {
                    var v: Float = Float(p00[c]) * (1 - dy) * (1 - dx)
                    v += Float(p10[c]) * dy * (1 - dx)
                    v += Float(p01[c]) * (1 - dy) * dx
                    v += Float(p11[c]) * dy * dx
                    output[o] = UInt8(max(0, min(255, Int(v))))
                    o += 1
                }
            }
        } }
    }

    static func integerPosition(_ v: Int, scale10: Int, halfPixel: Bool, size: Int) -> (Int, Int, Int) {
        let s = halfPixel ? v * scale10 + scale10 / 2 - (1 << 9) : v * scale10
        let lower = max(s / (1 << 10), 0)
        let upper = min((s + (1 << 10) - 1) / (1 << 10), size - 1)
        return (s, lower, upper)
    }

    package static func runInt8(_ g: Geometry, input: UnsafePointer<Int8>, output: UnsafeMutablePointer<Int8>) {
        func scale10(_ i: Int, _ o: Int) -> Int {
            (g.alignCorners && o > 1) ? ((1 << 10) * (i - 1) + (o - 1) / 2) / (o - 1) : ((1 << 10) * i + o / 2) / o
        }
        let hs = scale10(g.inputHeight, g.outputHeight), ws = scale10(g.inputWidth, g.outputWidth)
        var o = 0
        for b in 0..<g.batches { for y in 0..<g.outputHeight {
            let (iy, y0, y1) = integerPosition(y, scale10: hs, halfPixel: g.halfPixelCenters, size: g.inputHeight)
            for x in 0..<g.outputWidth {
                let (ix, x0, x1) = integerPosition(x, scale10: ws, halfPixel: g.halfPixelCenters, size: g.inputWidth)
                let wy1 = Int64(iy - (1 << 10) * y0), wy0 = Int64(1 << 10) - wy1
                let wx1 = Int64(ix - (1 << 10) * x0), wx0 = Int64(1 << 10) - wx1
                let p00 = input + ((b * g.inputHeight + y0) * g.inputWidth + x0) * g.depth
                let p10 = input + ((b * g.inputHeight + y1) * g.inputWidth + x0) * g.depth
                let p01 = input + ((b * g.inputHeight + y0) * g.inputWidth + x1) * g.depth
                let p11 = input + ((b * g.inputHeight + y1) * g.inputWidth + x1) * g.depth
                for c in 0..<g.depth {
                    let sum = Int64(p00[c]) * wy0 * wx0 + Int64(p10[c]) * wy1 * wx0 + Int64(p01[c]) * wy0 * wx1 + Int64(p11[c]) * wy1 * wx1
                    let round: Int64 = sum > 0 ? (1 << 19) : -(1 << 19)
                    output[o] = Int8(truncatingIfNeeded: (sum + round) / (1 << 20))
                    o += 1
                }
            }
        } }
    }
}

/// Interpreter kernel for uint8/int8 RESIZE_BILINEAR.
final class QuantizedResizeBilinearKernel: PreparedKernel {
    let geometry: QuantizedResizeBilinear.Geometry
    let input: Int, output: Int, isInt8: Bool
    init(geometry: QuantizedResizeBilinear.Geometry, input: Int, output: Int, isInt8: Bool) {
        self.geometry = geometry; self.input = input; self.output = output; self.isInt8 = isInt8
    }
    func eval(_ e: EvalContext) throws {
        if isInt8 {
            QuantizedResizeBilinear.runInt8(geometry, input: e.pointer(input, as: Int8.self), output: e.pointer(output, as: Int8.self))
        } else {
            QuantizedResizeBilinear.runUInt8(geometry, input: e.pointer(input, as: UInt8.self), output: e.pointer(output, as: UInt8.self))
        }
    }
}

extension QuantizedResizeBilinear {
    @Sendable package static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, rank: 4, types: [.uint8, .int8])
        guard let size = try c.constantInts(input: 1), size.count == 2, size[0] > 0, size[1] > 0, size[0] < 1 << 16, size[1] < 1 << 16 else {
            throw c.invalid("size must be a constant of two positive values below 65536")
        }
        guard x.shape[1] > 0, x.shape[2] > 0, x.shape[1] < 1 << 16, x.shape[2] < 1 << 16 else { throw c.invalid("unsupported input shape \(x.shape)") }
        try c.setOutput(0, shape: [x.shape[0], size[0], size[1], x.shape[3]], type: x.type)
        let g = Geometry(batches: x.shape[0], inputHeight: x.shape[1], inputWidth: x.shape[2], depth: x.shape[3],
                         outputHeight: size[0], outputWidth: size[1],
                         alignCorners: c.parameters.alignCorners, halfPixelCenters: c.parameters.halfPixelCenters)
        return QuantizedResizeBilinearKernel(geometry: g, input: x.index, output: try c.output(0).index, isInt8: x.type == .int8)
    }
}
