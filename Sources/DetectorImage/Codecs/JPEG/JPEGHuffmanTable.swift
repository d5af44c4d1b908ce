import DetectorZlib
import DetectorPlatform
/// A Huffman table as defined by a DHT segment: 16 code-length counts and the symbols.
struct JPEGHuffmanSpec: Equatable {
    /// `counts[l]` codes of length `l + 1`.
    var counts: [Int]
    var symbols: [UInt8]
}

/// A decoding table built from a `JPEGHuffmanSpec` (T.81 Annex C / F.2.2.3), with a 10-bit
/// lookahead table for the common short codes and `maxCode`/`valueOffset` for the rest.
///
/// The memory is owned by the instance and only read during decoding, through raw pointers,
/// so the per-symbol path has no bounds or exclusivity checks. Every index into the tables is
/// bounded by construction (10-bit peeks, lengths 1...16, symbol positions checked at build).
final class JPEGHuffmanDecoder {
    /// 10 rather than 9: bus.jpg decodes 8% faster (more coefficients take the one-lookup
    /// path); 11 gained no more and costs table-building time on small files.
    static let lookaheadBits = 10
    /// The run field of a `fastAC` entry that is the end-of-block code (symbol 0), not a coefficient.
    static let endOfBlockRun = 0xFF

    /// `(length << 8) | symbol` for codes of at most 10 bits, indexed by the next 10 bits; 0 otherwise.
    let lookup: UnsafeMutablePointer<UInt16>
    /// Largest code of each length 1...16 (index = length), -1 when none; index 17 is a sentinel.
    let maxCode: UnsafeMutablePointer<Int32>
    /// `symbolIndex - code` for the codes of each length.
    let valueOffset: UnsafeMutablePointer<Int32>
    /// The symbols, padded to 256 entries.
    let values: UnsafeMutablePointer<UInt8>
    /// For AC coefficients whose code and extra bits together fit in the next 10 bits (`lookaheadBits`):
    /// `(value << 16) | (run << 8) | totalLength`, indexed by the next 10 bits; for the
    /// end-of-block code (symbol 0) `(endOfBlockRun << 8) | length`; 0 otherwise. In a DC table,
    /// the DC difference entries of `buildFastDC` (run 0).
    let fastAC: UnsafeMutablePointer<Int32>

    /// Builds the table, enforcing libjpeg's validity rules: at most 256 symbols and no
    /// length whose codes run out of room (the all-ones code of every length stays unused).
    /// DC tables must only hold categories 0...15.
    init(spec: JPEGHuffmanSpec, isDC: Bool, offset: Int) throws {
        lookup = .allocate(capacity: 1 << JPEGHuffmanDecoder.lookaheadBits)
        lookup.initialize(repeating: 0, count: 1 << JPEGHuffmanDecoder.lookaheadBits)
        maxCode = .allocate(capacity: 18)
        maxCode.initialize(repeating: -1, count: 18)
        valueOffset = .allocate(capacity: 18)
        valueOffset.initialize(repeating: 0, count: 18)
        values = .allocate(capacity: 256)
        values.initialize(repeating: 0, count: 256)
        fastAC = .allocate(capacity: 1 << JPEGHuffmanDecoder.lookaheadBits)
        fastAC.initialize(repeating: 0, count: 1 << JPEGHuffmanDecoder.lookaheadBits)

        let total = spec.counts.reduce(0, +)
        guard spec.counts.count == 16, total <= 256, spec.symbols.count == total else {
            throw JPEGError.malformed(offset: offset, reason: "Huffman table holds \(total) codes (at most 256 allowed)")
        }
        for (i, s) in spec.symbols.enumerated() {
            if isDC && s > 15 {
                throw JPEGError.malformed(offset: offset, reason: "DC Huffman table holds category \(s) (at most 15 allowed)")
            }
            values[i] = s
        }
        var code: Int32 = 0
        var index: Int32 = 0
        var started = false
        for length in 1...16 {
            let n = Int32(spec.counts[length - 1])
            if n > 0 { started = true }
            // libjpeg's rule: after the codes of this length, the next free code must still fit in
            // `length` bits. Checked before filling, so every lookup index below stays in range.
            if started && code + n >= (Int32(1) << Int32(length)) {
                throw JPEGError.malformed(offset: offset, reason: "Huffman table code lengths oversubscribe length \(length): not a prefix code")
            }
            if n > 0 {
                valueOffset[length] = index - code
                // Fill the lookahead entries for short codes.
                if length <= JPEGHuffmanDecoder.lookaheadBits {
                    let shift = JPEGHuffmanDecoder.lookaheadBits - length
                    for c in 0..<n {
                        let symbol = UInt16(spec.symbols[Int(index + c)])
                        let first = Int(code + c) << shift
                        for j in 0..<(1 << shift) {
                            lookup[first + j] = UInt16(length << 8) | symbol
                        }
                    }
                }
                code += n
                index += n
                maxCode[length] = code - 1
            }
            code <<= 1
        }
        maxCode[17] = Int32.max   // sentinel: the slow path stops at 17 and reports a bad code
        if isDC { buildFastDC() } else { buildFastAC() }
    }

    /// DC tables: `fastAC` holds `(difference << 16) | totalLength` for category codes whose
    /// extra bits fit in the lookahead too (category 0: difference 0, just the code length),
    /// so a block's DC difference is one lookup, as its AC coefficients are.
    private func buildFastDC() {
        let bits = JPEGHuffmanDecoder.lookaheadBits
        for index in 0..<(1 << bits) {
            let entry = Int(lookup[index])
            guard entry != 0 else { continue }
            let length = entry >> 8, size = entry & 0xFF   // DC symbols are categories 0...15
            guard length + size <= bits else { continue }
            var value = 0
            if size != 0 {
                let extra = (index >> (bits - length - size)) & ((1 << size) - 1)
                value = extra < (1 << (size - 1)) ? extra - (1 << size) + 1 : extra
            }
            fastAC[index] = Int32(value << 16 | (length + size))
        }
    }

    private func buildFastAC() {
        let bits = JPEGHuffmanDecoder.lookaheadBits
        for index in 0..<(1 << bits) {
            let entry = Int(lookup[index])
            guard entry != 0 else { continue }
            let length = entry >> 8, symbol = entry & 0xFF
            let run = symbol >> 4, size = symbol & 15
            if symbol == 0 {
                fastAC[index] = Int32(Self.endOfBlockRun << 8 | length)   // EOB: value 0, run marker
                continue
            }
            guard size != 0, length + size <= bits else { continue }
            let extra = (index >> (bits - length - size)) & ((1 << size) - 1)
            let value = extra < (1 << (size - 1)) ? extra - (1 << size) + 1 : extra
            fastAC[index] = Int32(value << 16 | run << 8 | (length + size))
        }
    }

    /// An empty table: every lookup misses and every code is invalid. Stands in for tables a
    /// scan does not use.
    init() {
        lookup = .allocate(capacity: 1 << JPEGHuffmanDecoder.lookaheadBits)
        lookup.initialize(repeating: 0, count: 1 << JPEGHuffmanDecoder.lookaheadBits)
        maxCode = .allocate(capacity: 18)
        maxCode.initialize(repeating: -1, count: 18)
        maxCode[17] = Int32.max
        valueOffset = .allocate(capacity: 18)
        valueOffset.initialize(repeating: 0, count: 18)
        values = .allocate(capacity: 256)
        values.initialize(repeating: 0, count: 256)
        fastAC = .allocate(capacity: 1 << JPEGHuffmanDecoder.lookaheadBits)
        fastAC.initialize(repeating: 0, count: 1 << JPEGHuffmanDecoder.lookaheadBits)
    }

    /// The raw table pointers, for the per-symbol path (no reference counting). Valid while
    /// this object lives.
    var pointers: JPEGHuffmanLookup {
        JPEGHuffmanLookup(lookup: lookup, maxCode: maxCode, valueOffset: valueOffset, values: values, fastAC: fastAC)
    }

    deinit {
        lookup.deallocate()
        maxCode.deallocate()
        valueOffset.deallocate()
        values.deallocate()
        fastAC.deallocate()
    }
}

/// The tables of a `JPEGHuffmanDecoder` as plain pointers (a trivial value: copying it costs
/// no reference counting). Only valid while the owning decoder is alive.
struct JPEGHuffmanLookup {
    let lookup: UnsafeMutablePointer<UInt16>
    let maxCode: UnsafeMutablePointer<Int32>
    let valueOffset: UnsafeMutablePointer<Int32>
    let values: UnsafeMutablePointer<UInt8>
    let fastAC: UnsafeMutablePointer<Int32>
}
