import DetectorPlatform

/// The interpreter's hot kernels of one CPU tier, by operation family, in the spirit of XNNPACK's `configs/`:
/// a table of function references filled once per tier (and per CPU family where the best
/// kernel differs, e.g. AVX-512 with or without VBMI) in one place, `KernelTable+Tiers.swift`.
/// (The JPEG decoder, a layer below, has its own small table: `JPEGKernels`.)
///
/// The interpreter picks its table once (`Interpreter.kernels`, from the resolved tier) and
/// every kernel's prepare asks it (`PrepareContext.kernels`) for the family it needs, keeping
/// the entry: packing choices are properties of the entry (`FloatGEMMKernel.panelWidth`,
/// `byteGEMM != nil`: "packs weights as bytes"), never an instruction-set name. An absent
/// entry (nil) means the tier has no such kernel and the op runs its portable loops.
///
/// ```swift
/// let table = KernelTable.for(.avx2)
/// table.name                     // "avx2"
/// table.floatGEMM.panelWidth     // 16
/// table.byteGEMM == nil          // true: only AVX-512 VNNI has the byte GEMM
/// ```
package final class KernelTable: Sendable {
    /// The tier's name as `objdetect --version` prints it ("sse2", "avx2", "avx512+vbmi",
    /// "avx512+vbmi+amx", …).
    package let name: String
    /// The tier this table runs at.
    package let tier: InstructionSetTier
    /// Whether the tier has fused multiply-add (float kernels may use it where reference
    /// rounding is not needed).
    package let hasFusedMultiplyAdd: Bool
    package let floatGEMM: FloatGEMMKernel
    /// The interior of the float depthwise convolution (every tap inside the image).
    package let depthwise: FloatDepthwiseKernel
    package let hybrid: HybridKernels
    /// LOGISTIC and SiLU over float arrays.
    package let elementwise: FloatElementwiseKernels
    package let integerGEMM: IntegerGEMMKernel
    /// The unsigned × signed byte GEMM; when present the quantized and hybrid convolutions
    /// pack their weights as bytes for it.
    package let byteGEMM: ByteGEMMKernel?
    /// Vector requantization of Int32 sums to 8 bits.
    package let requantization: RequantizationKernel
    /// The 8-bit depthwise convolution (depth multiplier 1, no left shift; the others run
    /// `QuantizedDepthwiseConv2D`'s loops).
    package let quantizedDepthwise: QuantizedDepthwiseKernel
    /// 256-entry byte table lookups; nil: one lookup per byte.
    package let byteTable: ByteTableKernel?
    /// 8-bit SOFTMAX over rows of at most 16 values, one row per vector; nil: the scalar loops.
    package let quantizedSoftmax: QuantizedSoftmaxRowsKernel?
    /// Float MAX_POOL_2D / AVERAGE_POOL_2D rows.
    package let pooling: FloatPoolingKernel
    /// Float RESIZE_BILINEAR rows.
    package let resize: FloatResizeKernel
    /// First-layer float convolutions with pixels in the lanes (`PlanarConvolution`); nil: the GEMM.
    package let planarConv: FloatPlanarConvKernel?

    package init(name: String, tier: InstructionSetTier, hasFusedMultiplyAdd: Bool, floatGEMM: FloatGEMMKernel,
                 depthwise: FloatDepthwiseKernel, hybrid: HybridKernels, elementwise: FloatElementwiseKernels,
                 integerGEMM: IntegerGEMMKernel,
                 byteGEMM: ByteGEMMKernel?, requantization: RequantizationKernel,
                 quantizedDepthwise: QuantizedDepthwiseKernel, byteTable: ByteTableKernel?,
                 quantizedSoftmax: QuantizedSoftmaxRowsKernel? = nil, pooling: FloatPoolingKernel,
                 resize: FloatResizeKernel, planarConv: FloatPlanarConvKernel? = nil) {
        self.name = name; self.tier = tier; self.hasFusedMultiplyAdd = hasFusedMultiplyAdd
        self.floatGEMM = floatGEMM; self.depthwise = depthwise; self.hybrid = hybrid
        self.elementwise = elementwise; self.integerGEMM = integerGEMM
        self.byteGEMM = byteGEMM; self.requantization = requantization; self.quantizedDepthwise = quantizedDepthwise
        self.byteTable = byteTable; self.quantizedSoftmax = quantizedSoftmax; self.pooling = pooling
        self.resize = resize; self.planarConv = planarConv
    }
}

/// One output row of a float MAX_POOL_2D or AVERAGE_POOL_2D (`TierPool.row`): input (the first
/// window row inside the image, column 0), window rows, row stride, input width, output width,
/// stride, left padding, filter width, channels, output row, average (else max), clamp low, high.
package struct FloatPoolingKernel: Sendable {
    package typealias Row = @Sendable (UnsafePointer<Float>, Int, Int, Int, Int, Int, Int, Int, Int,
                                       UnsafeMutablePointer<Float>, Bool, Float, Float) -> Void
    package let name: String
    package let row: Row
}

/// A float convolution with output pixels in the lanes (`PlanarConvolution`). `planes`: input
/// rows, row count, row stride, width, channels, column stride, left padding, plane width,
/// plane stride, planes per row (floats), into (the first row's planes). `row`: the row's first tap row of planes, tap offsets, tap count, packed
/// weights, bias, output row, output width, output channels, clamp low, high, mode (0 none,
/// 1 clamp, 2 SiLU).
package struct FloatPlanarConvKernel: Sendable {
    package typealias Planes = @Sendable (UnsafePointer<Float>, Int, Int, Int, Int, Int, Int, Int, Int, Int, UnsafeMutablePointer<Float>) -> Void
    package typealias Row = @Sendable (UnsafePointer<Float>, UnsafePointer<Int>, Int, UnsafePointer<Float>, UnsafePointer<Float>?,
                                       UnsafeMutablePointer<Float>, Int, Int, Float, Float, Int) -> Void
    package let name: String
    package let planes: Planes
    package let row: Row
}

/// One output row of a float RESIZE_BILINEAR (`TierResize.bilinearRow`): top input row, bottom
/// input row, the bottom row's weight, per output pixel the two source columns and the second
/// one's weight, output width, channels, output row.
package struct FloatResizeKernel: Sendable {
    package typealias Row = @Sendable (UnsafePointer<Float>, UnsafePointer<Float>, Float, UnsafePointer<Int>, UnsafePointer<Int>,
                                       UnsafePointer<Float>, Int, Int, UnsafeMutablePointer<Float>) -> Void
    package let name: String
    package let row: Row
}

/// `C = A · B + bias`, clamped or SiLU, on B packed in panels of `panelWidth` columns
/// (`FloatGEMM.PackedMatrix`). `multiply`'s arguments: rows, a, lda, runCount, runLength,
/// runStride (A's row layout, `FloatGEMM.RowLayout`), packed, k, n, bias, c, ldc, clampMin,
/// clampMax, silu, fused.
package struct FloatGEMMKernel: Sendable {
    package typealias Multiply = @Sendable (Int, UnsafePointer<Float>, Int, Int, Int, Int, UnsafePointer<Float>, Int, Int,
                                            UnsafePointer<Float>?, UnsafeMutablePointer<Float>, Int, Float, Float, Bool, Bool) -> Void
    package let name: String
    /// Columns per packed panel of B.
    package let panelWidth: Int
    package let multiply: Multiply
    /// A 3×3 stride-1 convolution takes the Winograd path (`WinogradConvolution.applies`) when
    /// `inC·outC ≥ winogradBalance·(inC + outC)`: the faster this GEMM against the transforms,
    /// the more channels the transforms need to pay off.
    package let winogradBalance: Int

    package init(name: String, panelWidth: Int, multiply: @escaping Multiply, winogradBalance: Int) {
        self.name = name; self.panelWidth = panelWidth; self.multiply = multiply; self.winogradBalance = winogradBalance
    }
}

/// The interior pixels of a float depthwise row (every tap inside the image), 4 pixels a step.
/// `interior`'s arguments: input, filter, bias, output, channels, pixels, kyLo, kyHi, kW,
/// rowStep, colStep, pixelStep, clampMin, clampMax, fused.
package struct FloatDepthwiseKernel: Sendable {
    package typealias Interior = @Sendable (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>?,
                                            UnsafeMutablePointer<Float>, Int, Int, Int, Int, Int, Int, Int, Int, Int,
                                            Float, Float, Bool) -> Void
    package let name: String
    package let interior: Interior
}

/// The hybrid (float activations, int8 weights) kernels' float work: the input's range and
/// quantization, the rescale of Int32 sums to float, and the SiLU with LOGISTIC's and MUL's
/// roundings. All give the same values at every tier.
package struct HybridKernels: Sendable {
    /// (x, count) → the smallest and largest value, NaNs skipped.
    package typealias Range = @Sendable (UnsafePointer<Float>, Int) -> (lo: Float, hi: Float)
    /// (x, count, inverse, offset, addsOffset, lo, hi, shift, into): `q = clamp(round(offset +
    /// x · inverse)) + shift` as bytes (`HybridQuantization.quantize`).
    package typealias Quantize = @Sendable (UnsafePointer<Float>, Int, Float, Float, Bool, Float, Float, Int32,
                                            UnsafeMutableRawPointer) -> Void
    /// (acc, rows, count, scales, perChannel, batchScale, correction, bias, clampMin, clampMax,
    /// silu, into): `rows` rows of sums (minus `correction`) → float (`TierHybrid.rescale`; oracle: `Conv2DKernel.referenceHybrid`).
    package typealias Rescale = @Sendable (UnsafePointer<Int32>, Int, Int, UnsafePointer<Float>, Bool, Float,
                                           UnsafePointer<Int32>?, UnsafePointer<Float>?, Float, Float, Bool,
                                           UnsafeMutablePointer<Float>) -> Void
    /// (p, count): x · logistic(x) in place, LOGISTIC's then MUL's roundings.
    package typealias SiLU = @Sendable (UnsafeMutablePointer<Float>, Int) -> Void
    package let name: String
    package let range: Range
    package let quantize: Quantize
    package let rescale: Rescale
    package let faithfulSiLU: SiLU
}

/// Element-wise float functions, `(src, dst, count)` with `src` allowed to equal `dst`, and
/// SOFTMAX's rows; every tier gives the same bits (`LaneMath`'s arithmetic on every value).
package struct FloatElementwiseKernels: Sendable {
    package typealias Map = @Sendable (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void
    package let name: String
    /// LOGISTIC with the reference formula and cut-offs (`LaneMath.logistic`).
    package let logistic: Map
    /// LOGISTIC within 4e-7 relative (`LaneMath.fastLogistic`).
    package let fastLogistic: Map
    /// x · logistic(x) with LOGISTIC's and MUL's roundings.
    package let logisticProduct: Map
    /// SiLU within 4e-7 relative (`LaneMath.silu`).
    package let silu: Map
    /// SOFTMAX over rows: (src, dst, rows, depth, beta) (`TierElementwise.softmax`).
    package let softmax: @Sendable (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int, Int, Float) -> Void
    /// Same-shape ADD/SUB/MUL (op 0/1/2), then the clamp when asked: (op, a, b, out, count, lo,
    /// hi, clamps) (`TierElementwise.binary`).
    package typealias Binary = @Sendable (Int, UnsafePointer<Float>, UnsafePointer<Float>, UnsafeMutablePointer<Float>,
                                          Int, Float, Float, Bool) -> Void
    package let binary: Binary
}

/// `C = A · Bᵀ` on `Int16` operands in exact `Int32`, B packed by `IntegerGemm.packB` in panels
/// of `panelWidth` channels. `multiply`'s arguments: a, lda, packedB, m, n, kPadded, c, ldc.
/// `multiplyRequantized` requantizes the sums in registers instead (`IntegerGemm.multiplyRequantized`):
/// a, lda, packedB, m, n, kPadded, bias, doubledMultiplier, rightShift, outputZeroPoint,
/// activationMin, activationMax, output, ldo.
package struct IntegerGEMMKernel: Sendable {
    package typealias Multiply = @Sendable (UnsafePointer<Int16>, Int, UnsafePointer<Int16>, Int, Int, Int,
                                            UnsafeMutablePointer<Int32>, Int) -> Void
    package typealias MultiplyRequantized = @Sendable (UnsafePointer<Int16>, Int, UnsafePointer<Int16>, Int, Int, Int,
                                                       UnsafePointer<Int32>, UnsafePointer<UInt32>, UnsafePointer<UInt32>,
                                                       Int32, Int32, Int32, UnsafeMutableRawPointer, Int) -> Void
    package let name: String
    package let panelWidth: Int
    package let multiply: Multiply
    package let multiplyRequantized: MultiplyRequantized
}

/// `C = A · Bᵀ` with A unsigned and B signed bytes (`IntegerGemm.multiplyBytes`). Arguments:
/// a, lda, packedB, m, n, kPadded, runs, runStride, rowWeights, c, ldc. `multiplyRequantized`
/// requantizes the sums in registers instead (`IntegerGemm.multiplyBytesRequantized`): a, lda,
/// packedB, m, n, kPadded, runs, runStride, rowWeights, bias, doubledMultiplier, rightShift,
/// outputZeroPoint, activationMin, activationMax, output, ldo.
package struct ByteGEMMKernel: Sendable {
    package typealias Multiply = @Sendable (UnsafePointer<UInt8>, Int, UnsafePointer<Int8>, Int, Int, Int, Int, Int,
                                            UnsafePointer<Int32>?, UnsafeMutablePointer<Int32>, Int) -> Void
    package typealias MultiplyRequantized = @Sendable (UnsafePointer<UInt8>, Int, UnsafePointer<Int8>, Int, Int, Int, Int, Int,
                                                       UnsafePointer<Int32>?, UnsafePointer<Int32>, UnsafePointer<UInt32>,
                                                       UnsafePointer<UInt32>, Int32, Int32, Int32, UnsafeMutableRawPointer, Int) -> Void
    package let name: String
    package let multiply: Multiply
    package let multiplyRequantized: MultiplyRequantized
}

/// Rows of Int32 sums requantized to 8 bits (`VectorRequantization.Rows.apply`). Arguments:
/// acc, rows, count, bias, doubledMultiplier, rightShift, outputZeroPoint, activationMin,
/// activationMax, output.
package struct RequantizationKernel: Sendable {
    package typealias Apply = @Sendable (UnsafePointer<Int32>, Int, Int, UnsafePointer<Int32>, UnsafePointer<UInt32>,
                                         UnsafePointer<UInt32>, Int32, Int32, Int32, UnsafeMutableRawPointer) -> Void
    package let name: String
    package let apply: Apply
}

/// A run of 8-bit depthwise outputs (`QuantizedDepthwiseConv2D.runTier`). Arguments: input,
/// inputEnd, signed, weights, bias, doubledMultiplier, rightShift, zeroPoint, outputZeroPoint,
/// activationMin, activationMax, output, channels, pixels, flat, tapRows, tapCols, firstTap,
/// filterWidth, rowStep, colStep, pixelStep.
package struct QuantizedDepthwiseKernel: Sendable {
    package typealias Run = @Sendable (UnsafeRawPointer, UnsafeRawPointer, Bool, UnsafePointer<Int32>, UnsafePointer<Int32>,
                                       UnsafePointer<UInt32>, UnsafePointer<UInt32>, Int32?, Int32, Int32, Int32,
                                       UnsafeMutableRawPointer, Int, Int, Bool, Int, Int, Int, Int, Int, Int, Int) -> Void
    package let name: String
    package let run: Run
}

/// `output[i] = table[input[i]]` for a 256-byte table. Arguments: table, input, output, count.
package struct ByteTableKernel: Sendable {
    package typealias Apply = @Sendable (UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int) -> Void
    package let name: String
    package let apply: Apply
}

/// 8-bit SOFTMAX rows of at most 16 values (`TierQuantizedSoftmax`), in two passes around the
/// per-row reciprocal: `exponentials` (input, rows, depth, signed, exps, into, sums) and
/// `outputs` (exponentials, rows, depth, scales, shifts, outputMin, top, output; rows with a
/// negative scale are skipped).
package struct QuantizedSoftmaxRowsKernel: Sendable {
    package typealias Exponentials = @Sendable (UnsafeRawPointer, Int, Int, Bool, UnsafePointer<Int32>,
                                                UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>) -> Void
    package typealias Outputs = @Sendable (UnsafePointer<Int32>, Int, Int, UnsafePointer<Int32>, UnsafePointer<Int32>,
                                           Int32, Int32, UnsafeMutableRawPointer) -> Void
    package let name: String
    package let exponentials: Exponentials
    package let outputs: Outputs
}
