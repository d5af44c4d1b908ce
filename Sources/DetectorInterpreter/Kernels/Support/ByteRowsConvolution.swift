import DetectorModelFile
import DetectorPlatform
/// The convolution driver both byte-GEMM convolutions share — the 8-bit CONV_2D (its epilogue
/// requantizes to 8 bits) and the hybrid one (its epilogue rescales to float, adds the bias and
/// applies the activation): no im2col, one GEMM per output row, whose pixels' filter rows
/// (`filterHeight` runs of `filterWidth × channels` bytes) the byte GEMM reads in place in the
/// source image, already padded so that no window leaves it.
///
/// ```swift
/// let rows = ByteRowsConvolution(batches: 1, outputHeight: 10, outputWidth: 10, sourceHeight: 12, sourceWidth: 12,
///                                channels: 8, strideHeight: 1, strideWidth: 1, filterHeight: 3,
///                                outputChannels: 16, kPadded: 72)
/// rows.run(input: padded, panels: w, rowWeights: nil, kernel: table.byteGEMM, parts: 2, sums: { scratch(part: $0) }) {
///     sums, row, batch in requantize(sums, into: output + row * 10 * 16)
/// }
/// ```
struct ByteRowsConvolution {
    var batches: Int, outputHeight: Int, outputWidth: Int
    /// The padded source image the windows read.
    var sourceHeight: Int, sourceWidth: Int, channels: Int
    var strideHeight: Int, strideWidth: Int, filterHeight: Int
    var outputChannels: Int
    /// The GEMM depth, `filterHeight × filterWidth × channels` rounded up as the panels are.
    var kPadded: Int

    /// Runs every output row, the rows split over at most `parts` threads. `sums(part)` is that
    /// part's Int32 scratch (`outputWidth × outputChannels`); `epilogue(sums, row, batch)` turns one
    /// output row's sums into output. Results do not depend on `parts`.
    func run(input: UnsafePointer<UInt8>, panels: UnsafePointer<Int8>, rowWeights: UnsafePointer<Int32>?,
             kernel: ByteGEMMKernel?, parts: Int, sums: (Int) -> UnsafeMutablePointer<Int32>,
             epilogue: (_ sums: UnsafeMutablePointer<Int32>, _ row: Int, _ batch: Int) -> Void) {
        let rows = batches * outputHeight
        guard rows > 0 else { return }
        let parts = min(max(parts, 1), rows)
        KernelSupport.parallelRanges(rows, parts: parts) { part, range in
            let acc = sums(part)
            for row in range {
                let b = row / outputHeight, oy = row - b * outputHeight
                IntegerGemm.multiplyBytes(a: input + ((b * sourceHeight + oy * strideHeight) * sourceWidth) * channels,
                                          lda: strideWidth * channels, packedB: panels, m: outputWidth, n: outputChannels,
                                          kPadded: kPadded, runs: filterHeight, runStride: sourceWidth * channels,
                                          rowWeights: rowWeights, c: acc, ldc: outputChannels, kernel: kernel)
                epilogue(acc, row, b)
            }
        }
    }

    /// `run` for the 8-bit convolution with the requantization fused into the byte GEMM
    /// (`IntegerGemm.multiplyBytesRequantized`): output row `r` (batch-major) is written at
    /// `output + r × outputWidth × outputChannels`, no Int32 sums in memory. Results do not
    /// depend on `parts`.
    func runRequantized<T: QuantizedElement>(input: UnsafePointer<UInt8>, panels: UnsafePointer<Int8>, rowWeights: UnsafePointer<Int32>?,
                                             kernel: ByteGEMMKernel?, parts: Int, requantization: VectorRequantization.Rows,
                                             output: UnsafeMutablePointer<T>) {
        let rows = batches * outputHeight
        guard rows > 0 else { return }
        let parts = min(max(parts, 1), rows)
        KernelSupport.parallelChunks(rows, parts: parts) { range in
            for row in range {
                let b = row / outputHeight, oy = row - b * outputHeight
                IntegerGemm.multiplyBytesRequantized(a: input + ((b * sourceHeight + oy * strideHeight) * sourceWidth) * channels,
                                                     lda: strideWidth * channels, packedB: panels, m: outputWidth, n: outputChannels,
                                                     kPadded: kPadded, runs: filterHeight, runStride: sourceWidth * channels,
                                                     rowWeights: rowWeights, requantization: requantization,
                                                     output: output + row * outputWidth * outputChannels, ldo: outputChannels,
                                                     kernel: kernel)
            }
        }
    }
}
