import DetectorModelFile
import DetectorPlatform

/// `LaneMath`'s lanes in this module.
typealias MathLanes = SIMD8<Float>

/// The interpreter's element-wise float math at 8 lanes, for the untiered element-wise ops
/// (LOGISTIC, the SiLU after float convolutions, Winograd's epilogue): `exp`, `logistic`,
/// `expOfNegated` and `silu` are `LaneMath`'s (written once for any lane count and shared
/// with the tier kernels' `TierMath`); `fastLogistic`, `logisticProduct` and the loops are
/// this op family's own.
///
/// ```swift
/// FloatVectorMath.map(src, to: dst, range: 0..<n, FloatVectorMath.logistic)
/// ```
enum FloatVectorMath {
    @inline(__always)
    static func exp(_ x: SIMD8<Float>) -> SIMD8<Float> { LaneMath.exp(x) }

    @inline(__always)
    static func logistic(_ x: SIMD8<Float>) -> SIMD8<Float> { LaneMath.logistic(x) }

    @inline(__always)
    static func expOfNegated(_ a: SIMD8<Float>) -> SIMD8<Float> { LaneMath.expOfNegated(a) }

    @inline(__always)
    static func silu(_ x: SIMD8<Float>) -> SIMD8<Float> { LaneMath.silu(x) }

    /// `LaneMath.fastLogistic`: within 4e-7 relative of `logistic`, not bit-faithful to it.
    @inline(__always)
    static func fastLogistic(_ x: SIMD8<Float>) -> SIMD8<Float> { LaneMath.fastLogistic(x) }

    /// x · logistic(x) with LOGISTIC's and MUL's roundings (`logistic`, then the product).
    @inline(__always)
    static func logisticProduct(_ x: SIMD8<Float>) -> SIMD8<Float> {
        x * logistic(x)
    }

    /// Replaces `count` floats at `p` by their `silu` (the faithful form, LOGISTIC's and MUL's
    /// roundings, is the kernel table's `HybridKernels.faithfulSiLU`).
    static func siluInPlace(_ p: UnsafeMutablePointer<Float>, count: Int) {
        map(UnsafePointer(p), to: p, range: 0..<count, silu)
    }

    /// `dst[i] = f(src[i])` over `range`, 8 lanes at a time; the last few values go through
    /// `tail` (default: `f` on one lane, so every value gets the same arithmetic). `src` may
    /// equal `dst`.
    @inline(__always)
    static func map(_ src: UnsafePointer<Float>, to dst: UnsafeMutablePointer<Float>, range: Range<Int>,
                    _ f: (SIMD8<Float>) -> SIMD8<Float>, tail: ((Float) -> Float)? = nil) {
        var i = range.lowerBound
        while i &+ 8 <= range.upperBound {
            UnsafeMutableRawPointer(dst + i).storeBytes(of: f(UnsafeRawPointer(src + i).loadUnaligned(as: SIMD8<Float>.self)),
                                                        as: SIMD8<Float>.self)
            i &+= 8
        }
        while i < range.upperBound { dst[i] = tail.map { $0(src[i]) } ?? f(SIMD8(repeating: src[i]))[0]; i &+= 1 }
    }
}
