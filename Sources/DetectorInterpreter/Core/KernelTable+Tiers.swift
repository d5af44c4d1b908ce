import DetectorPlatform
#if arch(x86_64)
import KernelsAVX2
import KernelsAVX512
import KernelsAVX512VBMI
#endif

/// The one place that fills the kernel tables: one table per tier (and CPU family), and the
/// choice of table for a tier. Adding a tier (NEON `sdot` on arm64, AVX10) is a tier target
/// compiling `Sources/TierKernels/` with its own `Tier.swift`, plus one table here.
extension KernelTable {
    /// The table for `tier` (lowered to what this CPU supports).
    package static func `for`(_ tier: InstructionSetTier) -> KernelTable {
        switch InstructionSetTier.resolved(tier) {
        case .baseline: return baseline
        #if arch(x86_64)
        case .avx2: return avx2
        case .avx512: return InstructionSetTier.hasByteTableLookup ? avx512VBMI : avx512
        #else
        case .avx2, .avx512: return baseline
        #endif
        }
    }

    /// The table of `InstructionSetTier.best` (what `objdetect --version` names).
    package static let best = KernelTable.for(InstructionSetTier.best)

    /// SSE2 on x86-64, NEON on arm64: the interpreter's own portable kernels.
    static let baseline = KernelTable(
        name: InstructionSetTier.baseline.description, tier: .baseline, hasFusedMultiplyAdd: false,
        floatGEMM: FloatGEMMKernel(name: "float GEMM 6x8/5x8", panelWidth: FloatGEMM.panelWidth, multiply: FloatGEMM.multiplyBaseline),
        depthwise: nil,
        hybrid: HybridKernels(name: "hybrid 8 lanes", range: { HybridQuantization.range($0, count: $1) },
                              quantize: HybridQuantization.quantizeBaseline, rescale: Conv2DKernel.rescaleHybridRows,
                              faithfulSiLU: { FloatVectorMath.siluInPlace($0, count: $1, faithful: true) }),
        integerGEMM: IntegerGEMMKernel(name: "int16 GEMM 4x8 pmaddwd", panelWidth: IntegerGemm.panelWidth,
                                       multiply: IntegerGemm.multiplyBaseline),
        byteGEMM: nil, requantization: nil, quantizedDepthwise: nil, byteTable: nil)

    #if arch(x86_64)
    /// x86-64-v3: AVX2 + FMA (`KernelsAVX2`).
    static let avx2 = KernelTable(
        name: InstructionSetTier.avx2.description, tier: .avx2, hasFusedMultiplyAdd: true,
        floatGEMM: FloatGEMMKernel(name: "float GEMM 16-wide avx2", panelWidth: 16, multiply: {
            KernelsAVX2.TierFloatGEMM.multiply(rows: $0, a: $1, lda: $2, runCount: $3, runLength: $4, runStride: $5, packed: $6,
                                               k: $7, n: $8, bias: $9, c: $10, ldc: $11, clampMin: $12, clampMax: $13,
                                               silu: $14, fused: $15)
        }),
        depthwise: FloatDepthwiseKernel(name: "depthwise 16-wide avx2", interior: {
            KernelsAVX2.TierDepthwise.interior(input: $0, filter: $1, bias: $2, output: $3, channels: $4, pixels: $5, kyLo: $6,
                                               kyHi: $7, kW: $8, rowStep: $9, colStep: $10, pixelStep: $11, clampMin: $12,
                                               clampMax: $13, fused: $14)
        }),
        hybrid: HybridKernels(
            name: "hybrid 16 lanes avx2", range: { KernelsAVX2.TierHybrid.range($0, count: $1) },
            quantize: {
                KernelsAVX2.TierHybrid.quantize($0, count: $1, inverse: $2, offset: $3, addsOffset: $4, lo: $5, hi: $6, shift: $7,
                                                into: $8)
            },
            rescale: {
                KernelsAVX2.TierHybrid.rescale($0, rows: $1, count: $2, scales: $3, perChannel: $4, batchScale: $5, correction: $6,
                                               bias: $7, clampMin: $8, clampMax: $9, silu: $10, into: $11)
            },
            faithfulSiLU: { KernelsAVX2.TierHybrid.siluInPlace($0, count: $1) }),
        integerGEMM: IntegerGEMMKernel(name: "int16 GEMM 16-wide vpmaddwd", panelWidth: 16, multiply: {
            KernelsAVX2.TierIntegerGemm.multiply(a: $0, lda: $1, packedB: $2, m: $3, n: $4, kPadded: $5, c: $6, ldc: $7)
        }),
        byteGEMM: nil,
        requantization: RequantizationKernel(name: "requantize 16 lanes avx2", apply: {
            KernelsAVX2.TierRequantization.apply($0, rows: $1, count: $2, bias: $3, doubledMultiplier: $4, rightShift: $5,
                                                 outputZeroPoint: $6, activationMin: $7, activationMax: $8, output: $9)
        }),
        quantizedDepthwise: QuantizedDepthwiseKernel(name: "8-bit depthwise 16 lanes avx2", run: {
            KernelsAVX2.TierQuantizedDepthwise.run(input: $0, inputEnd: $1, signed: $2, weights: $3, bias: $4, doubledMultiplier: $5,
                                                   rightShift: $6, zeroPoint: $7, outputZeroPoint: $8, activationMin: $9,
                                                   activationMax: $10, output: $11, channels: $12, pixels: $13, flat: $14,
                                                   tapRows: $15, tapCols: $16, firstTap: $17, filterWidth: $18, rowStep: $19,
                                                   colStep: $20, pixelStep: $21)
        }),
        byteTable: nil)

    /// x86-64-v4 + AVX-512 VNNI (`KernelsAVX512`): `vpdpwssd` integer GEMM, `vpdpbusd` byte GEMM.
    static let avx512 = KernelTable.avx512(name: InstructionSetTier.avx512.description, byteTable: nil)

    /// AVX-512 on a CPU with VBMI: the same plus `vpermi2b` byte table lookups (`KernelsAVX512VBMI`).
    static let avx512VBMI = KernelTable.avx512(
        name: InstructionSetTier.avx512.description + "+vbmi",
        byteTable: ByteTableKernel(name: "byte table vpermi2b", apply: {
            KernelsAVX512VBMI.TierByteTable.apply($0, input: $1, output: $2, count: $3)
        }))

    private static func avx512(name: String, byteTable: ByteTableKernel?) -> KernelTable {
        KernelTable(
            name: name, tier: .avx512, hasFusedMultiplyAdd: true,
            floatGEMM: FloatGEMMKernel(name: "float GEMM 16-wide avx512", panelWidth: 16, multiply: {
                KernelsAVX512.TierFloatGEMM.multiply(rows: $0, a: $1, lda: $2, runCount: $3, runLength: $4, runStride: $5, packed: $6,
                                                     k: $7, n: $8, bias: $9, c: $10, ldc: $11, clampMin: $12, clampMax: $13,
                                                     silu: $14, fused: $15)
            }),
            depthwise: FloatDepthwiseKernel(name: "depthwise 16-wide avx512", interior: {
                KernelsAVX512.TierDepthwise.interior(input: $0, filter: $1, bias: $2, output: $3, channels: $4, pixels: $5,
                                                     kyLo: $6, kyHi: $7, kW: $8, rowStep: $9, colStep: $10, pixelStep: $11,
                                                     clampMin: $12, clampMax: $13, fused: $14)
            }),
            hybrid: HybridKernels(
                name: "hybrid 16 lanes avx512", range: { KernelsAVX512.TierHybrid.range($0, count: $1) },
                quantize: {
                    KernelsAVX512.TierHybrid.quantize($0, count: $1, inverse: $2, offset: $3, addsOffset: $4, lo: $5, hi: $6,
                                                      shift: $7, into: $8)
                },
                rescale: {
                    KernelsAVX512.TierHybrid.rescale($0, rows: $1, count: $2, scales: $3, perChannel: $4, batchScale: $5,
                                                     correction: $6, bias: $7, clampMin: $8, clampMax: $9, silu: $10, into: $11)
                },
                faithfulSiLU: { KernelsAVX512.TierHybrid.siluInPlace($0, count: $1) }),
            integerGEMM: IntegerGEMMKernel(name: "int16 GEMM 16-wide vpdpwssd", panelWidth: 16, multiply: {
                KernelsAVX512.TierIntegerGemm.multiply(a: $0, lda: $1, packedB: $2, m: $3, n: $4, kPadded: $5, c: $6, ldc: $7)
            }),
            byteGEMM: ByteGEMMKernel(name: "byte GEMM vpdpbusd", multiply: {
                KernelsAVX512.TierByteGemm.multiply(a: $0, lda: $1, packedB: $2, m: $3, n: $4, kPadded: $5, runs: $6,
                                                    runStride: $7, rowWeights: $8, c: $9, ldc: $10)
            }),
            requantization: RequantizationKernel(name: "requantize 16 lanes avx512", apply: {
                KernelsAVX512.TierRequantization.apply($0, rows: $1, count: $2, bias: $3, doubledMultiplier: $4, rightShift: $5,
                                                       outputZeroPoint: $6, activationMin: $7, activationMax: $8, output: $9)
            }),
            quantizedDepthwise: QuantizedDepthwiseKernel(name: "8-bit depthwise 16 lanes avx512", run: {
                KernelsAVX512.TierQuantizedDepthwise.run(input: $0, inputEnd: $1, signed: $2, weights: $3, bias: $4,
                                                         doubledMultiplier: $5, rightShift: $6, zeroPoint: $7, outputZeroPoint: $8,
                                                         activationMin: $9, activationMax: $10, output: $11, channels: $12,
                                                         pixels: $13, flat: $14, tapRows: $15, tapCols: $16, firstTap: $17,
                                                         filterWidth: $18, rowStep: $19, colStep: $20, pixelStep: $21)
            }),
            byteTable: byteTable)
    }
    #endif
}
