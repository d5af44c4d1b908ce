import DetectorZlib
import DetectorPlatform
/// Reads the entropy-coded data of a scan: bytes with `FF 00` stuffing, stopping at the next
/// marker. Bits are kept MSB-first in a 64-bit buffer.
///
/// Past a marker or the end of the file the reader supplies zero bits (as libjpeg does) and
/// counts them in `paddedBits`; `overran` tells whether any were consumed, which a valid
/// stream never does. All reads stay inside `0..<end`.
struct JPEGBitReader {
    let data: UnsafePointer<UInt8>
    let end: Int
    /// Next byte to load; when `reachedMarker` is set it points at the marker's first `FF`.
    var position: Int
    var buffer: UInt64 = 0
    var bitCount: Int = 0
    var paddedBits: Int = 0
    var reachedMarker = false
    var reachedEnd = false

    init(data: UnsafePointer<UInt8>, end: Int, position: Int) {
        self.data = data
        self.end = end
        self.position = position
    }

    /// True when bits beyond the segment (padding) have been consumed.
    var overran: Bool { bitCount < paddedBits }

    /// Fills the buffer to at least 57 of its 64 bits.
    @inline(__always)
    mutating func refill() {
        // Fast path: the next 8 bytes hold no 0xFF (so no stuffing and no marker): take as
        // many whole bytes as fit in one step.
        if !reachedMarker && position &+ 8 <= end {
            let word = UInt64(bigEndian: UnsafeRawPointer(data + position).loadUnaligned(as: UInt64.self))
            let inverted = ~word   // a 0xFF byte of `word` is a zero byte here
            if (inverted &- 0x0101_0101_0101_0101) & ~inverted & 0x8080_8080_8080_8080 == 0 {
                let count = (64 &- bitCount) &>> 3
                buffer |= (word &>> UInt64(64 &- 8 &* count)) &<< UInt64(64 &- bitCount &- 8 &* count)
                bitCount &+= 8 &* count
                position &+= count
                return
            }
        }
        while bitCount <= 56 {
            var byte: UInt64 = 0
            if reachedMarker || reachedEnd {
                paddedBits += 8
            } else if position >= end {
                reachedEnd = true
                paddedBits += 8
            } else {
                let b = data[position]
                if b != 0xFF {
                    byte = UInt64(b)
                    position += 1
                } else {
                    var next = position + 1
                    while next < end && data[next] == 0xFF { next += 1 }
                    if next >= end {
                        reachedEnd = true
                        position = end
                        paddedBits += 8
                    } else if data[next] == 0 {
                        byte = 0xFF
                        position = next + 1
                    } else {
                        reachedMarker = true
                        paddedBits += 8
                    }
                }
            }
            buffer |= byte << UInt64(56 - bitCount)
            bitCount += 8
        }
    }

    /// Decodes one Huffman symbol (0...255). Leaves at least 16 bits in the buffer for the
    /// extra bits that follow.
    @inline(__always)
    mutating func decode(_ table: JPEGHuffmanLookup) throws -> Int {
        if bitCount < 32 { refill() }
        let entry = table.lookup[Int(truncatingIfNeeded: buffer &>> UInt64(64 &- JPEGHuffmanDecoder.lookaheadBits))]
        if entry != 0 {
            let length = Int(entry &>> 8)
            buffer &<<= UInt64(length)
            bitCount &-= length
            return Int(entry & 0xFF)
        }
        var length = JPEGHuffmanDecoder.lookaheadBits + 1
        var code = Int32(truncatingIfNeeded: buffer &>> UInt64(64 - length))
        while code > table.maxCode[length] {
            length &+= 1
            code = Int32(truncatingIfNeeded: buffer &>> UInt64(64 - length))
        }
        guard length <= 16 else {
            throw JPEGError.corruptData(offset: position, reason: "bit pattern is not a code of the Huffman table")
        }
        let index = Int(table.valueOffset[length] &+ code)
        buffer &<<= UInt64(length)
        bitCount &-= length
        return Int(table.values[index & 0xFF])
    }

    /// Decodes one AC coefficient through the table's `fastAC` entries when its code and extra
    /// bits fit in the next `lookaheadBits` bits: returns the entry (`value << 16 | run << 8 | length`, run
    /// `JPEGHuffmanDecoder.endOfBlockRun` for the EOB code) after consuming its bits, or 0
    /// (nothing consumed) when the regular path must run. With a DC table it returns that
    /// table's entries (`difference << 16 | length`, see `JPEGHuffmanDecoder.fastAC`).
    @inline(__always)
    mutating func fastAC(_ table: JPEGHuffmanLookup) -> Int32 {
        if bitCount < 32 { refill() }
        let entry = table.fastAC[Int(truncatingIfNeeded: buffer &>> UInt64(64 &- JPEGHuffmanDecoder.lookaheadBits))]
        if entry != 0 {
            let length = Int(entry & 0xFF)
            buffer &<<= UInt64(length)
            bitCount &-= length
        }
        return entry
    }

    /// Reads `count` (1...16) raw bits as an unsigned number.
    @inline(__always)
    mutating func bits(_ count: Int) -> Int {
        if bitCount < count { refill() }
        let value = Int(truncatingIfNeeded: buffer &>> UInt64(64 - count))
        buffer &<<= UInt64(count)
        bitCount &-= count
        return value
    }

    /// One raw bit.
    @inline(__always)
    mutating func bit() -> Int {
        if bitCount < 1 { refill() }
        let value = Int(truncatingIfNeeded: buffer &>> 63)
        buffer &<<= 1
        bitCount &-= 1
        return value
    }

    /// Reads `size` (0...16) extra bits and sign-extends them (T.81 F.2.2.1 `EXTEND`).
    @inline(__always)
    mutating func receiveExtend(_ size: Int) -> Int {
        if size == 0 { return 0 }
        let value = bits(size)
        return value < (1 &<< (size &- 1)) ? value &- (1 &<< size) &+ 1 : value
    }

    /// Forgets buffered bits and any marker seen, to restart at `position`.
    mutating func reset(at newPosition: Int) {
        position = newPosition
        buffer = 0
        bitCount = 0
        paddedBits = 0
        reachedMarker = false
        reachedEnd = false
    }
}
