/// CRC-32 as used by PNG, ZIP and gzip (reflected polynomial 0xEDB88320, initial and final
/// value 0xFFFFFFFF), computed eight bytes at a time with precomputed tables.
///
/// ```swift
/// let crc = CRC32.checksum(Array("123456789".utf8))   // 0xCBF43926
/// var running = CRC32()
/// running.update(part1); running.update(part2)
/// print(running.value)
/// ```
package struct CRC32: Sendable {
    /// 8 tables of 256 entries: table k gives the CRC of a byte followed by k zero bytes.
    package static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 8 * 256)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = (c & 1) != 0 ? (0xEDB8_8320 ^ (c >> 1)) : (c >> 1) }
            t[n] = c
        }
        for n in 0..<256 {
            var c = t[n]
            for k in 1..<8 {
                c = t[Int(c & 0xFF)] ^ (c >> 8)
                t[k * 256 + n] = c
            }
        }
        return t
    }()

    private var state: UInt32 = 0xFFFF_FFFF

    package init() {}

    /// The CRC of everything passed to `update` so far.
    package var value: UInt32 { state ^ 0xFFFF_FFFF }

    /// Adds bytes to the running CRC.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        state = CRC32.tables.withUnsafeBufferPointer { t in
            CRC32.run(state, bytes, t)
        }
    }

    /// Adds bytes to the running CRC.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The CRC-32 of `bytes`.
    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var c = CRC32(); c.update(bytes); return c.value
    }

    /// The CRC-32 of `bytes`.
    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c = CRC32(); c.update(bytes); return c.value
    }

    /// Plain one-byte-at-a-time CRC, the oracle for the sliced version in tests.
    static func referenceChecksum(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = (c & 1) != 0 ? (0xEDB8_8320 ^ (c >> 1)) : (c >> 1) }
        }
        return c ^ 0xFFFF_FFFF
    }

    @inline(__always)
    private static func run(_ start: UInt32, _ bytes: UnsafeRawBufferPointer, _ t: UnsafeBufferPointer<UInt32>) -> UInt32 {
        var c = start
        let n = bytes.count
        guard n > 0, let base = bytes.baseAddress else { return c }
        var i = 0
        while i + 8 <= n {
            let lo = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt32.self)) ^ c
            let hi = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self))
            c = t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int((lo >> 8) & 0xFF)]
              ^ t[5 * 256 + Int((lo >> 16) & 0xFF)] ^ t[4 * 256 + Int(lo >> 24)]
              ^ t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)]
              ^ t[1 * 256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
            i += 8
        }
        while i < n {
            c = t[Int((c ^ UInt32(base.load(fromByteOffset: i, as: UInt8.self))) & 0xFF)] ^ (c >> 8)
            i += 1
        }
        return c
    }
}
