import DetectorModelFile
import DetectorPlatform
/// Copies `count` bytes between non-overlapping buffers. Up to 32 bytes are moved inline with
/// two (possibly overlapping) unaligned loads and stores of the largest fitting width, up to
/// 256 as a loop of 16-byte blocks, which avoids a `memcpy` call per short row
/// (channel-wise concatenations, slices of a few channels); larger sizes use `copyMemory`.
@inline(__always)
package func copyBytes(_ dst: UnsafeMutableRawPointer, _ src: UnsafeRawPointer, _ count: Int) {
    if count > 256 {
        dst.copyMemory(from: src, byteCount: count)
    } else if count > 32 {
        // 16-byte blocks, the last one overlapping the one before.
        var i = 0
        while i &+ 16 < count {
            dst.storeBytes(of: src.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self), toByteOffset: i, as: SIMD16<UInt8>.self)
            i &+= 16
        }
        dst.storeBytes(of: src.loadUnaligned(fromByteOffset: count &- 16, as: SIMD16<UInt8>.self), toByteOffset: count &- 16,
                       as: SIMD16<UInt8>.self)
    } else if count >= 16 {
        let head = src.loadUnaligned(as: SIMD16<UInt8>.self)
        let tail = src.loadUnaligned(fromByteOffset: count - 16, as: SIMD16<UInt8>.self)
        dst.storeBytes(of: head, as: SIMD16<UInt8>.self)
        dst.storeBytes(of: tail, toByteOffset: count - 16, as: SIMD16<UInt8>.self)
    } else if count >= 8 {
        let head = src.loadUnaligned(as: UInt64.self), tail = src.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        dst.storeBytes(of: head, as: UInt64.self)
        dst.storeBytes(of: tail, toByteOffset: count - 8, as: UInt64.self)
    } else if count >= 4 {
        let head = src.loadUnaligned(as: UInt32.self), tail = src.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
        dst.storeBytes(of: head, as: UInt32.self)
        dst.storeBytes(of: tail, toByteOffset: count - 4, as: UInt32.self)
    } else if count > 0 {
        // 1...3 bytes: first, middle and last (some coincide).
        let first = src.load(as: UInt8.self), middle = src.load(fromByteOffset: count >> 1, as: UInt8.self)
        let last = src.load(fromByteOffset: count - 1, as: UInt8.self)
        dst.storeBytes(of: first, as: UInt8.self)
        dst.storeBytes(of: middle, toByteOffset: count >> 1, as: UInt8.self)
        dst.storeBytes(of: last, toByteOffset: count - 1, as: UInt8.self)
    }
}
