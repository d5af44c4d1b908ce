#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Zero-filled arrays for the large tables prepare builds (packed weights, pair tables), with
/// their pages mapped by one `madvise(MADV_POPULATE_WRITE)` before they are written, instead of
/// one page fault per 4 KiB page as the fill touches them. On the AMD EPYC virtual machine these
/// were measured on, a fault cost about 2 µs, and faults were 40 % of mobilenet_v2 u8's prepare.
/// Advice only: on Linux before 5.14 (EINVAL) and on other systems the pages fault as before.
enum PrefaultedArray {
    /// Arrays of at least this many bytes are populated up front.
    static let threshold = 64 << 10

    private static let pageSize: UInt = {
        #if os(Linux)
        let size = sysconf(Int32(_SC_PAGESIZE))
        return size > 0 ? UInt(size) : 4096
        #else
        return 4096
        #endif
    }()

    /// `count` zeros; when the array is at least `threshold` bytes, its whole pages are mapped
    /// before the zeros are written.
    ///
    /// ```swift
    /// var table: [UInt8] = PrefaultedArray.zeros(count: 65536)
    /// ```
    static func zeros<T: FixedWidthInteger>(count: Int) -> [T] {
        guard count > 0 else { return [] }
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress {
                let bytes = count * MemoryLayout<T>.stride
                populate(UnsafeMutableRawPointer(base), byteCount: bytes)
                UnsafeMutableRawPointer(base).initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
            }
            initialized = count
        }
    }

    private static func populate(_ pointer: UnsafeMutableRawPointer, byteCount: Int) {
        #if os(Linux)
        guard byteCount >= threshold else { return }
        let page = pageSize
        let start = UInt(bitPattern: pointer), end = start + UInt(byteCount)
        let first = (start + page - 1) & ~(page - 1), last = end & ~(page - 1)
        guard last > first, let address = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(address, Int(last - first), 23)   // MADV_POPULATE_WRITE
        #endif
    }
}
