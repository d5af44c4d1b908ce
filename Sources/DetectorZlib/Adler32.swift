/// Adler-32, the checksum at the end of a zlib stream (RFC 1950).
///
/// ```swift
/// Adler32.checksum(Array("Wikipedia".utf8))   // 0x11E60398
/// ```
package struct Adler32: Sendable {
    private var a: UInt32 = 1
    private var b: UInt32 = 0

    package init() {}

    /// The checksum of everything passed to `update` so far.
    package var value: UInt32 { (b << 16) | a }

    /// Adds bytes to the running checksum.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var a = self.a, b = self.b
        var i = 0
        let n = bytes.count
        // 5552 is the largest run for which b cannot overflow 32 bits before the modulo.
        while i < n {
            let end = min(n, i + 5552)
            while i + 4 <= end {
                a &+= UInt32(base[i]); b &+= a
                a &+= UInt32(base[i + 1]); b &+= a
                a &+= UInt32(base[i + 2]); b &+= a
                a &+= UInt32(base[i + 3]); b &+= a
                i += 4
            }
            while i < end { a &+= UInt32(base[i]); b &+= a; i += 1 }
            a %= 65521
            b %= 65521
        }
        self.a = a
        self.b = b
    }

    /// Adds bytes to the running checksum.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The Adler-32 of `bytes`.
    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var c = Adler32(); c.update(bytes); return c.value
    }

    /// The Adler-32 of `bytes`.
    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c = Adler32(); c.update(bytes); return c.value
    }
}
