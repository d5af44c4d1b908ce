import DetectorModelFile
import DetectorPlatform
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// 64-byte aligned, zero-filled memory owned by the interpreter (arena, folded constants,
/// kernel scratch).
///
/// The memory comes from `calloc`: for large blocks the C library hands out fresh pages, which
/// are zero already, so nothing is written until a kernel uses them (a `memset` at prepare
/// faulted in the whole arena up front: 20% of palm_detection_lite's prepare time).
package final class AlignedBuffer {
    let pointer: UnsafeMutableRawPointer
    let byteCount: Int
    /// What `calloc` returned (freed in `deinit`); nil when the Swift allocator was used.
    private let block: UnsafeMutableRawPointer?

    init(byteCount: Int) {
        self.byteCount = byteCount
        let size = max(byteCount, 64)
        if size <= Int.max - 64, let raw = calloc(size + 63, 1) {
            block = raw
            let address = UInt(bitPattern: raw)
            pointer = raw + Int((64 - address % 64) % 64)
            AlignedBuffer.adviseHugePages(raw, byteCount: size + 63)
        } else {
            block = nil
            pointer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
            pointer.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        }
    }

    /// Blocks of at least `hugePageThreshold` ask Linux for transparent huge pages on the 2 MiB
    /// pages they fully contain (`MADV_HUGEPAGE`; under THP's default `madvise` mode nothing is
    /// huge otherwise): YOLO-sized arenas of tens of MB then take far fewer TLB misses. Advice
    /// only: nothing changes where the kernel declines, and no page is touched here.
    static let hugePageThreshold = 8 << 20

    private static func adviseHugePages(_ raw: UnsafeMutableRawPointer, byteCount: Int) {
        #if os(Linux)
        guard byteCount >= hugePageThreshold else { return }
        let huge = UInt(2 << 20)
        let start = UInt(bitPattern: raw), end = start + UInt(byteCount)
        let first = (start + huge - 1) & ~(huge - 1), last = end & ~(huge - 1)
        guard last > first, let address = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(address, Int(last - first), 14)   // MADV_HUGEPAGE
        #endif
    }

    deinit {
        if let block { free(block) } else { pointer.deallocate() }
    }
}
