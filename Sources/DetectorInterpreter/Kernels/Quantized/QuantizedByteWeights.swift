import DetectorModelFile
import DetectorPlatform
/// A quantized convolution's weights for the byte GEMM (`IntegerGemm.multiplyBytes`, AVX-512
/// VNNI `vpdpbusd`: four u8 × s8 products per 32-bit lane), with the corrections that make
/// its sums exactly those of the `Int16` path.
///
/// The convolution needs `S = Σ_k (x_k − zx)(w_k − zw)`. The GEMM is fed unsigned activations
/// `x' = x + offset` (offset 0 for uint8, 128 for int8 activations, so x' ∈ 0…255; for int8
/// that is the bit pattern XOR 0x80) and signed weights `w' = w − woff` (woff 0 for int8, 128
/// for uint8 weights, so w' ∈ −128…127). With `zx' = zx + offset` and `zw' = zw − woff`,
/// `x − zx = x' − zx'` and `w − zw = w' − zw'`, so
///
///     S = Σ x'w' − zw'·Σx' − zx'·Σw' + K·zx'·zw'
///
/// (K the patch size). `Σw'` per output channel is known at prepare, so
/// `−zx'·Σw' + K·zx'·zw'` is folded into `bias`; `Σx'` per im2col row is needed only when
/// some `zw' ≠ 0` (uint8 weights), and the GEMM then starts each sum at `−zw'·Σx'`
/// (`rowWeights` of `IntegerGemm.multiplyBytes`).
/// Padding taps hold `x' = zx'` (they add `(zx' − zx')(…) = 0`, as the `Int16` path's 0), the
/// depth padding up to a multiple of 4 has `w' = 0`. Every sum is exact `Int32` arithmetic
/// (wrapping, like the reference's), so the result is bit-identical to the other tiers.
///
/// With `filterRows` > 1 (the padded-rows convolution, `QuantizedConv2D.paddedRowGeometry`) the
/// patch is packed as `filterRows` filter rows of `K / filterRows` values, each padded with weight
/// 0 to a multiple of 4: the GEMM then reads every filter row in place, and the bytes it reads
/// past a row's end (the next pixels' channels) meet those zero weights. No row sums are taken
/// over such rows (they would count those bytes), so the padding is only used without them.
///
/// Example: uint8 x = 130 with zx = 128, uint8 w = 100 with zw = 120 (K = 1): x' = 130, zx' = 128,
/// w' = −28, zw' = −8; Σx'w' = −3640, −zw'·Σx' = 1040, −zx'·Σw' = 3584, K·zx'·zw' = −1024,
/// total −40 = (130 − 128)(100 − 120).
package struct QuantizedByteWeights: Sendable {
    /// `w'` packed by `IntegerGemm.packBytes`.
    package var panels: [Int8]
    /// XOR that turns an input byte into `x'`: 0 for uint8, 0x80 for int8 activations.
    package var activationFlip: UInt8
    /// `zx'`, the value of padding taps.
    package var paddingValue: UInt8
    /// `zw'` per output channel padded with 0 to whole panels of 16 (the GEMM's `rowWeights`),
    /// or nil when all are 0 (no row sums needed).
    package var weightZeroPoints: [Int32]?
    /// `bias − zx'·Σw' + K·zx'·zw'` per output channel.
    package var bias: [Int32]
    /// Filter rows packed apart, each padded to a multiple of 4 (1: the patch as one row).
    package var filterRows: Int
    /// The packed depth, the GEMM's `kPadded`: `filterRows` × (`K / filterRows` rounded up to 4).
    package var packedDepth: Int
    /// Set when the weights were built for an input widened to this many channels (the extra
    /// ones `zx'`, so they add 0; `QuantizedConv2D.padsChannels`); nil for the input's own depth.
    package var paddedChannels: Int?

    /// The smallest patch size for which the convolution takes the byte path when it needs row
    /// sums (uint8 weights): below it the row sums cost more than the halved GEMM saves
    /// (mobilenet_v1 0.25 uint8's 8- to 32-deep pointwise layers ran slower, AMD EPYC, AVX-512).
    package static let minimumDepthWithRowSums = 64

    /// Nil when a zero point lies outside its element type's range (the `Int16` path then
    /// runs, with the same truncation as before), or when `filterRows` does not divide `k`.
    package init?<W: QuantizedElement, A: QuantizedElement>(filter: UnsafeBufferPointer<W>, patchSize k: Int, outputDepth n: Int,
                                                  filterZeroPoints: [Int32], inputZeroPoint: Int32, activation _: A.Type,
                                                  bias: [Int32], filterRows: Int = 1) {
        let offset = -A.quantizedMin, weightOffset = 128 + W.quantizedMin
        let zx = inputZeroPoint &+ offset
        guard (0...255).contains(zx), k > 0, n > 0, filter.count == k * n, bias.count == n,
              filterRows > 0, k % filterRows == 0,
              filterZeroPoints.count == 1 || filterZeroPoints.count == n,
              filterZeroPoints.allSatisfy({ (W.quantizedMin...W.quantizedMax).contains($0) }) else { return nil }
        // w' = w − 128 for uint8 weights is the bit pattern XOR 0x80.
        let flip: UInt8 = weightOffset == 0 ? 0 : 0x80
        let row = k / filterRows, paddedRow = IntegerGemm.paddedByteDepth(row)
        self.filterRows = filterRows
        if filterRows == 1 || paddedRow == row {
            packedDepth = filterRows == 1 ? IntegerGemm.paddedByteDepth(k) : k
            panels = IntegerGemm.packBytes(UnsafeRawBufferPointer(filter), n: n, k: k, flip: flip)
        } else {
            // Rows spread to `paddedRow` bytes; the padding byte is `flip`, which packs as w' = 0.
            packedDepth = filterRows * paddedRow
            var spread = [UInt8](repeating: flip, count: n * packedDepth)
            let source = UnsafeRawBufferPointer(filter)
            for r in 0..<n * filterRows {
                for i in 0..<row { spread[r * paddedRow + i] = source[r * row + i] }
            }
            panels = spread.withUnsafeBytes { IntegerGemm.packBytes($0, n: n, k: filterRows * paddedRow, flip: flip) }
        }
        activationFlip = offset == 0 ? 0 : 0x80
        paddingValue = UInt8(zx)
        let zw = (0..<n).map { c in (filterZeroPoints.count == 1 ? filterZeroPoints[0] : filterZeroPoints[c]) - weightOffset }
        let panelChannels = (n + IntegerGemm.bytePanelWidth - 1) / IntegerGemm.bytePanelWidth * IntegerGemm.bytePanelWidth
        weightZeroPoints = zw.allSatisfy { $0 == 0 } ? nil : zw + [Int32](repeating: 0, count: panelChannels - n)
        // Row sums would count the bytes read past padded rows.
        if weightZeroPoints != nil, paddedRow != row, filterRows > 1 { return nil }
        let kz = Int32(truncatingIfNeeded: k) &* zx, kOffset = Int32(truncatingIfNeeded: k) &* weightOffset
        self.bias = (0..<n).map { c in
            // Σw' = Σw − K·woff.
            let row = UnsafeBufferPointer(rebasing: filter[c * k..<(c + 1) * k])
            var sum: Int32 = 0
            for v in row { sum &+= Int32(truncatingIfNeeded: v) }
            return bias[c] &- zx &* (sum &- kOffset) &+ kz &* zw[c]
        }
    }
}
