/// A 64-byte aligned, zero-initialized heap block freed with its owner.
final class AlignedBuffer {
    let pointer: UnsafeMutableRawPointer
    let byteCount: Int

    init(byteCount: Int) {
        self.byteCount = byteCount
        pointer = UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 64), alignment: 64)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 64))
    }

    deinit { pointer.deallocate() }
}
