/// The fast integer GEMM of the quantized convolutions, computed with `Float` SIMD arithmetic
/// that is **exact**: operands are zero-point-shifted 8-bit values (|a|, |b| ≤ 255, so every
/// product is an integer below 2^16) and partial sums are flushed to `Int32` every
/// `exactBlock` = 64 steps, so no partial sum exceeds 64 · 255² < 2^22 and every `Float`
/// operation is exact; the flush converts with the exact "magic number" trick (valid below 2^22).
/// Results are therefore identical to the integer reference (`IntegerGemm.reference`).
///
/// Layout: A is `[m][k]` row-major (im2col patches); B is packed once per layer into panels of
/// 8 output channels, `[n / 8][k][8]` (zero-padded), by `packB`.
public enum ExactFloatGemm {
    /// Largest number of products summed in `Float` before flushing to `Int32`.
    public static let exactBlock = 64

    /// Exact `Float` → `Int32` for integral values with |v| ≤ 2^22: adding 1.5·2^23 puts the value
    /// in the binade where the ulp is 1, so the low mantissa bits are the integer.
    @inline(__always)
    static func exactInt32(_ v: SIMD8<Float>) -> SIMD8<Int32> {
        unsafeBitCast(v + SIMD8<Float>(repeating: 12582912.0), to: SIMD8<Int32>.self) &- SIMD8<Int32>(repeating: 0x4B40_0000)
    }

    /// Scalar form of `exactInt32(_:)`.
    @inline(__always)
    static func exactInt32(_ v: Float) -> Int32 {
        Int32(bitPattern: (v + 12582912.0).bitPattern) &- 0x4B40_0000
    }
    public static let panelWidth = 8

    /// Packs `[n][k]` weights (already zero-point shifted) into `[ceil(n/8)][k][8]` panels.
    public static func packB(_ b: [Int16], n: Int, k: Int) -> [Float] {
        let panels = (n + panelWidth - 1) / panelWidth
        var out = [Float](repeating: 0, count: panels * k * panelWidth)
        for j in 0..<n {
            let p = j / panelWidth, lane = j % panelWidth
            for q in 0..<k { out[(p * k + q) * panelWidth + lane] = Float(b[j * k + q]) }
        }
        return out
    }

    /// `c[i * n + j] = Σ_q a[i][q] * b[j][q]` for `i < m`, `j < n` (c has row stride n).
    /// 6×8 register tile (12 accumulators of 4 lanes), rows beyond `m` read row 0 and are not stored.
    public static func multiply(a: UnsafePointer<Float>, packedB: UnsafePointer<Float>, m: Int, n: Int, k: Int,
                                c: UnsafeMutablePointer<Int32>) {
        let panels = (n + panelWidth - 1) / panelWidth
        var i = 0
        while i < m {
            let rows = min(6, m - i)
            let a0 = a + i * k
            let a1 = rows > 1 ? a0 + k : a0, a2 = rows > 2 ? a0 + 2 * k : a0
            let a3 = rows > 3 ? a0 + 3 * k : a0, a4 = rows > 4 ? a0 + 4 * k : a0, a5 = rows > 5 ? a0 + 5 * k : a0
            for p in 0..<panels {
                let bp = packedB + p * k * panelWidth
                var t0 = SIMD8<Int32>(), t1 = SIMD8<Int32>(), t2 = SIMD8<Int32>()
                var t3 = SIMD8<Int32>(), t4 = SIMD8<Int32>(), t5 = SIMD8<Int32>()
                var q0 = 0
                while q0 < k {
                    let q1 = min(k, q0 + exactBlock)
                    var s0 = SIMD8<Float>(), s1 = SIMD8<Float>(), s2 = SIMD8<Float>()
                    var s3 = SIMD8<Float>(), s4 = SIMD8<Float>(), s5 = SIMD8<Float>()
                    var q = q0
                    while q < q1 {
                        let w = UnsafeRawPointer(bp + q * panelWidth).loadUnaligned(as: SIMD8<Float>.self)
                        s0 += w * a0[q]
                        s1 += w * a1[q]
                        s2 += w * a2[q]
                        s3 += w * a3[q]
                        s4 += w * a4[q]
                        s5 += w * a5[q]
                        q += 1
                    }
                    t0 &+= exactInt32(s0); t1 &+= exactInt32(s1); t2 &+= exactInt32(s2)
                    t3 &+= exactInt32(s3); t4 &+= exactInt32(s4); t5 &+= exactInt32(s5)
                    q0 = q1
                }
                let j0 = p * panelWidth
                let width = min(panelWidth, n - j0)
                let base = c + i * n + j0
                for l in 0..<width {
                    base[l] = t0[l]
                    if rows > 1 { base[n + l] = t1[l] }
                    if rows > 2 { base[2 * n + l] = t2[l] }
                    if rows > 3 { base[3 * n + l] = t3[l] }
                    if rows > 4 { base[4 * n + l] = t4[l] }
                    if rows > 5 { base[5 * n + l] = t5[l] }
                }
            }
            i += 6
        }
    }
}
