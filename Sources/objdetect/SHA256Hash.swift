/// SHA-256 (FIPS 180-4), written here because Foundation on Linux has no hash functions.
///
/// ```swift
/// SHA256Hash.hexDigest(Array("abc".utf8))
/// // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// var h = SHA256Hash(); h.update(part1); h.update(part2); let digest = h.finalize()
/// ```
package struct SHA256Hash: Sendable {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    /// Bytes of a partial block waiting for more input.
    private var pending: [UInt8] = []
    private var totalBytes: UInt64 = 0

    package init() {}

    /// Adds bytes to the message.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        totalBytes &+= UInt64(bytes.count)
        var i = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            i = take
            if pending.count == 64 {
                let block = pending
                block.withUnsafeBytes { raw in
                    if let b = raw.baseAddress { compress(b) }
                }
                pending.removeAll(keepingCapacity: true)
            }
        }
        guard let base = bytes.baseAddress else { return }
        while bytes.count - i >= 64 {
            compress(base + i)
            i += 64
        }
        if i < bytes.count { pending.append(contentsOf: bytes[i...]) }
    }

    /// Adds bytes to the message.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest of everything added (the value itself is left unchanged).
    package func finalize() -> [UInt8] {
        var copy = self
        let bitLength = totalBytes &* 8
        var tail: [UInt8] = [0x80]
        let used = (pending.count + 1) % 64
        tail += [UInt8](repeating: 0, count: used <= 56 ? 56 - used : 120 - used)
        for s in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(s))) }
        let total = copy.totalBytes
        copy.update(tail)
        copy.totalBytes = total
        let words = [copy.h.0, copy.h.1, copy.h.2, copy.h.3, copy.h.4, copy.h.5, copy.h.6, copy.h.7]
        return words.flatMap { w in [UInt8(w >> 24), UInt8((w >> 16) & 0xFF), UInt8((w >> 8) & 0xFF), UInt8(w & 0xFF)] }
    }

    /// The digest of `bytes`.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var s = SHA256Hash(); s.update(bytes); return s.finalize()
    }

    /// The digest of `bytes` as 64 lowercase hex digits.
    package static func hexDigest(_ bytes: [UInt8]) -> String {
        hex(hash(bytes))
    }

    /// The digest so far as 64 lowercase hex digits.
    package var hexDigest: String { SHA256Hash.hex(finalize()) }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    @inline(__always) private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    private mutating func compress(_ block: UnsafeRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { m in
            for t in 0..<16 { m[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * t, as: UInt32.self)) }
            for t in 16..<64 {
                let s0 = SHA256Hash.rotr(m[t - 15], 7) ^ SHA256Hash.rotr(m[t - 15], 18) ^ (m[t - 15] >> 3)
                let s1 = SHA256Hash.rotr(m[t - 2], 17) ^ SHA256Hash.rotr(m[t - 2], 19) ^ (m[t - 2] >> 10)
                m[t] = m[t - 16] &+ s0 &+ m[t - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = h
            SHA256Hash.k.withUnsafeBufferPointer { k in
                for t in 0..<64 {
                    let s1 = SHA256Hash.rotr(e, 6) ^ SHA256Hash.rotr(e, 11) ^ SHA256Hash.rotr(e, 25)
                    let ch = (e & f) ^ (~e & g)
                    let t1 = hh &+ s1 &+ ch &+ k[t] &+ m[t]
                    let s0 = SHA256Hash.rotr(a, 2) ^ SHA256Hash.rotr(a, 13) ^ SHA256Hash.rotr(a, 22)
                    let maj = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ maj
                    hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
                }
            }
            h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e, h.5 &+ f, h.6 &+ g, h.7 &+ hh)
        }
    }
}
