import Foundation

/// On-the-fly input quantization of the hybrid (float activations, int8 weights) kernels,
/// with the official runtime's arithmetic (`tensor_utils::SymmetricQuantizeFloats` and
/// `AsymmetricQuantizeFloats`, portable versions).
enum HybridQuantization {
    /// Symmetric: scale = max|x| / 127, q = round(x · 127 / max|x|) clamped to ±127
    /// (round half away from zero). All-zero input → q = 0, scale 1.
    static func symmetric(_ x: UnsafePointer<Float>, count: Int, into q: UnsafeMutablePointer<Int8>) -> Float {
        var lo = Float.greatestFiniteMagnitude, hi = -Float.greatestFiniteMagnitude
        for i in 0..<count { lo = min(lo, x[i]); hi = max(hi, x[i]) }
        if count == 0 { return 1 }
        let range = max(abs(lo), abs(hi))
        if range == 0 {
            for i in 0..<count { q[i] = 0 }
            return 1
        }
        let scale = range / 127
        let inverse = 127 / range
        for i in 0..<count {
            let v = (x[i] * inverse).rounded(.toNearestOrAwayFromZero)
            let iv = v.isNaN ? 0 : Int32(max(-127, min(127, v)))
            q[i] = Int8(iv)
        }
        return scale
    }

    /// Asymmetric over [min(0, min x), max(0, max x)] to int8 [-128, 127] with a nudged zero
    /// point (computed in double like the runtime); q = round(offset + x / scale) clamped.
    static func asymmetric(_ x: UnsafePointer<Float>, count: Int, into q: UnsafeMutablePointer<Int8>) -> (scale: Float, offset: Int32) {
        var lo = Float.greatestFiniteMagnitude, hi = -Float.greatestFiniteMagnitude
        for i in 0..<count { lo = min(lo, x[i]); hi = max(hi, x[i]) }
        if count == 0 { return (1, 0) }
        let rmin = Double(min(0, lo)), rmax = Double(max(0, hi))
        if rmin == rmax {
            for i in 0..<count { q[i] = 0 }
            return (1, 0)
        }
        let qmin = -128.0, qmax = 127.0
        let scaleD = (rmax - rmin) / (qmax - qmin)
        let zpFromMin = qmin - rmin / scaleD
        let zpFromMax = qmax - rmax / scaleD
        let errMin = abs(qmin) + abs(rmin / scaleD)
        let errMax = abs(qmax) + abs(rmax / scaleD)
        let zp = errMin < errMax ? zpFromMin : zpFromMax
        let nudged: Int32
        // An infinite input makes the range infinite and zp NaN: no meaningful offset, but no trap.
        if zp.isNaN { nudged = 0 } else if zp <= qmin { nudged = -128 } else if zp >= qmax { nudged = 127 } else {
            nudged = Int32(zp.rounded(.toNearestOrAwayFromZero))
        }
        let scale = Float(scaleD)
        let inverse = 1 / scale
        let offset = Float(nudged)
        for i in 0..<count {
            let v = (offset + x[i] * inverse).rounded(.toNearestOrAwayFromZero)
            q[i] = v.isNaN ? 0 : Int8(max(-128, min(127, v)))
        }
        return (scale, nudged)
    }
}
