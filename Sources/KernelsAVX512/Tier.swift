import _Builtin_intrinsics.intel

/// The AVX-512 tier (x86-64-v4: AVX-512 F/BW/CD/DQ/VL, plus VNNI): this module is compiled
/// with `-march=x86-64-v4 -mavx512vnni`, and holds the shared wide-tier kernels of
/// `Sources/TierKernels/` at that instruction set. `SIMD16<Float>` is one zmm register here.
package enum Tier {
    /// The name `InstructionSetTier` and `OBJDETECT_ISA` use for this tier.
    package static let name = "avx512"
    /// Rows of the float GEMM register tile: 8 × 16 columns = 8 zmm accumulators.
    static let floatTileRows = 8
    /// Rows of the integer GEMM register tile (× 16 channels).
    static let integerTileRows = 8

    /// `acc + (pair.lo · w[2j] + pair.hi · w[2j+1])` per channel j: one `vpdpwssd` (VNNI).
    @inline(__always)
    static func addPairProducts(_ acc: SIMD16<Int32>, _ pair: Int32, _ w: SIMD32<Int16>) -> SIMD16<Int32> {
        unsafeBitCast(_mm512_dpwssd_epi32(unsafeBitCast(acc, to: __m512i.self), _mm512_set1_epi32(pair),
                                          unsafeBitCast(w, to: __m512i.self)), to: SIMD16<Int32>.self)
    }
}
