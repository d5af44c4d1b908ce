/// The AVX2 + FMA tier (x86-64-v3): this module is compiled with `-march=x86-64-v3`, and
/// holds the shared wide-tier kernels of `Sources/TierKernels/` at that instruction set.
/// `SIMD16<Float>` is two ymm registers here.
package enum Tier {
    /// The name `InstructionSetTier` and `OBJDETECT_ISA` use for this tier.
    package static let name = "avx2"
    /// Rows of the float GEMM register tile: 6 × 16 columns = 12 ymm accumulators.
    static let floatTileRows = 6
}
