import DetectorZlib
import DetectorPlatform
/// One decoded component plane and how libjpeg-turbo (fancy upsampling on) brings it to full
/// resolution (`jdsample.c`): triangle filters for 2x1 and 2x2 when the plane is wider than 2
/// samples, the 1x2 triangle filter always, and plain replication for everything else.
struct JPEGUpsampler {
    enum Method { case none, h2v1Fancy, h1v2Fancy, h2v2Fancy, replicate }

    let plane: UnsafePointer<UInt8>
    let stride: Int
    /// Real samples per row / rows of the component (padding excluded).
    let width: Int
    let height: Int
    let factorH: Int
    let factorV: Int
    let method: Method

    init(plane: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int, factorH: Int, factorV: Int) {
        self.plane = plane
        self.stride = stride
        self.width = width
        self.height = height
        self.factorH = factorH
        self.factorV = factorV
        switch (factorH, factorV) {
        case (1, 1): method = .none
        case (2, 1): method = width > 2 ? .h2v1Fancy : .replicate
        case (1, 2): method = .h1v2Fancy
        case (2, 2): method = width > 2 ? .h2v2Fancy : .replicate
        default: method = .replicate
        }
    }

    /// Samples an output row buffer must hold (`factorH * width`, at least the image width).
    var rowCapacity: Int { factorH * width }

    /// The full-resolution samples of output row `y` (0 ≤ y < image height): either a pointer
    /// into the plane, or `out` after filling it.
    @inline(__always)
    func row(_ y: Int, out: UnsafeMutablePointer<UInt8>) -> UnsafePointer<UInt8> {
        let w = width
        switch method {
        case .none:
            return plane + y * stride
        case .replicate:
            let source = plane + (y / factorV) * stride
            if factorH == 1 { return source }
            var o = 0
            for x in 0..<w {
                let v = source[x]
                for _ in 0..<factorH { out[o] = v; o &+= 1 }
            }
        case .h2v1Fancy:
            // width > 2 here; the first and last columns use edge replication.
            let p = plane + y * stride
            out[0] = p[0]
            out[1] = UInt8(truncatingIfNeeded: (3 &* Int32(p[0]) &+ Int32(p[1]) &+ 2) &>> 2)
            var x = 1
            // Eight input samples → sixteen outputs per step; even and odd outputs are paired
            // into 16-bit words (even in the low byte), which stores them interleaved.
            while x &+ 9 <= w {
                let here = 3 &* TierJPEG.widen(UnsafeRawPointer(p + x).loadUnaligned(as: SIMD8<UInt8>.self))
                let left = TierJPEG.widen(UnsafeRawPointer(p + (x &- 1)).loadUnaligned(as: SIMD8<UInt8>.self))
                let right = TierJPEG.widen(UnsafeRawPointer(p + (x &+ 1)).loadUnaligned(as: SIMD8<UInt8>.self))
                let even = (here &+ left &+ 1) &>> 2
                let odd = (here &+ right &+ 2) &>> 2
                UnsafeMutableRawPointer(out + 2 &* x).storeBytes(of: Self.interleave(even, odd), as: SIMD16<UInt8>.self)
                x &+= 8
            }
            while x < w &- 1 {
                let here = 3 &* Int32(p[x])
                out[2 &* x] = UInt8(truncatingIfNeeded: (here &+ Int32(p[x &- 1]) &+ 1) &>> 2)
                out[2 &* x &+ 1] = UInt8(truncatingIfNeeded: (here &+ Int32(p[x &+ 1]) &+ 2) &>> 2)
                x &+= 1
            }
            let last = 3 &* Int32(p[w &- 1])
            out[2 &* w &- 2] = UInt8(truncatingIfNeeded: (last &+ Int32(p[w &- 2]) &+ 1) &>> 2)
            out[2 &* w &- 1] = p[w &- 1]
        case .h1v2Fancy:
            let sy = y >> 1
            let ny = (y & 1) == 0 ? max(sy - 1, 0) : min(sy + 1, height - 1)
            let bias: Int32 = (y & 1) == 0 ? 1 : 2
            let p = plane + sy * stride, q = plane + ny * stride
            for x in 0..<w {
                out[x] = UInt8(truncatingIfNeeded: (3 &* Int32(p[x]) &+ Int32(q[x]) &+ bias) &>> 2)
            }
        case .h2v2Fancy:
            let sy = y >> 1
            let ny = (y & 1) == 0 ? max(sy - 1, 0) : min(sy + 1, height - 1)
            let p = plane + sy * stride, q = plane + ny * stride
            // width > 2 here; the tier kernel (16-bit lanes) replicates the edge columns.
            JPEGIDCT.kernels.upsampleH2V2Fancy(p, q, w, out)
        }
        return UnsafePointer(out)
    }

    /// The low bytes of `even` and `odd` interleaved (even first), lane by lane: the generic
    /// SIMD conversion stayed an outlined call.
    @inline(__always)
    static func interleave(_ even: SIMD8<Int32>, _ odd: SIMD8<Int32>) -> SIMD16<UInt8> {
        let e = TierJPEG.saturatedBytes(even), o = TierJPEG.saturatedBytes(odd)
        return SIMD16<UInt8>(e[0], o[0], e[1], o[1], e[2], o[2], e[3], o[3], e[4], o[4], e[5], o[5], e[6], o[6], e[7], o[7])
    }
}
