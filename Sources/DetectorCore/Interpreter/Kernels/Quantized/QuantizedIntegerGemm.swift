import Dispatch

/// The integer matrix-multiply core of the quantized CONV_2D / FULLY_CONNECTED kernels.
///
/// Computes `C[m][n] = Σ_k A[m][k] · B[n][k]` (both operands row-major with `k` contiguous,
/// i.e. B is the TFLite weight layout `[outputChannels][K]`) in `Int32` with wrapping sums,
/// which is exact and order-independent, so every path gives identical results.
/// Operands are `Int16` values that already have their zero points subtracted
/// (`q - zeroPoint` always fits in 9 bits for 8-bit tensors).
public enum IntegerGemm {
    /// Plain reference implementation (the oracle for the fast path).
    public static func reference(a: UnsafeBufferPointer<Int16>, b: UnsafeBufferPointer<Int16>,
                                 m: Int, n: Int, k: Int, c: UnsafeMutableBufferPointer<Int32>) {
        for i in 0..<m {
            for j in 0..<n {
                var acc: Int32 = 0
                for p in 0..<k { acc = acc &+ Int32(a[i * k + p]) &* Int32(b[j * k + p]) }
                c[i * n + j] = acc
            }
        }
    }

    /// Blocked implementation: 4 rows of A against 2 rows of B per step, SIMD over `k`.
    /// Same results as `reference` bit for bit.
    public static func multiply(a: UnsafePointer<Int16>, b: UnsafePointer<Int16>,
                                m: Int, n: Int, k: Int, c: UnsafeMutablePointer<Int32>) {
        var i = 0
        while i + 4 <= m {
            let a0 = a + i * k, a1 = a0 + k, a2 = a1 + k, a3 = a2 + k
            var j = 0
            while j + 2 <= n {
                let b0 = b + j * k, b1 = b0 + k
                var s00 = SIMD8<Int32>(), s01 = SIMD8<Int32>(), s10 = SIMD8<Int32>(), s11 = SIMD8<Int32>()
                var s20 = SIMD8<Int32>(), s21 = SIMD8<Int32>(), s30 = SIMD8<Int32>(), s31 = SIMD8<Int32>()
                var p = 0
                while p + 8 <= k {
                    let w0 = load8(b0 + p), w1 = load8(b1 + p)
                    let x0 = load8(a0 + p), x1 = load8(a1 + p), x2 = load8(a2 + p), x3 = load8(a3 + p)
                    s00 &+= x0 &* w0; s01 &+= x0 &* w1
                    s10 &+= x1 &* w0; s11 &+= x1 &* w1
                    s20 &+= x2 &* w0; s21 &+= x2 &* w1
                    s30 &+= x3 &* w0; s31 &+= x3 &* w1
                    p += 8
                }
                var r = SIMD8<Int32>(s00.wrappedSum(), s01.wrappedSum(), s10.wrappedSum(), s11.wrappedSum(),
                                     s20.wrappedSum(), s21.wrappedSum(), s30.wrappedSum(), s31.wrappedSum())
                while p < k {
                    let w0 = Int32(b0[p]), w1 = Int32(b1[p])
                    let x0 = Int32(a0[p]), x1 = Int32(a1[p]), x2 = Int32(a2[p]), x3 = Int32(a3[p])
                    r[0] = r[0] &+ x0 &* w0; r[1] = r[1] &+ x0 &* w1
                    r[2] = r[2] &+ x1 &* w0; r[3] = r[3] &+ x1 &* w1
                    r[4] = r[4] &+ x2 &* w0; r[5] = r[5] &+ x2 &* w1
                    r[6] = r[6] &+ x3 &* w0; r[7] = r[7] &+ x3 &* w1
                    p += 1
                }
                c[i * n + j] = r[0]; c[i * n + j + 1] = r[1]
                c[(i + 1) * n + j] = r[2]; c[(i + 1) * n + j + 1] = r[3]
                c[(i + 2) * n + j] = r[4]; c[(i + 2) * n + j + 1] = r[5]
                c[(i + 3) * n + j] = r[6]; c[(i + 3) * n + j + 1] = r[7]
                j += 2
            }
            while j < n {
                for r in 0..<4 { c[(i + r) * n + j] = dot(a + (i + r) * k, b + j * k, k) }
                j += 1
            }
            i += 4
        }
        while i < m {
            for j in 0..<n { c[i * n + j] = dot(a + i * k, b + j * k, k) }
            i += 1
        }
    }

    @inline(__always)
    static func load8(_ p: UnsafePointer<Int16>) -> SIMD8<Int32> {
        SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Int16>.self))
    }

    /// Σ x[p]·y[p] in wrapping Int32.
    @inline(__always)
    public static func dot(_ x: UnsafePointer<Int16>, _ y: UnsafePointer<Int16>, _ k: Int) -> Int32 {
        var s = SIMD8<Int32>()
        var p = 0
        while p + 8 <= k { s &+= load8(x + p) &* load8(y + p); p += 8 }
        var acc = s.wrappedSum()
        while p < k { acc = acc &+ Int32(x[p]) &* Int32(y[p]); p += 1 }
        return acc
    }
}
