/// Packs bits least-significant first into bytes, as DEFLATE streams are written.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var buffer: UInt64 = 0
    private var count = 0

    init(reservingCapacity capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// Appends the low `n` bits of `value` (n ≤ 32).
    @inline(__always)
    mutating func write(_ value: Int, _ n: Int) {
        buffer |= UInt64(truncatingIfNeeded: value & ((1 << n) - 1)) << UInt64(count)
        count += n
        if count >= 32 {
            bytes.append(UInt8(truncatingIfNeeded: buffer))
            bytes.append(UInt8(truncatingIfNeeded: buffer >> 8))
            bytes.append(UInt8(truncatingIfNeeded: buffer >> 16))
            bytes.append(UInt8(truncatingIfNeeded: buffer >> 24))
            buffer >>= 32
            count -= 32
        }
    }

    /// Pads with zero bits to the next byte boundary and flushes the bit buffer.
    mutating func alignToByte() {
        while count > 0 {
            bytes.append(UInt8(truncatingIfNeeded: buffer))
            buffer >>= 8
            count = max(0, count - 8)
        }
        buffer = 0
        count = 0
    }

    /// Takes the bits not yet written out (fewer than 32), leaving none pending: a compressor's
    /// fast loop continues them in its own buffer and gives the rest back with `append(_:bits:count:)`.
    mutating func takeBits() -> (bits: UInt64, count: Int) {
        defer { buffer = 0; count = 0 }
        return (buffer, count)
    }

    /// Appends whole bytes that continue the bits `takeBits` returned, then leaves `count` (< 32)
    /// bits pending (the low bits of `bits`; the bits above them must be zero).
    mutating func append(_ raw: ArraySlice<UInt8>, bits: UInt64, count: Int) {
        bytes.append(contentsOf: raw)
        buffer = bits
        self.count = count
    }

    /// Appends whole bytes (only after `alignToByte`).
    mutating func append<C: Collection>(contentsOf raw: C) where C.Element == UInt8 {
        bytes.append(contentsOf: raw)
    }
}
