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
    /// into the plane, or `out` after filling it. `columnSums` needs `width` entries.
    @inline(__always)
    func row(_ y: Int, out: UnsafeMutablePointer<UInt8>, columnSums: UnsafeMutablePointer<Int32>) -> UnsafePointer<UInt8> {
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
            let p = plane + y * stride
            for x in 0..<w {
                let here = 3 &* Int32(p[x])
                let left = Int32(p[x > 0 ? x &- 1 : 0])
                let right = Int32(p[x < w &- 1 ? x &+ 1 : w &- 1])
                out[2 &* x] = UInt8(truncatingIfNeeded: (here &+ left &+ 1) &>> 2)
                out[2 &* x &+ 1] = UInt8(truncatingIfNeeded: (here &+ right &+ 2) &>> 2)
            }
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
            for x in 0..<w {
                columnSums[x] = 3 &* Int32(p[x]) &+ Int32(q[x])
            }
            for x in 0..<w {
                let here = 3 &* columnSums[x]
                let left = columnSums[x > 0 ? x &- 1 : 0]
                let right = columnSums[x < w &- 1 ? x &+ 1 : w &- 1]
                out[2 &* x] = UInt8(truncatingIfNeeded: (here &+ left &+ 8) &>> 4)
                out[2 &* x &+ 1] = UInt8(truncatingIfNeeded: (here &+ right &+ 7) &>> 4)
            }
        }
        return UnsafePointer(out)
    }
}
