import DetectorPlatform
import KernelsBaseline
#if arch(x86_64)
import KernelsAVX2
import KernelsAVX512
import KernelsAVX512VBMI
import KernelsAVX512AMX
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

    /// SSE2 on x86-64, NEON on arm64: `KernelsBaseline` (the shared kernels with no
    /// instruction-set flags, no fused multiply-add; the float depthwise at 8 lanes), except the
    /// float GEMM, which stays the interpreter's 8-lane kernel (`FloatGEMM`'s 6×8 and
    /// pre-broadcast 5×8 tiles): at 16 lanes on SSE2 it measured 1.4× slower per layer (see
    /// `KernelsBaseline.Tier`). No byte GEMM (the exact
    /// byte products are AVX-512 VNNI's) and no byte table kernel (one lookup per byte).
    static let baseline = baselineTable(isa: InstructionSetTier.baseline.description)

    private static func baselineTable(isa: String) -> KernelTable {
        KernelTable(
            name: isa, tier: .baseline, hasFusedMultiplyAdd: false,
            floatGEMM: FloatGEMMKernel(name: "float GEMM 6x8/5x8", panelWidth: FloatGEMM.panelWidth,
                multiply: FloatGEMM.multiplyBaseline, winogradBalance: 12),
            depthwise: FloatDepthwiseKernel(name: "depthwise 8-wide \(isa)",
                interior: KernelsBaseline.TierDepthwise.interior),
            hybrid: HybridKernels(
                name: "hybrid 16 lanes \(isa)", range: KernelsBaseline.TierHybrid.range,
                quantize: KernelsBaseline.TierHybrid.quantize,
                rescale: KernelsBaseline.TierHybrid.rescale,
                faithfulSiLU: KernelsBaseline.TierHybrid.siluInPlace),
            elementwise: FloatElementwiseKernels(name: "logistic 16 lanes \(isa)",
                logistic: KernelsBaseline.TierElementwise.logistic(_:_:count:),
                fastLogistic: KernelsBaseline.TierElementwise.fastLogistic(_:_:count:),
                logisticProduct: KernelsBaseline.TierElementwise.logisticProduct(_:_:count:),
                silu: KernelsBaseline.TierElementwise.silu(_:_:count:),
                softmax: KernelsBaseline.TierElementwise.softmax(_:_:rows:depth:beta:),
                binary: KernelsBaseline.TierElementwise.binary(_:_:_:_:count:lo:hi:clamps:)),
            integerGEMM: IntegerGEMMKernel(name: "int16 GEMM 16-wide \(isa)", panelWidth: KernelsBaseline.TierIntegerGemm.panelWidth,
                multiply: KernelsBaseline.TierIntegerGemm.multiply,
                multiplyRequantized: KernelsBaseline.TierIntegerGemm.multiplyRequantized),
            byteGEMM: nil,
            requantization: RequantizationKernel(name: "requantize 16 lanes \(isa)",
                apply: KernelsBaseline.TierRequantization.apply(
                    _:rows:count:bias:doubledMultiplier:rightShift:outputZeroPoint:activationMin:activationMax:output:)),
            quantizedDepthwise: QuantizedDepthwiseKernel(name: "8-bit depthwise 16 lanes \(isa)",
                run: KernelsBaseline.TierQuantizedDepthwise.run),
            byteTable: nil,
            pooling: FloatPoolingKernel(name: "pool 16 lanes \(isa)", row: KernelsBaseline.TierPool.row),
            resize: FloatResizeKernel(name: "bilinear 16 lanes \(isa)", row: KernelsBaseline.TierResize.bilinearRow))
    }

    #if arch(x86_64)
    /// x86-64-v3: AVX2 + FMA (`KernelsAVX2`).
    static let avx2 = KernelTable(
        name: InstructionSetTier.avx2.description, tier: .avx2, hasFusedMultiplyAdd: true,
        floatGEMM: FloatGEMMKernel(name: "float GEMM 16-wide avx2", panelWidth: 16,
            multiply: KernelsAVX2.TierFloatGEMM.multiply, winogradBalance: 24),
        depthwise: FloatDepthwiseKernel(name: "depthwise 16-wide avx2",
            interior: KernelsAVX2.TierDepthwise.interior),
        hybrid: HybridKernels(
            name: "hybrid 16 lanes avx2", range: KernelsAVX2.TierHybrid.range,
            quantize: KernelsAVX2.TierHybrid.quantize,
            rescale: KernelsAVX2.TierHybrid.rescale,
            faithfulSiLU: KernelsAVX2.TierHybrid.siluInPlace),
        elementwise: FloatElementwiseKernels(name: "logistic 16 lanes avx2",
            logistic: KernelsAVX2.TierElementwise.logistic(_:_:count:), fastLogistic: KernelsAVX2.TierElementwise.fastLogistic(_:_:count:),
            logisticProduct: KernelsAVX2.TierElementwise.logisticProduct(_:_:count:), silu: KernelsAVX2.TierElementwise.silu(_:_:count:),
            softmax: KernelsAVX2.TierElementwise.softmax(_:_:rows:depth:beta:),
                binary: KernelsAVX2.TierElementwise.binary(_:_:_:_:count:lo:hi:clamps:)),
        integerGEMM: IntegerGEMMKernel(name: "int16 GEMM 16-wide vpmaddwd", panelWidth: 16,
            multiply: KernelsAVX2.TierIntegerGemm.multiply,
            multiplyRequantized: KernelsAVX2.TierIntegerGemm.multiplyRequantized),
        byteGEMM: nil,
        requantization: RequantizationKernel(name: "requantize 16 lanes avx2",
            apply: KernelsAVX2.TierRequantization.apply(
                _:rows:count:bias:doubledMultiplier:rightShift:outputZeroPoint:activationMin:activationMax:output:)),
        quantizedDepthwise: QuantizedDepthwiseKernel(name: "8-bit depthwise 16 lanes avx2",
            run: KernelsAVX2.TierQuantizedDepthwise.run),
        byteTable: nil,
        quantizedSoftmax: QuantizedSoftmaxRowsKernel(name: "softmax rows avx2",
            exponentials: KernelsAVX2.TierQuantizedSoftmax.exponentials(_:rows:depth:signed:exps:into:sums:),
            outputs: KernelsAVX2.TierQuantizedSoftmax.outputs(_:rows:depth:scales:shifts:outputMin:top:output:)),
        pooling: FloatPoolingKernel(name: "pool 16 lanes avx2", row: KernelsAVX2.TierPool.row),
        resize: FloatResizeKernel(name: "bilinear 16 lanes avx2", row: KernelsAVX2.TierResize.bilinearRow))

    /// x86-64-v4 + AVX-512 VNNI (`KernelsAVX512`): `vpdpwssd` integer GEMM, `vpdpbusd` byte GEMM.
    static let avx512 = KernelTable.avx512(name: InstructionSetTier.avx512.description, byteTable: nil)

    /// AVX-512 on a CPU with VBMI: the same plus `vpermi2b` byte table lookups (`KernelsAVX512VBMI`).
    static let avx512VBMI = KernelTable.avx512(
        name: InstructionSetTier.avx512.description + "+vbmi",
        byteTable: ByteTableKernel(name: "byte table vpermi2b",
            apply: KernelsAVX512VBMI.TierByteTable.apply))

    /// The AVX-512 float GEMM on its two register tiles, both reading the same 16-column panels:
    /// 8 × 16 (`single`, where the core halves 512-bit operations: AMD Zen 4) and 12 × 32
    /// (`paired`, every other AVX-512 core); `ProcessorCore.pairsFloatPanels` picks.
    package static let avx512FloatGEMMs = (
        single: FloatGEMMKernel(name: "float GEMM 8x16 avx512", panelWidth: 16,
                                multiply: KernelsAVX512.TierFloatGEMM.multiply, winogradBalance: 24),
        paired: FloatGEMMKernel(name: "float GEMM 12x32 avx512", panelWidth: 16,
                                multiply: KernelsAVX512.TierFloatGEMM.multiplyPaired, winogradBalance: 24))

    /// The AVX-512 byte GEMM: `vpdpbusd` (VNNI) and, where the CPU has AMX-INT8 and the OS grants
    /// it (`InstructionSetTier.hasTileMatrixBytes`), `tdpbusd` on tiles (`KernelsAVX512AMX`:
    /// the same sums; on an Emerald Rapids Xeon YOLOv8n full integer ran 1.5× as fast as on VNNI,
    /// YOLOX nano int8 1.4×).
    package static let avx512ByteGEMMs = (
        vnni: ByteGEMMKernel(name: "byte GEMM vpdpbusd",
                             multiply: KernelsAVX512.TierByteGemm.multiply,
                             multiplyRequantized: KernelsAVX512.TierByteGemm.multiplyRequantized),
        tiles: ByteGEMMKernel(name: "byte GEMM amx tdpbusd",
                              multiply: KernelsAVX512AMX.TierTileByteGemm.multiply,
                              multiplyRequantized: KernelsAVX512AMX.TierTileByteGemm.multiplyRequantized))

    /// An AVX-512 table; its name gains "+amx" where the byte GEMM runs on AMX tiles.
    private static func avx512(name: String, byteTable: ByteTableKernel?) -> KernelTable {
        KernelTable(
            name: name + (InstructionSetTier.hasTileMatrixBytes ? "+amx" : ""), tier: .avx512, hasFusedMultiplyAdd: true,
            floatGEMM: ProcessorCore.pairsFloatPanels ? avx512FloatGEMMs.paired : avx512FloatGEMMs.single,
            depthwise: FloatDepthwiseKernel(name: "depthwise 16-wide avx512",
                interior: KernelsAVX512.TierDepthwise.interior),
            hybrid: HybridKernels(
                name: "hybrid 16 lanes avx512", range: KernelsAVX512.TierHybrid.range,
                quantize: KernelsAVX512.TierHybrid.quantize,
                rescale: KernelsAVX512.TierHybrid.rescale,
                faithfulSiLU: KernelsAVX512.TierHybrid.siluInPlace),
            elementwise: FloatElementwiseKernels(name: "logistic 16 lanes \(name)",
                logistic: KernelsAVX512.TierElementwise.logistic(_:_:count:), fastLogistic: KernelsAVX512.TierElementwise.fastLogistic(_:_:count:),
                logisticProduct: KernelsAVX512.TierElementwise.logisticProduct(_:_:count:), silu: KernelsAVX512.TierElementwise.silu(_:_:count:),
                softmax: KernelsAVX512.TierElementwise.softmax(_:_:rows:depth:beta:),
                binary: KernelsAVX512.TierElementwise.binary(_:_:_:_:count:lo:hi:clamps:)),
            integerGEMM: IntegerGEMMKernel(name: "int16 GEMM 16-wide vpdpwssd", panelWidth: 16,
                multiply: KernelsAVX512.TierIntegerGemm.multiply,
                multiplyRequantized: KernelsAVX512.TierIntegerGemm.multiplyRequantized),
            byteGEMM: InstructionSetTier.hasTileMatrixBytes ? avx512ByteGEMMs.tiles : avx512ByteGEMMs.vnni,
            requantization: RequantizationKernel(name: "requantize 16 lanes avx512",
                apply: KernelsAVX512.TierRequantization.apply(
                _:rows:count:bias:doubledMultiplier:rightShift:outputZeroPoint:activationMin:activationMax:output:)),
            quantizedDepthwise: QuantizedDepthwiseKernel(name: "8-bit depthwise 16 lanes avx512",
                run: KernelsAVX512.TierQuantizedDepthwise.run),
            byteTable: byteTable,
            quantizedSoftmax: QuantizedSoftmaxRowsKernel(name: "softmax rows avx512",
                exponentials: KernelsAVX512.TierQuantizedSoftmax.exponentials(_:rows:depth:signed:exps:into:sums:),
            outputs: KernelsAVX512.TierQuantizedSoftmax.outputs(_:rows:depth:scales:shifts:outputMin:top:output:)),
            pooling: FloatPoolingKernel(name: "pool 16 lanes \(name)", row: KernelsAVX512.TierPool.row),
            resize: FloatResizeKernel(name: "bilinear 16 lanes \(name)", row: KernelsAVX512.TierResize.bilinearRow),
            planarConv: FloatPlanarConvKernel(name: "planar conv 16 pixels avx512",
                planes: KernelsAVX512.TierPlanarConv.planes, row: KernelsAVX512.TierPlanarConv.row))
    }
    #endif
}
