/// The AVX-512 tier (x86-64-v4: AVX-512 F/BW/CD/DQ/VL, plus VNNI): this module is compiled
/// with `-march=x86-64-v4 -mavx512vnni`, and holds the shared wide-tier kernels of
/// `Sources/TierKernels/` at that instruction set. `SIMD16<Float>` is one zmm register here.
package enum Tier {
    /// The name `InstructionSetTier` and `OBJDETECT_ISA` use for this tier.
    package static let name = "avx512"
    /// Rows of the float GEMM register tile: 8 × 16 columns = 8 zmm accumulators.
    static let floatTileRows = 8
}
