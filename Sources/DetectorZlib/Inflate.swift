#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Raw DEFLATE decompression (RFC 1951): stored, fixed-Huffman and dynamic-Huffman blocks.
///
/// Every length and distance is checked against the input and the output produced so far,
/// and the output never grows beyond `maxOutputSize`, so hostile input ends in an
/// `InflateError`, never a trap or an unbounded allocation.
///
/// ```swift
/// let data = try Inflate.decompressRaw(deflatedBytes, maxOutputSize: 1 << 20)
/// ```
package enum Inflate {
    /// Decompresses a raw DEFLATE stream (no zlib or gzip wrapper). Bytes after the final
    /// block are ignored.
    /// - Parameter maxOutputSize: the largest output accepted; more throws `InflateError.outputLimitExceeded`.
    package static func decompressRaw(_ bytes: [UInt8], maxOutputSize: Int) throws(InflateError) -> [UInt8] {
        try decompressRaw(bytes, maxOutputSize: maxOutputSize, expectedSize: nil).output
    }

    /// Decompresses a raw DEFLATE stream held in memory the caller owns (e.g. a slice of a mapped file).
    package static func decompressRaw(_ bytes: UnsafeRawBufferPointer, maxOutputSize: Int) throws(InflateError) -> [UInt8] {
        try decompressRaw(bytes, maxOutputSize: maxOutputSize, expectedSize: nil).output
    }

    /// Decompresses a raw DEFLATE stream held in part of a larger array (e.g. a ZIP entry).
    package static func decompressRaw(_ bytes: ArraySlice<UInt8>, maxOutputSize: Int) throws(InflateError) -> [UInt8] {
        var result: Result<[UInt8], InflateError> = .failure(.truncated(byteOffset: 0))
        bytes.withUnsafeBytes { raw in
            result = Result { () throws(InflateError) in try decompressRaw(raw, maxOutputSize: maxOutputSize) }
        }
        return try result.get()
    }

    /// Decompresses and also reports how many input bytes the stream used (up to the byte
    /// holding the last bit of the final block). `expectedSize` only sizes the first allocation.
    package static func decompressRaw(_ bytes: [UInt8], maxOutputSize: Int,
                              expectedSize: Int?) throws(InflateError) -> (output: [UInt8], consumed: Int) {
        var result: Result<(output: [UInt8], consumed: Int), InflateError> = .failure(.truncated(byteOffset: 0))
        bytes.withUnsafeBytes { raw in
            result = Result { () throws(InflateError) in
                try decompressRaw(raw, maxOutputSize: maxOutputSize, expectedSize: expectedSize)
            }
        }
        return try result.get()
    }

    package static func decompressRaw(_ bytes: UnsafeRawBufferPointer, maxOutputSize: Int,
                              expectedSize: Int?) throws(InflateError) -> (output: [UInt8], consumed: Int) {
        // A size the container claims is trusted only as far as the input could expand to it,
        // so a tiny stream claiming a huge size does not reserve that memory up front.
        let reachable = bytes.count.multipliedReportingOverflow(by: maxExpansion).partialValue
        let guess = min(expectedSize ?? bytes.count.multipliedReportingOverflow(by: 4).partialValue, reachable)
        var inflater = Inflater(input: bytes, limit: max(0, maxOutputSize), initialCapacity: guess)
        defer { inflater.releaseOutput() }
        try inflater.run()
        return (inflater.takeOutput(), inflater.consumedBytes)
    }

    /// The most output one input byte can give: a 1-bit length-258 code and a 1-bit distance
    /// code make 258 bytes from 2 bits, 1032 a byte.
    static let maxExpansion = 1032

    static let fixedLiteralTable: HuffmanDecodeTable? =
        try? HuffmanDecodeTable(lengths: DeflateTables.fixedLiteralLengths, allowSingleCode: false)
    static let fixedDistanceTable: HuffmanDecodeTable? =
        try? HuffmanDecodeTable(lengths: DeflateTables.fixedDistanceLengths, allowSingleCode: false)
}

/// The decoder's state: input cursor, bit buffer and the growing output. The output lives in
/// `malloc` memory grown with `realloc`, which moves large blocks by remapping pages rather than
/// copying, so a stream that runs to its limit peaks near the limit, not 1.5 times it.
struct Inflater {
    private let input: UnsafePointer<UInt8>?
    private let inputCount: Int
    /// Next input byte to load into the bit buffer.
    private var pos = 0
    /// Bits not yet consumed, least significant first. Bits above `bitCount` are either zero
    /// or copies of the input bytes at `pos...` and are never used before being loaded again.
    private var bitBuffer: UInt64 = 0
    private var bitCount = 0

    private let limit: Int
    private var out: UnsafeMutablePointer<UInt8>
    /// Usable capacity; the allocation has `slack` more bytes so match copies can overshoot.
    private var capacity: Int
    private var outCount = 0
    private static let slack = 16

    init(input: UnsafeRawBufferPointer, limit: Int, initialCapacity: Int) {
        self.input = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        self.inputCount = input.count
        self.limit = limit
        let cap = min(limit, max(1024, initialCapacity))
        if let memory = malloc(cap + Inflater.slack) {
            self.capacity = cap
            self.out = memory.assumingMemoryBound(to: UInt8.self)
        } else {
            // No memory for the guess: start small; `grow` reports a failure as the limit.
            self.capacity = 0
            self.out = UnsafeMutablePointer<UInt8>.allocate(capacity: Inflater.slack)
            self.ownsMalloc = false
        }
    }

    /// False while `out` is the small Swift allocation made when `malloc` failed.
    private var ownsMalloc = true

    /// Frees the output buffer; the inflater is not used after this (its last call, in a `defer`).
    /// Nothing is allocated again here (a buffer made after the free leaked 16 bytes per call,
    /// found by LeakSanitizer while fuzzing).
    mutating func releaseOutput() {
        if ownsMalloc { free(out) } else { out.deallocate() }
        capacity = 0
        outCount = 0
    }

    func takeOutput() -> [UInt8] {
        Array(UnsafeBufferPointer(start: out, count: outCount))
    }

    /// Input bytes used, counting the partly used last byte.
    var consumedBytes: Int { pos - bitCount / 8 }

    /// Byte offset of the next unread bit, for error messages.
    private var offset: Int { pos - (bitCount + 7) / 8 }

    // MARK: bits

    @inline(__always)
    private mutating func refill() {
        if pos + 8 <= inputCount, let input {
            let word = UInt64(littleEndian: UnsafeRawPointer(input + pos).loadUnaligned(as: UInt64.self))
            bitBuffer |= word << UInt64(bitCount)
            pos += (63 - bitCount) >> 3
            bitCount |= 56
        } else {
            refillSlow()
        }
    }

    @inline(never)
    private mutating func refillSlow() {
        guard let input else { return }
        while bitCount <= 56 && pos < inputCount {
            bitBuffer |= UInt64(input[pos]) << UInt64(bitCount)
            pos += 1
            bitCount += 8
        }
    }

    @inline(__always)
    private mutating func bits(_ n: Int) throws(InflateError) -> Int {
        if bitCount < n {
            refill()
            if bitCount < n { throw .truncated(byteOffset: inputCount) }
        }
        let v = Int(truncatingIfNeeded: bitBuffer & ((1 << UInt64(n)) &- 1))
        bitBuffer >>= UInt64(n)
        bitCount -= n
        return v
    }

    private mutating func decodeSymbol(_ table: HuffmanDecodeTable) throws(InflateError) -> Int {
        if bitCount < 15 { refill() }
        var e = Int(table.fast[Int(bitBuffer & HuffmanDecodeTable.fastMask)])
        if e == 0 {
            e = table.slowDecode(bitBuffer)
            if e == 0 { throw bitCount < 15 ? .truncated(byteOffset: inputCount) : .invalidCode(byteOffset: offset) }
        }
        let len = e & 15
        if len > bitCount { throw .truncated(byteOffset: inputCount) }
        bitBuffer >>= UInt64(len)
        bitCount -= len
        return e >> 4
    }

    // MARK: blocks

    mutating func run() throws(InflateError) {
        var final = false
        while !final {
            final = try bits(1) == 1
            let type = try bits(2)
            switch type {
            case 0: try storedBlock()
            case 1:
                guard let lit = Inflate.fixedLiteralTable, let dist = Inflate.fixedDistanceTable else {
                    throw .invalidCode(byteOffset: offset)
                }
                try huffmanBlock(lit, dist)
            case 2:
                let (lit, dist) = try dynamicTables()
                try huffmanBlock(lit, dist)
            default:
                throw .invalidBlockType(byteOffset: offset)
            }
        }
        // Drop the unused bits of the last byte; the rest of the bit buffer goes back to the input.
        let drop = bitCount & 7
        bitBuffer >>= UInt64(drop)
        bitCount -= drop
    }

    private mutating func storedBlock() throws(InflateError) {
        let drop = bitCount & 7
        bitBuffer >>= UInt64(drop)
        bitCount -= drop
        // Give whole buffered bytes back and read the block straight from the input.
        pos -= bitCount / 8
        bitBuffer = 0
        bitCount = 0
        let headerOffset = pos
        guard let input, pos + 4 <= inputCount else { throw .truncated(byteOffset: inputCount) }
        let len = Int(input[pos]) | Int(input[pos + 1]) << 8
        let nlen = Int(input[pos + 2]) | Int(input[pos + 3]) << 8
        guard len == (~nlen & 0xFFFF) else {
            throw .storedLengthMismatch(byteOffset: headerOffset, length: len, complement: nlen)
        }
        pos += 4
        guard len <= inputCount - pos else { throw .truncated(byteOffset: inputCount) }
        try reserve(len)
        (out + outCount).update(from: input + pos, count: len)
        outCount += len
        pos += len
    }

    private mutating func dynamicTables() throws(InflateError) -> (HuffmanDecodeTable, HuffmanDecodeTable) {
        let headerOffset = offset
        let hlit = try bits(5) + 257
        let hdist = try bits(5) + 1
        let hclen = try bits(4) + 4
        guard hlit <= 286 else { throw .invalidCodeLengths(byteOffset: headerOffset, reason: "\(hlit) literal/length codes (at most 286)") }
        guard hdist <= 30 else { throw .invalidCodeLengths(byteOffset: headerOffset, reason: "\(hdist) distance codes (at most 30)") }
        var clLengths = [UInt8](repeating: 0, count: 19)
        for i in 0..<hclen { clLengths[DeflateTables.codeLengthOrder[i]] = UInt8(try bits(3)) }
        let clTable: HuffmanDecodeTable
        do {
            clTable = try HuffmanDecodeTable(lengths: clLengths, allowSingleCode: false)
        } catch {
            throw .invalidCodeLengths(byteOffset: headerOffset, reason: "the code-length code is \(Inflater.describe(error))")
        }
        let total = hlit + hdist
        var lengths = [UInt8](repeating: 0, count: total)
        var i = 0
        while i < total {
            let symbol = try decodeSymbol(clTable)
            if symbol < 16 {
                lengths[i] = UInt8(symbol)
                i += 1
                continue
            }
            var repeatValue: UInt8 = 0
            let count: Int
            switch symbol {
            case 16:
                guard i > 0 else { throw .invalidCodeLengths(byteOffset: offset, reason: "repeat code 16 with no previous length") }
                repeatValue = lengths[i - 1]
                count = 3 + (try bits(2))
            case 17: count = 3 + (try bits(3))
            default: count = 11 + (try bits(7))
            }
            guard count <= total - i else {
                throw .invalidCodeLengths(byteOffset: offset, reason: "a repeat runs past the \(total) code lengths")
            }
            for k in i..<(i + count) { lengths[k] = repeatValue }
            i += count
        }
        guard lengths[256] != 0 else {
            throw .invalidCodeLengths(byteOffset: headerOffset, reason: "the end-of-block symbol has no code")
        }
        let lit: HuffmanDecodeTable
        let dist: HuffmanDecodeTable
        do {
            lit = try HuffmanDecodeTable(lengths: Array(lengths[0..<hlit]), allowSingleCode: true)
        } catch {
            throw .invalidCodeLengths(byteOffset: headerOffset, reason: "the literal/length code is \(Inflater.describe(error))")
        }
        do {
            dist = try HuffmanDecodeTable(lengths: Array(lengths[hlit...]), allowSingleCode: true)
        } catch {
            throw .invalidCodeLengths(byteOffset: headerOffset, reason: "the distance code is \(Inflater.describe(error))")
        }
        return (lit, dist)
    }

    private static func describe(_ problem: HuffmanDecodeTable.BuildProblem) -> String {
        switch problem {
        case .overSubscribed: return "over-subscribed"
        case .incomplete: return "incomplete"
        case .empty: return "empty"
        }
    }

    /// Makes room for `extra` more output bytes, growing up to the limit.
    @inline(__always)
    private mutating func reserve(_ extra: Int) throws(InflateError) {
        if extra > capacity - outCount { try grow(extra) }
    }

    @inline(never)
    private mutating func grow(_ extra: Int) throws(InflateError) {
        let (needed, o) = outCount.addingReportingOverflow(extra)
        guard !o, needed <= limit else { throw .outputLimitExceeded(limit: limit) }
        let doubled = capacity > limit / 2 ? limit : max(1024, capacity * 2)
        let newCapacity = max(needed, doubled)
        if ownsMalloc {
            guard let moved = realloc(out, newCapacity + Inflater.slack) else { throw .outputLimitExceeded(limit: capacity) }
            out = moved.assumingMemoryBound(to: UInt8.self)
        } else {
            guard let fresh = malloc(newCapacity + Inflater.slack) else { throw .outputLimitExceeded(limit: capacity) }
            let newOut = fresh.assumingMemoryBound(to: UInt8.self)
            newOut.update(from: out, count: outCount)
            out.deallocate()
            out = newOut
            ownsMalloc = true
        }
        capacity = newCapacity
    }

    /// Decodes one fixed or dynamic Huffman block. The hot loop keeps the bit buffer and output
    /// cursor in locals and stores them back on every exit.
    private mutating func huffmanBlock(_ lit: HuffmanDecodeTable, _ dist: HuffmanDecodeTable) throws(InflateError) {
        var result: InflateError? = nil
        lit.fast.withUnsafeBufferPointer { litFast in
            dist.fast.withUnsafeBufferPointer { distFast in
                DeflateTables.lengthBase.withUnsafeBufferPointer { lengthBase in
                    DeflateTables.distanceBase.withUnsafeBufferPointer { distanceBase in
                        do throws(InflateError) {
                            try huffmanLoop(lit, dist, litFast, distFast, lengthBase, distanceBase)
                        } catch {
                            result = error
                        }
                    }
                }
            }
        }
        if let result { throw result }
    }

    /// The hot loop. Bit buffer, input cursor and output cursor live in locals (registers)
    /// and are written back to `self` on every exit, including errors, and around `grow`.
    @inline(__always)
    private mutating func huffmanLoop(_ lit: HuffmanDecodeTable, _ dist: HuffmanDecodeTable,
                                      _ litFast: UnsafeBufferPointer<UInt16>, _ distFast: UnsafeBufferPointer<UInt16>,
                                      _ lengthBase: UnsafeBufferPointer<UInt16>,
                                      _ distanceBase: UnsafeBufferPointer<UInt16>) throws(InflateError) {
        let mask = HuffmanDecodeTable.fastMask
        guard let input else { throw .truncated(byteOffset: 0) }
        let inputCount = self.inputCount
        var bb = bitBuffer
        var bc = bitCount
        var p = pos
        var o = out
        var oc = outCount
        var cap = capacity
        defer {
            bitBuffer = bb
            bitCount = bc
            pos = p
            outCount = oc
        }

        @inline(__always) func refillLocal() {
            if p + 8 <= inputCount {
                let word = UInt64(littleEndian: UnsafeRawPointer(input + p).loadUnaligned(as: UInt64.self))
                bb |= word << UInt64(bc)
                p += (63 - bc) >> 3
                bc |= 56
            } else {
                while bc <= 56 && p < inputCount {
                    bb |= UInt64(input[p]) << UInt64(bc)
                    p += 1
                    bc += 8
                }
            }
        }
        func offsetNow() -> Int { p - (bc + 7) / 8 }

        while true {
            if bc < 48 { refillLocal() }
            var e = Int(litFast[Int(bb & mask)])
            if e == 0 {
                e = lit.slowDecode(bb)
                if e == 0 { throw bc < 15 ? .truncated(byteOffset: inputCount) : .invalidCode(byteOffset: offsetNow()) }
            }
            var len = e & 15
            if len > bc { throw .truncated(byteOffset: inputCount) }
            bb >>= UInt64(len)
            bc -= len
            let symbol = e >> 4
            if symbol < 256 {
                if oc >= cap {
                    outCount = oc
                    try grow(1)
                    o = out
                    cap = capacity
                }
                o[oc] = UInt8(truncatingIfNeeded: symbol)
                oc += 1
                continue
            }
            if symbol == 256 { return }
            let li = symbol - 257
            guard li < 29 else { throw .invalidCode(byteOffset: offsetNow()) }
            var length = Int(lengthBase[li])
            // Extra bits: 0 for codes 257...264 and 285, else (li - 4) / 4.
            let lengthExtra = (li < 8 || li == 28) ? 0 : (li - 4) >> 2
            if lengthExtra > 0 {
                if lengthExtra > bc { throw .truncated(byteOffset: inputCount) }
                length += Int(truncatingIfNeeded: bb & ((1 << UInt64(lengthExtra)) - 1))
                bb >>= UInt64(lengthExtra)
                bc -= lengthExtra
            }
            if bc < 28 { refillLocal() }
            e = Int(distFast[Int(bb & mask)])
            if e == 0 {
                e = dist.slowDecode(bb)
                if e == 0 { throw bc < 15 ? .truncated(byteOffset: inputCount) : .invalidCode(byteOffset: offsetNow()) }
            }
            len = e & 15
            if len > bc { throw .truncated(byteOffset: inputCount) }
            bb >>= UInt64(len)
            bc -= len
            let di = e >> 4
            guard di < 30 else { throw .invalidCode(byteOffset: offsetNow()) }
            var distance = Int(distanceBase[di])
            let distanceExtra = di < 4 ? 0 : (di - 2) >> 1
            if distanceExtra > 0 {
                if distanceExtra > bc { throw .truncated(byteOffset: inputCount) }
                distance += Int(truncatingIfNeeded: bb & ((1 << UInt64(distanceExtra)) - 1))
                bb >>= UInt64(distanceExtra)
                bc -= distanceExtra
            }
            guard distance <= oc else {
                throw .distanceTooFar(byteOffset: offsetNow(), distance: distance, available: oc)
            }
            if length > cap - oc {
                outCount = oc
                try grow(length)
                o = out
                cap = capacity
            }
            let dst = o + oc
            let src = dst - distance
            if distance >= 8 {
                // Chunks of 8 never read bytes this copy has not written yet; may overshoot into the slack.
                var k = 0
                while k < length {
                    UnsafeMutableRawPointer(dst + k).storeBytes(
                        of: UnsafeRawPointer(src + k).loadUnaligned(as: UInt64.self), as: UInt64.self)
                    k += 8
                }
            } else if distance == 1 {
                dst.update(repeating: src.pointee, count: length)
            } else {
                for k in 0..<length { dst[k] = src[k] }
            }
            oc += length
        }
    }
}
