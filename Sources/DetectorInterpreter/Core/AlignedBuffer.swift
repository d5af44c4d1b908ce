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
        } else {
            block = nil
            pointer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
            pointer.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        }
    }

    deinit {
        if let block { free(block) } else { pointer.deallocate() }
    }
}
