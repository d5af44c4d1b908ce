/// A canonical Huffman code prepared for decoding DEFLATE's least-significant-bit-first streams.
///
/// `fast` is indexed by the next `fastBits` input bits; an entry holds `symbol << 4 | length`
/// for codes up to `fastBits` long, and 0 for longer codes (decoded by the canonical
/// `slowDecode`) or for bit patterns that are no code at all.
struct HuffmanDecodeTable {
    static let fastBits = 10
    static let fastMask: UInt64 = (1 << 10) - 1

    var fast: [UInt16]
    /// Number of codes of each length 0...15.
    var counts: [UInt16]
    /// Symbols sorted by (code length, symbol value), as canonical decoding needs.
    var sortedSymbols: [UInt16]

    enum BuildProblem: Error { case overSubscribed, incomplete, empty }

    /// Builds the table from per-symbol code lengths (0 = symbol unused).
    /// - Parameter allowSingleCode: accept a code with only one symbol (of length 1), which
    ///   DEFLATE permits for the literal/length and distance codes; any other incomplete code is refused.
    init(lengths: [UInt8], allowSingleCode: Bool) throws(BuildProblem) {
        var counts = [UInt16](repeating: 0, count: 16)
        for l in lengths { counts[Int(l & 15)] += 1 }
        counts[0] = 0
        var left = 1
        var used = 0
        for len in 1...15 {
            left <<= 1
            left -= Int(counts[len])
            used += Int(counts[len])
            if left < 0 { throw .overSubscribed }
        }
        if left > 0 {
            // Incomplete: DEFLATE allows a distance code with no codes at all, and a single code of 1 bit.
            if used == 0 {
                if !allowSingleCode { throw .empty }
            } else if !(allowSingleCode && used == 1 && counts[1] == 1) {
                throw .incomplete
            }
        }
        var offsets = [Int](repeating: 0, count: 16)
        for len in 1..<15 { offsets[len + 1] = offsets[len] + Int(counts[len]) }
        var sorted = [UInt16](repeating: 0, count: used)
        var nextCode = [Int](repeating: 0, count: 16)
        var code = 0
        for len in 1...15 {
            code = (code + Int(counts[len - 1])) << 1
            nextCode[len] = code
        }
        var fast = [UInt16](repeating: 0, count: 1 << HuffmanDecodeTable.fastBits)
        for (symbol, l) in lengths.enumerated() where l > 0 {
            let len = Int(l)
            sorted[offsets[len]] = UInt16(symbol)
            offsets[len] += 1
            let c = nextCode[len]
            nextCode[len] += 1
            guard len <= HuffmanDecodeTable.fastBits else { continue }
            // Reverse the code's bits: DEFLATE sends Huffman codes most significant bit first.
            var reversed = 0
            var v = c
            for _ in 0..<len { reversed = (reversed << 1) | (v & 1); v >>= 1 }
            let entry = UInt16(symbol << 4 | len)
            var i = reversed
            while i < fast.count { fast[i] = entry; i += 1 << len }
        }
        self.fast = fast
        self.counts = counts
        self.sortedSymbols = sorted
    }

    /// Canonical decoding, one bit at a time, of the code at the bottom of `bits`.
    /// Returns `symbol << 4 | length`, or 0 when `bits` start no code.
    @inline(never)
    func slowDecode(_ bits: UInt64) -> Int {
        var code = 0, first = 0, index = 0
        var b = bits
        for len in 1...15 {
            code |= Int(b & 1)
            b >>= 1
            let count = Int(counts[len])
            if code - first < count { return Int(sortedSymbols[index + code - first]) << 4 | len }
            index += count
            first = (first + count) << 1
            code <<= 1
        }
        return 0
    }
}
