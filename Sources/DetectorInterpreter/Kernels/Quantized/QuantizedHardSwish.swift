import DetectorModelFile
import DetectorPlatform
/// Prepared quantized HARD_SWISH: 16-bit fixed-point multipliers as the runtime derives them
/// (input on a 2^7 finer "hires" scale, a "relu-ish" multiplier mapping [-3, 3] to int16 range).
package struct QuantizedHardSwishParams: Sendable, Equatable {
    package var inputZeroPoint: Int16, outputZeroPoint: Int16
    package var outputMultiplier: Int16, outputExponent: Int32
    package var reluishMultiplier: Int16, reluishExponent: Int32

    package init(input: QuantizationParams, output: QuantizationParams) {
        inputZeroPoint = Int16(clamping: input.zeroPoint)
        outputZeroPoint = Int16(clamping: output.zeroPoint)
        let hiresInputScale: Float = (1.0 / 128.0) * input.scale
        let reluishScale: Float = 3.0 / 32768.0
        let outputReal: Float = hiresInputScale / output.scale
        let reluishReal: Float = hiresInputScale / reluishScale
        let o = QuantizedMultiplier(Double(outputReal))
        let r = QuantizedMultiplier(Double(reluishReal))
        outputMultiplier = Self.downscale(o.multiplier)
        outputExponent = o.shift
        reluishMultiplier = Self.downscale(r.multiplier)
        reluishExponent = r.shift
    }

    /// TFLite `DownScaleInt32ToInt16Multiplier`.
    static func downscale(_ m: Int32) -> Int16 {
        if m >= Int32.max - (1 << 15) { return Int16.max }
        return Int16(truncatingIfNeeded: (m + (1 << 15)) >> 16)
    }
}

/// Quantized HARD_SWISH, the runtime's reference int16 fixed-point algorithm.
package enum QuantizedHardSwish {
    @inline(__always) static func srdhm16(_ a: Int16, _ b: Int16) -> Int16 {
        if a == b && a == Int16.min { return Int16.max }
        let ab = Int32(a) * Int32(b)
        let nudge: Int32 = ab >= 0 ? (1 << 14) : (1 - (1 << 14))
        return Int16(truncatingIfNeeded: (ab + nudge) / (1 << 15))
    }
    @inline(__always) static func sdhm16(_ a: Int16, _ b: Int16) -> Int16 {
        if a == b && a == Int16.min { return Int16.max }
        return Int16(truncatingIfNeeded: (Int32(a) * Int32(b)) / (1 << 15))
    }
    @inline(__always) static func saturatingLeftShift(_ v: Int16, _ amount: Int32) -> Int16 {
        let a = min(max(amount, 0), 16)
        return Int16(clamping: Int32(v) << a)
    }
    @inline(__always) static func roundingDivide16(_ x: Int16, _ exponent: Int32) -> Int16 {
        Int16(truncatingIfNeeded: FixedPoint.roundingDivideByPOT(Int32(x), exponent))
    }

    package static func run<T: QuantizedElement>(_ p: QuantizedHardSwishParams, input: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>, count: Int) {
        for i in 0..<count {
            let inputValue = Int16(truncatingIfNeeded: Int32(input[i]) - Int32(p.inputZeroPoint))
            let hires = Int16(truncatingIfNeeded: Int32(inputValue) << 7)
            let preshiftOutput = srdhm16(hires, p.outputMultiplier)
            var reluish = hires
            if p.reluishExponent > 0 { reluish = saturatingLeftShift(reluish, p.reluishExponent - 1) }
            reluish = srdhm16(reluish, p.reluishMultiplier)
            if p.reluishExponent > 0 { reluish = saturatingLeftShift(reluish, 1) }
            if p.reluishExponent < 0 { reluish = roundingDivide16(reluish, -p.reluishExponent) }
            reluish = Int16(truncatingIfNeeded: (Int32(reluish) + (1 << 15)) >> 1)
            let preshift = sdhm16(reluish, preshiftOutput)
            var v = Int32(roundingDivide16(preshift, -p.outputExponent))
            v += Int32(p.outputZeroPoint)
            output[i] = T.clamped(v, T.quantizedMin, T.quantizedMax)
        }
    }

    @Sendable package static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        try QuantizedUnaryKernel.prepare(c, .hardSwish)
    }
}
