import DetectorPlatform
#if arch(x86_64)
import KernelsAVX2
import KernelsAVX512
#endif

/// The JPEG decoder's kernel table (`TierJPEG`, compiled at every tier): the islow IDCT of a
/// row of blocks (coefficients, count, quant, output, stride), YCbCr → RGB (y, cb, cr, out,
/// width) and h2v2 fancy upsampling (near, far, width, out). The image layer's counterpart of the interpreter's `KernelTable`, filled here once
/// per tier; the pixels are the same at every tier.
package struct JPEGKernels: Sendable {
    package typealias IDCT = @Sendable (UnsafePointer<Int16>, Int, UnsafePointer<Int32>, UnsafeMutablePointer<UInt8>, Int) -> Void
    package typealias ColorConvert = @Sendable (UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>,
                                                UnsafeMutablePointer<UInt8>, Int) -> Void
    /// The tier's name ("sse2", "avx2", "avx512").
    package let name: String
    package let idctBlocks: IDCT
    package let ycbcrToRGB: ColorConvert
    /// libjpeg's h2v2 fancy upsampling of one row (near row, far row, width, out).
    package typealias Upsample = @Sendable (UnsafePointer<UInt8>, UnsafePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>) -> Void
    package let upsampleH2V2Fancy: Upsample

    /// The table for `tier` (lowered to what this CPU supports).
    package static func `for`(_ tier: InstructionSetTier) -> JPEGKernels {
        switch InstructionSetTier.resolved(tier) {
        case .baseline: return baseline
        #if arch(x86_64)
        case .avx2: return avx2
        case .avx512: return avx512
        #else
        case .avx2, .avx512: return baseline
        #endif
        }
    }

    /// The table of `InstructionSetTier.best` (which `OBJDETECT_ISA` can lower), the decoder's.
    package static let best = JPEGKernels.for(InstructionSetTier.best)

    /// SSE2 (NEON on arm64): `Sources/TierKernels/TierJPEG.swift` compiled into this module.
    static let baseline = JPEGKernels(
        name: InstructionSetTier.baseline.description,
        idctBlocks: TierJPEG.idctBlocks,
        ycbcrToRGB: TierJPEG.ycbcrToRGB,
        upsampleH2V2Fancy: TierJPEG.upsampleH2V2Fancy)

    #if arch(x86_64)
    static let avx2 = JPEGKernels(
        name: InstructionSetTier.avx2.description,
        idctBlocks: KernelsAVX2.TierJPEG.idctBlocks,
        ycbcrToRGB: KernelsAVX2.TierJPEG.ycbcrToRGB,
        upsampleH2V2Fancy: KernelsAVX2.TierJPEG.upsampleH2V2Fancy)

    static let avx512 = JPEGKernels(
        name: InstructionSetTier.avx512.description,
        idctBlocks: KernelsAVX512.TierJPEG.idctBlocks,
        ycbcrToRGB: KernelsAVX512.TierJPEG.ycbcrToRGB,
        upsampleH2V2Fancy: KernelsAVX512.TierJPEG.upsampleH2V2Fancy)
    #endif
}
