extension Deflate {
    /// Raw DEFLATE for speed (zlib's `Z_RLE` strategy): a run of 4 or more bytes equal to the byte
    /// before them becomes a distance-1 match, every other byte a literal; each block of up to
    /// 65,536 symbols gets its own dynamic Huffman code (or is stored, if that is smaller).
    /// Filtered image rows, whose flat areas are runs of zeros, compress almost as well as with
    /// LZ77 at a fraction of the time.
    ///
    /// ```swift
    /// let packed = Deflate.compressRuns(filteredRows)
    /// let same = try Inflate.decompressRaw(packed, maxOutputSize: filteredRows.count)
    /// ```
    package static func compressRuns(_ bytes: [UInt8]) -> [UInt8] {
        var writer = BitWriter(reservingCapacity: bytes.count / 2 + 64)
        if bytes.isEmpty {
            writeStored(bytes, 0..<0, final: true, &writer)
        } else {
            var encoder = RunLengthEncoder()
            encoder.run(bytes, &writer)
        }
        writer.alignToByte()
        return writer.bytes
    }
}

/// The block loop behind `Deflate.compressRuns`: scan a block into symbols and their counts,
/// then write it with a Huffman code made for it.
struct RunLengthEncoder {
    static let blockSymbols = 1 << 16
    /// Four counts per literal/length symbol (one table per position mod 4, added up per block),
    /// so a run of literals of one value does not wait on a single counter.
    private var counts = [Int](repeating: 0, count: 4 * 286)
    /// The block's symbols: a literal byte (0...255) or 256 + a run length (3...258).
    private var symbols = [UInt16](repeating: 0, count: RunLengthEncoder.blockSymbols)
    private var scratch: [UInt8] = []

    mutating func run(_ input: [UInt8], _ w: inout BitWriter) {
        var position = 0
        while position < input.count {
            let start = position
            let (end, count, extraBits) = scanBlock(input, from: start)
            position = end
            writeBlock(input, start..<end, symbolCount: count, extraBits: extraBits, final: end >= input.count, &w)
        }
    }

    /// Symbols from `start` until the input or the block is full: (where the block ends, its
    /// symbol count, the extra bits of its run lengths).
    private mutating func scanBlock(_ input: [UInt8], from start: Int) -> (end: Int, count: Int, extraBits: Int) {
        for k in counts.indices { counts[k] = 0 }
        let n = input.count
        var result = (end: start, count: 0, extraBits: 0)
        input.withUnsafeBufferPointer { src in
            symbols.withUnsafeMutableBufferPointer { sym in
                counts.withUnsafeMutableBufferPointer { histogram in
                    DeflateTables.lengthSymbolIndex.withUnsafeBufferPointer { lengthSymbol in
                        guard let base = src.baseAddress, let h = histogram.baseAddress else { return }
                        // Locals, not the captured tuple, so the loop keeps them in registers.
                        var i = start, count = 0, extraBits = 0
                        let limit = sym.count
                        while i < n && count < limit {
                            let b = base[i]
                            if i > 0 && i + 4 <= n
                                && UnsafeRawPointer(base + i).loadUnaligned(as: UInt32.self) == UInt32(base[i - 1]) &* 0x0101_0101 {
                                // The next 4 bytes repeat the one before: measure the run (at most 258).
                                let maxLength = min(258, n - i)
                                let pattern = UInt64(b) &* 0x0101_0101_0101_0101
                                var length = 4
                                while length + 8 <= maxLength {
                                    let word = UnsafeRawPointer(base + i + length).loadUnaligned(as: UInt64.self)
                                    if word != pattern { length += (word ^ pattern).trailingZeroBitCount >> 3; break }
                                    length += 8
                                }
                                if length + 8 > maxLength { while length < maxLength && base[i + length] == b { length += 1 } }
                                length = min(length, maxLength)
                                let code = Int(lengthSymbol[length - 3])
                                h[257 + code] &+= 1
                                extraBits &+= Int(DeflateTables.lengthExtra[code])
                                sym[count] = UInt16(256 + length)
                                count += 1
                                i += length
                                continue
                            }
                            h[(i & 3) &* 286 &+ Int(b)] &+= 1
                            sym[count] = UInt16(b)
                            count += 1
                            i += 1
                        }
                        result = (i, count, extraBits)
                    }
                }
            }
        }
        return result
    }

    /// Writes the scanned block as a dynamic Huffman block, or stored when that is smaller.
    private mutating func writeBlock(_ input: [UInt8], _ range: Range<Int>, symbolCount: Int, extraBits: Int,
                                     final: Bool, _ w: inout BitWriter) {
        var literalCounts = [Int](repeating: 0, count: 286)
        for table in 0..<4 { for s in 0..<286 { literalCounts[s] += counts[table * 286 + s] } }
        literalCounts[256] += 1
        let runs = literalCounts[257...].reduce(0, +)
        // Every run has distance 1 (distance symbol 0); the code gets a second symbol, so length 1.
        var distanceCounts = [Int](repeating: 0, count: 30)
        distanceCounts[0] = runs
        let literalLengths = HuffmanEncoder.codeLengths(literalCounts, limit: 15)
        let distanceLengths = HuffmanEncoder.codeLengths(distanceCounts, limit: 15)
        let header = DynamicHeader(litLengths: literalLengths, distLengths: distanceLengths)
        var bits = 3 + header.bitCount + extraBits + runs * Int(distanceLengths[0])
        for s in 0..<286 where literalCounts[s] > 0 { bits += literalCounts[s] * Int(literalLengths[s]) }
        let storedBits = (range.count / 65535 + 1) * (3 + 7 + 32) + range.count * 8
        if storedBits <= bits {
            Deflate.writeStored(input, range, final: final, &w)
            return
        }
        w.write(final ? 1 : 0, 1)
        w.write(2, 2)
        header.write(&w)
        let table = Self.symbolTable(literalLengths: literalLengths, distanceLengths: distanceLengths)
        // Room for every bit of the block, the (< 32) bits pending before it and one 8-byte store past the end.
        let capacity = (bits + 31) / 8 + 16
        if scratch.count < capacity { scratch = [UInt8](repeating: 0, count: capacity) }
        let pending = w.takeBits()
        var state = (bits: pending.bits, count: pending.count, bytes: 0)
        scratch.withUnsafeMutableBytes { out in
            table.withUnsafeBufferPointer { entries in
                symbols.withUnsafeBufferPointer { sym in
                    guard let o = out.baseAddress else { return }
                    var acc = pending.bits, filled = pending.count, pos = 0
                    // Branch-free: store 8 bytes, advance by the whole bytes, keep the partial byte's bits.
                    // An entry holds at most 15 + 5 + 1 bits, so `filled` stays below 64.
                    @inline(__always) func put(_ entry: UInt64) {
                        acc |= (entry & 0xFFFF_FFFF_FFFF) &<< UInt64(filled)
                        filled += Int(entry >> 48)
                        o.storeBytes(of: acc.littleEndian, toByteOffset: pos, as: UInt64.self)
                        let whole = filled >> 3
                        pos += whole
                        acc = acc &>> UInt64(whole << 3)
                        filled &= 7
                    }
                    for k in 0..<symbolCount { put(entries[Int(sym[k])]) }
                    put(entries[256])
                    state = (acc, filled, pos)
                }
            }
        }
        w.append(scratch[0..<state.bytes], bits: state.bits, count: state.count)
    }

    /// For each symbol value (0...255 a literal, 256 the end of block, 256 + L a run of length L):
    /// its whole bit string, least significant bit first (a run: length code, extra bits and the
    /// distance-1 code), in the low 48 bits, and the number of bits above them.
    private static func symbolTable(literalLengths: [UInt8], distanceLengths: [UInt8]) -> [UInt64] {
        let literalCodes = HuffmanEncoder.reversedCodes(literalLengths)
        let distanceCodes = HuffmanEncoder.reversedCodes(distanceLengths)
        var table = [UInt64](repeating: 0, count: 256 + 259)
        for s in 0...256 { table[s] = UInt64(literalCodes[s]) | UInt64(literalLengths[s]) << 48 }
        let distanceBits = Int(distanceLengths[0])
        for length in 3...258 {
            let code = Int(DeflateTables.lengthSymbolIndex[length - 3])
            let symbol = 257 + code
            let codeBits = Int(literalLengths[symbol])
            let extra = Int(DeflateTables.lengthExtra[code])
            var entry = UInt64(literalCodes[symbol]) | UInt64(length - Int(DeflateTables.lengthBase[code])) << UInt64(codeBits)
            entry |= UInt64(distanceCodes[0]) << UInt64(codeBits + extra)
            table[256 + length] = entry | UInt64(codeBits + extra + distanceBits) << 48
        }
        return table
    }
}
