import DetectorModelFile
import DetectorPlatform
/// Quantized AVERAGE_POOL_2D and MAX_POOL_2D (TFLite reference pooling): windows clipped to
/// the input; the average rounds half away from zero (`(sum ± count/2) / count`), then the
/// fused activation clamp. `average` and `max` are the reference loops (the oracles of
/// `averageRows` and `maxVectorized`, which the kernel runs).
package enum QuantizedPooling {
    package static func average<T: QuantizedElement>(_ g: WindowGeometry, depth: Int, activationMin: Int32, activationMax: Int32,
                                                    input: UnsafePointer<T>, output: UnsafeMutablePointer<T>) {
        window(g, depth: depth) { b, oy, ox, y0, y1, x0, x1 in
            let count = Int32((y1 - y0) * (x1 - x0))
            for c in 0..<depth {
                var acc: Int32 = 0
                for iy in y0..<y1 { for ix in x0..<x1 {
                    acc = acc &+ Int32(input[((b * g.inputHeight + iy) * g.inputWidth + ix) * depth + c])
                } }
                let avg = count == 0 ? 0 : (acc > 0 ? (acc &+ count / 2) / count : (acc &- count / 2) / count)
                output[((b * g.outputHeight + oy) * g.outputWidth + ox) * depth + c] = T.clamped(avg, activationMin, activationMax)
            }
        }
    }

    /// AVERAGE_POOL_2D with `average`'s arithmetic, summing whole window pixels (all channels,
    /// contiguous, vectorised) into Int32 accumulators instead of walking each channel down the
    /// window (a global 7 × 7 × 1280 pool took 0.3 ms, an eighth of automl's invoke). Integer
    /// sums in any order give the same value, so the result is identical; `average` is the oracle.
    package static func averageRows<T: QuantizedElement>(_ g: WindowGeometry, depth: Int, activationMin: Int32, activationMax: Int32,
                                                        input: UnsafePointer<T>, output: UnsafeMutablePointer<T>) {
        guard depth > 0 else { return }
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: depth) { sums in
            guard let acc = sums.baseAddress else { return }
            window(g, depth: depth) { b, oy, ox, y0, y1, x0, x1 in
                let count = Int32((y1 - y0) * (x1 - x0))
                acc.initialize(repeating: 0, count: depth)
                for iy in y0..<y1 {
                    var src = input + ((b * g.inputHeight + iy) * g.inputWidth + x0) * depth
                    for _ in x0..<x1 {
                        for c in 0..<depth { acc[c] = acc[c] &+ Int32(src[c]) }
                        src += depth
                    }
                }
                let dst = output + ((b * g.outputHeight + oy) * g.outputWidth + ox) * depth
                for c in 0..<depth {
                    let sum = acc[c]
                    let avg = count == 0 ? 0 : (sum > 0 ? (sum &+ count / 2) / count : (sum &- count / 2) / count)
                    dst[c] = T.clamped(avg, activationMin, activationMax)
                }
            }
        }
    }

    /// Reference MAX_POOL_2D: per channel, the maximum over the clipped window (starting from the
    /// type's minimum), then the activation clamp. The oracle for `maxVectorized`.
    package static func max<T: QuantizedElement>(_ g: WindowGeometry, depth: Int, activationMin: Int32, activationMax: Int32,
                                                input: UnsafePointer<T>, output: UnsafeMutablePointer<T>) {
        window(g, depth: depth) { b, oy, ox, y0, y1, x0, x1 in
            let dst = output + ((b * g.outputHeight + oy) * g.outputWidth + ox) * depth
            for c in 0..<depth { dst[c] = T(truncatingIfNeeded: T.quantizedMin) }
            for iy in y0..<y1 { for ix in x0..<x1 {
                let src = input + ((b * g.inputHeight + iy) * g.inputWidth + ix) * depth
                for c in 0..<depth where src[c] > dst[c] { dst[c] = src[c] }
            } }
            for c in 0..<depth { dst[c] = T.clamped(Int32(dst[c]), activationMin, activationMax) }
        }
    }

    /// MAX_POOL_2D with the same arithmetic as `max`, 16 channels at a time (max and clamp are
    /// lane-wise, so the result is identical); the last `depth % 16` channels run the scalar loop.
    /// Requires `T.quantizedMin <= activationMin <= activationMax <= T.quantizedMax` (see
    /// `clampFitsType`); other bounds must use `max`.
    package static func maxVectorized<T: QuantizedElement & SIMDScalar>(
        _ g: WindowGeometry, depth: Int, activationMin: Int32, activationMax: Int32,
        input: UnsafePointer<T>, output: UnsafeMutablePointer<T>
    ) {
        let lo = T(truncatingIfNeeded: activationMin), hi = T(truncatingIfNeeded: activationMax)
        let loVector = SIMD16<T>(repeating: lo), hiVector = SIMD16<T>(repeating: hi)
        let vectorDepth = depth & ~15
        window(g, depth: depth) { b, oy, ox, y0, y1, x0, x1 in
            let dst = output + ((b * g.outputHeight + oy) * g.outputWidth + ox) * depth
            var c = 0
            while c < vectorDepth {
                var m = SIMD16<T>(repeating: T(truncatingIfNeeded: T.quantizedMin))
                for iy in y0..<y1 { for ix in x0..<x1 {
                    let src = input + ((b * g.inputHeight + iy) * g.inputWidth + ix) * depth + c
                    m = pointwiseMax(m, UnsafeRawPointer(src).loadUnaligned(as: SIMD16<T>.self))
                } }
                UnsafeMutableRawPointer(dst + c).storeBytes(of: pointwiseMin(pointwiseMax(m, loVector), hiVector), as: SIMD16<T>.self)
                c += 16
            }
            for c in vectorDepth..<depth {
                var m = T(truncatingIfNeeded: T.quantizedMin)
                for iy in y0..<y1 { for ix in x0..<x1 {
                    let v = input[((b * g.inputHeight + iy) * g.inputWidth + ix) * depth + c]
                    if v > m { m = v }
                } }
                dst[c] = T.clamped(Int32(m), activationMin, activationMax)
            }
        }
    }

    /// Whether an activation clamp is an ordered range inside `T`'s values (always so for
    /// zero points inside the type's range), so a lane-wise min/max reproduces `T.clamped`.
    static func clampFitsType<T: QuantizedElement>(_: T.Type, _ activationMin: Int32, _ activationMax: Int32) -> Bool {
        T.quantizedMin <= activationMin && activationMin <= activationMax && activationMax <= T.quantizedMax
    }

    @inline(__always)
    static func window(_ g: WindowGeometry, depth: Int, _ body: (Int, Int, Int, Int, Int, Int, Int) -> Void) {
        for b in 0..<g.batches { for oy in 0..<g.outputHeight { for ox in 0..<g.outputWidth {
            let oy0 = oy * g.strideHeight - g.padTop, ox0 = ox * g.strideWidth - g.padLeft
            let y0 = Swift.max(0, oy0), y1 = Swift.min(g.inputHeight, oy0 + g.filterHeight)
            let x0 = Swift.max(0, ox0), x1 = Swift.min(g.inputWidth, ox0 + g.filterWidth)
            body(b, oy, ox, y0, Swift.max(y0, y1), x0, Swift.max(x0, x1))
        } } }
    }
}

/// Interpreter kernel for uint8/int8 AVERAGE_POOL_2D / MAX_POOL_2D.
final class QuantizedPoolingKernel: PreparedKernel {
    /// Element type chosen at prepare (int8 or uint8); eval dispatches to code specialized for it.
    let int8: Bool
    let geometry: WindowGeometry, depth: Int, isMax: Bool
    let activationMin: Int32, activationMax: Int32
    let input: Int, output: Int
    init(int8: Bool, geometry: WindowGeometry, depth: Int, isMax: Bool, activationMin: Int32, activationMax: Int32, input: Int, output: Int) { self.int8 = int8;
        self.geometry = geometry; self.depth = depth; self.isMax = isMax
        self.activationMin = activationMin; self.activationMax = activationMax
        self.input = input; self.output = output
    }
    func eval(_ e: EvalContext) throws {
        if int8 { try evalTyped(e, Int8.self) } else { try evalTyped(e, UInt8.self) }
    }

    @inline(__always)
    private func evalTyped<T: QuantizedElement & SIMDScalar>(_ e: EvalContext, _: T.Type) throws {
        let x = e.pointer(input, as: T.self), y = e.pointer(output, as: T.self)
        if isMax && !QuantizedPooling.clampFitsType(T.self, activationMin, activationMax) {
            QuantizedPooling.max(geometry, depth: depth, activationMin: activationMin, activationMax: activationMax, input: x, output: y)
        } else if isMax {
            QuantizedPooling.maxVectorized(geometry, depth: depth, activationMin: activationMin, activationMax: activationMax, input: x, output: y)
        } else {
            QuantizedPooling.averageRows(geometry, depth: depth, activationMin: activationMin, activationMax: activationMax, input: x, output: y)
        }
    }
}

extension QuantizedPooling {
    package static func prepare(_ c: PrepareContext, isMax: Bool) throws -> any PreparedKernel {
        let x = try c.input(0, rank: 4, types: [.uint8, .int8])
        let p = c.parameters
        guard let g = WindowGeometry(batches: x.shape[0], inputHeight: x.shape[1], inputWidth: x.shape[2],
                                     filterHeight: p.filterHeight, filterWidth: p.filterWidth,
                                     strideHeight: p.strideHeight, strideWidth: p.strideWidth,
                                     samePadding: p.padding == .same) else {
            throw c.invalid("invalid pooling geometry: input \(x.shape), filter \(p.filterHeight)x\(p.filterWidth)")
        }
        try c.setOutput(0, shape: [g.batches, g.outputHeight, g.outputWidth, x.shape[3]], type: x.type)
        let out = try c.output(0)
        let qo = try c.quantization(of: out, "output")
        let act = try c.quantizedActivation()
        func build<A: QuantizedElement>(_: A.Type) -> any PreparedKernel {
            let r = quantizedActivationRange(act, output: qo, as: A.self)
            return QuantizedPoolingKernel(int8: A.self == Int8.self, geometry: g, depth: x.shape[3], isMax: isMax, activationMin: r.min, activationMax: r.max,
                                             input: x.index, output: out.index)
        }
        return try withQuantizedType(x.type, c) { build($0) }
    }
    @Sendable static func prepareAverage(_ c: PrepareContext) throws -> any PreparedKernel { try prepare(c, isMax: false) }
    @Sendable static func prepareMax(_ c: PrepareContext) throws -> any PreparedKernel { try prepare(c, isMax: true) }
}
