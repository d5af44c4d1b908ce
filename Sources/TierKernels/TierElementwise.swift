/// The element-wise float functions of LOGISTIC and SiLU at this tier's lanes (`MathLanes`),
/// `dst[i] = f(src[i])` for `count` values (`src` may equal `dst`), four 16-lane chains per
/// step and the last values through masked loads and stores. Each value gets `LaneMath`'s
/// arithmetic, which does not depend on the lane count or the position, so every tier and
/// every split over threads gives the same bits as DetectorInterpreter's 8-lane
/// `FloatVectorMath` (the oracle in `ElementwiseTierTests`).
///
/// ```swift
/// TierElementwise.logistic(x, y, count: n)   // y[i] = LOGISTIC(x[i]), the reference's formula
/// ```
package enum TierElementwise {
    /// LOGISTIC with the reference kernel's formula and cut-offs (`LaneMath.logistic`).
    package static func logistic(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, count: Int) {
        map(src, dst, count) { LaneMath.logistic($0) }
    }

    /// LOGISTIC within 4e-7 relative (`LaneMath.fastLogistic`), for graphs that need no
    /// reference rounding.
    package static func fastLogistic(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, count: Int) {
        map(src, dst, count) { LaneMath.fastLogistic($0) }
    }

    /// x · logistic(x) with LOGISTIC's and MUL's roundings.
    package static func logisticProduct(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, count: Int) {
        map(src, dst, count) { $0 * LaneMath.logistic($0) }
    }

    /// SiLU within 4e-7 relative (`LaneMath.silu`).
    package static func silu(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, count: Int) {
        map(src, dst, count) { LaneMath.silu($0) }
    }

    @inline(__always)
    private static func map(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, _ count: Int,
                            _ f: (SIMD16<Float>) -> SIMD16<Float>) {
        var i = 0
        while i &+ 64 <= count {
            let a = TierMath.load(src + i, count: 16), b = TierMath.load(src + (i &+ 16), count: 16)
            let c = TierMath.load(src + (i &+ 32), count: 16), d = TierMath.load(src + (i &+ 48), count: 16)
            let ya = f(a), yb = f(b), yc = f(c), yd = f(d)
            TierMath.store(ya, to: dst + i, count: 16); TierMath.store(yb, to: dst + (i &+ 16), count: 16)
            TierMath.store(yc, to: dst + (i &+ 32), count: 16); TierMath.store(yd, to: dst + (i &+ 48), count: 16)
            i &+= 64
        }
        while i < count {
            let width = min(16, count &- i)
            TierMath.store(f(TierMath.load(src + i, count: width)), to: dst + i, count: width)
            i &+= 16
        }
    }
}
