import DetectorModelFile
import DetectorPlatform
/// Memory the kernels of one interpreter share while they run, for what lives only during
/// one eval (quantized input copies, im2col tiles, accumulators).
///
/// Kernels run one at a time, so a single block of the largest size any of them asks for
/// serves them all, as TFLite's scratch tensors share its arena; a buffer per kernel kept
/// every layer's copies resident (the hybrid yolov8n's quantized inputs alone were about
/// 10 MB). The contents are undefined when an eval starts: kernels write before they read.
///
/// Example: a kernel calls `reserve(4096)` at prepare, then uses `pointer` in each eval.
package final class SharedScratch {
    private var buffer = AlignedBuffer(byteCount: 64)

    /// Grows the block to at least `byteCount` bytes (at prepare; contents are not kept).
    package func reserve(_ byteCount: Int) {
        if byteCount > buffer.byteCount { buffer = AlignedBuffer(byteCount: byteCount) }
    }

    /// Start of the block, 64-byte aligned. Read it at eval: `reserve` may move the block.
    package var pointer: UnsafeMutableRawPointer { buffer.pointer }

    /// Bytes reserved.
    package var byteCount: Int { buffer.byteCount }

    /// `sizes` laid out one after another, each at a multiple of 64 bytes: the offsets and the
    /// total. Example: [10, 100] → offsets [0, 64], total 192.
    package static func layout(_ sizes: [Int]) -> (offsets: [Int], total: Int) {
        var offsets: [Int] = [], total = 0
        for size in sizes {
            offsets.append(total)
            total += (max(size, 0) + 63) / 64 * 64
        }
        return (offsets, total)
    }
}
