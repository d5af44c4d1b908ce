/// Raw DEFLATE compression (RFC 1951): LZ77 over a 32 KiB window with hash chains and lazy
/// matching, then per block the cheapest of a dynamic Huffman, fixed Huffman or stored block.
///
/// ```swift
/// let packed = Deflate.compressRaw(bytes, level: 6)
/// let same = try Inflate.decompressRaw(packed, maxOutputSize: bytes.count)
/// ```
package enum Deflate {
    /// Compresses `bytes`. `level` 0 stores without compression; 1 is fastest; 9 searches hardest.
    package static func compressRaw(_ bytes: [UInt8], level: Int = 6) -> [UInt8] {
        let level = min(9, max(0, level))
        var writer = BitWriter(reservingCapacity: bytes.count / 2 + 64)
        if level == 0 || bytes.isEmpty {
            writeStored(bytes, 0..<bytes.count, final: true, &writer)
            writer.alignToByte()
            return writer.bytes
        }
        var compressor = LZ77Compressor(input: bytes, level: level)
        compressor.run(&writer)
        writer.alignToByte()
        return writer.bytes
    }

    /// Stored blocks (at most 65535 bytes each) for `range` of `bytes`.
    static func writeStored(_ bytes: [UInt8], _ range: Range<Int>, final: Bool, _ w: inout BitWriter) {
        var start = range.lowerBound
        repeat {
            let len = min(65535, range.upperBound - start)
            let last = final && start + len == range.upperBound
            w.write(last ? 1 : 0, 1)
            w.write(0, 2)
            w.alignToByte()
            w.append(contentsOf: [UInt8(len & 0xFF), UInt8(len >> 8), UInt8(~len & 0xFF), UInt8((~len >> 8) & 0xFF)])
            w.append(contentsOf: bytes[start..<(start + len)])
            start += len
        } while start < range.upperBound
    }
}

/// The LZ77 stage and block writer behind `Deflate.compressRaw`.
struct LZ77Compressor {
    private let input: [UInt8]
    /// Hash-chain candidates examined per position.
    private let maxChain: Int
    /// A match this long ends the search.
    private let niceLength: Int
    /// Lazy matching (try the next position too) only for matches shorter than this; 0 = never.
    private let maxLazy: Int
    /// When the current match is already this long, the lazy search looks at a quarter of the chain.
    private let goodLength: Int

    private static let windowSize = 32768
    private static let hashBits = 15
    private static let maxSymbolsPerBlock = 32768

    /// Pending symbols of the current block: literal/length symbol value (0...255 literal,
    /// or the match length 3...258 stored as 256 + length) and the distance (0 for literals).
    private var lengths: [UInt16] = []
    private var distances: [UInt16] = []
    private var blockStart = 0

    init(input: [UInt8], level: Int) {
        self.input = input
        // (good, lazy, nice, chain) per level, the trade-offs zlib's levels are known for.
        let settings: [(Int, Int, Int, Int)] = [(0, 0, 0, 0), (4, 0, 8, 4), (4, 0, 16, 8), (4, 0, 32, 32),
                                                (4, 4, 16, 16), (8, 16, 32, 32), (8, 16, 128, 128),
                                                (8, 32, 128, 256), (32, 128, 258, 1024), (32, 258, 258, 4096)]
        (goodLength, maxLazy, niceLength, maxChain) = settings[level]
        lengths.reserveCapacity(LZ77Compressor.maxSymbolsPerBlock)
        distances.reserveCapacity(LZ77Compressor.maxSymbolsPerBlock)
    }

    mutating func run(_ writer: inout BitWriter) {
        let n = input.count
        var head = [Int32](repeating: -1, count: 1 << LZ77Compressor.hashBits)
        var prev = [Int32](repeating: -1, count: LZ77Compressor.windowSize)
        input.withUnsafeBufferPointer { src in
            head.withUnsafeMutableBufferPointer { head in
                prev.withUnsafeMutableBufferPointer { prev in
                    guard let base = src.baseAddress else { return }
                    @inline(__always) func hash(_ i: Int) -> Int {
                        let v = (UInt32(src[i]) << 16) | (UInt32(src[i + 1]) << 8) | UInt32(src[i + 2])
                        return Int((v &* 2_654_435_761) >> UInt32(32 - LZ77Compressor.hashBits))
                    }
                    @inline(__always) func insert(_ i: Int) {
                        guard i + 2 < n else { return }
                        let h = hash(i)
                        prev[i & (LZ77Compressor.windowSize - 1)] = head[h]
                        head[h] = Int32(i)
                    }
                    /// Longest match for position i among earlier positions (length, distance).
                    func longestMatch(_ i: Int, chainLimit: Int) -> (Int, Int) {
                        guard i + 2 < n else { return (0, 0) }
                        let maxLen = min(258, n - i)
                        var best = 2, bestDist = 0
                        var candidate = Int(head[hash(i)])
                        var chain = chainLimit
                        while candidate >= 0 && chain > 0 {
                            let dist = i - candidate
                            if dist > LZ77Compressor.windowSize || dist <= 0 { break }
                            if src[candidate + best] == src[i + best] && src[candidate] == src[i] {
                                var len = 0
                                while len + 8 <= maxLen {
                                    let a = UnsafeRawPointer(base + i + len).loadUnaligned(as: UInt64.self)
                                    let b = UnsafeRawPointer(base + candidate + len).loadUnaligned(as: UInt64.self)
                                    if a != b { len += (a ^ b).trailingZeroBitCount >> 3; break }
                                    len += 8
                                }
                                if len + 8 > maxLen { while len < maxLen && src[i + len] == src[candidate + len] { len += 1 } }
                                len = min(len, maxLen)
                                if len > best {
                                    best = len
                                    bestDist = dist
                                    if len >= niceLength || len >= maxLen { break }
                                }
                            }
                            let next = Int(prev[candidate & (LZ77Compressor.windowSize - 1)])
                            if next >= candidate { break }
                            candidate = next
                            chain -= 1
                        }
                        return bestDist == 0 ? (0, 0) : (best, bestDist)
                    }

                    var i = 0
                    while i < n {
                        var (len, dist) = longestMatch(i, chainLimit: maxChain)
                        if len >= 3 && len < maxLazy && i + 1 < n {
                            insert(i)
                            let (len2, dist2) = longestMatch(i + 1, chainLimit: len >= goodLength ? maxChain >> 2 : maxChain)
                            if len2 > len {
                                emitLiteral(src[i], &writer)
                                i += 1
                                insert(i)
                                (len, dist) = (len2, dist2)
                            }
                            if len >= 3 {
                                emitMatch(len, dist, &writer, end: i + len)
                                // Position i (or i-1's successor) may already be in the chains; insert the rest.
                                for k in (i + 1)..<(i + len) { insert(k) }
                                i += len
                                continue
                            }
                        }
                        if len >= 3 {
                            emitMatch(len, dist, &writer, end: i + len)
                            for k in i..<(i + len) { insert(k) }
                            i += len
                        } else {
                            insert(i)
                            emitLiteral(src[i], &writer)
                            i += 1
                        }
                    }
                }
            }
        }
        flushBlock(final: true, end: n, &writer)
    }

    @inline(__always)
    private mutating func emitLiteral(_ byte: UInt8, _ w: inout BitWriter) {
        lengths.append(UInt16(byte))
        distances.append(0)
        if lengths.count >= LZ77Compressor.maxSymbolsPerBlock { flushBlock(final: false, end: nil, &w) }
    }

    @inline(__always)
    private mutating func emitMatch(_ length: Int, _ distance: Int, _ w: inout BitWriter, end: Int) {
        lengths.append(UInt16(256 + length))
        distances.append(UInt16(distance))
        if lengths.count >= LZ77Compressor.maxSymbolsPerBlock { flushBlock(final: false, end: end, &w) }
    }

    /// Length symbol index (0...28) for a match length 3...258.
    static func lengthCode(_ length: Int) -> Int {
        var code = 28
        while code > 0 && Int(DeflateTables.lengthBase[code]) > length { code -= 1 }
        return code
    }

    /// Distance symbol (0...29) for a distance 1...32768.
    static func distanceCode(_ distance: Int) -> Int {
        var code = 29
        while code > 0 && Int(DeflateTables.distanceBase[code]) > distance { code -= 1 }
        return code
    }

    /// Writes the pending symbols as one block, whichever of dynamic, fixed or stored is smallest.
    /// `end` is the input position the block's symbols reach (nil: count from the symbols).
    private mutating func flushBlock(final: Bool, end: Int?, _ w: inout BitWriter) {
        var covered = 0
        var litFreq = [Int](repeating: 0, count: 286)
        var distFreq = [Int](repeating: 0, count: 30)
        var lengthSymbols = [UInt8](repeating: 0, count: lengths.count)
        var distanceSymbols = [UInt8](repeating: 0, count: lengths.count)
        var extraBits = 0
        for k in 0..<lengths.count {
            let v = Int(lengths[k])
            if v < 256 {
                litFreq[v] += 1
                covered += 1
            } else {
                let lc = LZ77Compressor.lengthCode(v - 256)
                let dc = LZ77Compressor.distanceCode(Int(distances[k]))
                lengthSymbols[k] = UInt8(lc)
                distanceSymbols[k] = UInt8(dc)
                litFreq[257 + lc] += 1
                distFreq[dc] += 1
                extraBits += Int(DeflateTables.lengthExtra[lc]) + Int(DeflateTables.distanceExtra[dc])
                covered += v - 256
            }
        }
        litFreq[256] += 1
        let blockEnd = end ?? (blockStart + covered)

        let litLengths = HuffmanEncoder.codeLengths(litFreq, limit: 15)
        let distLengths = HuffmanEncoder.codeLengths(distFreq, limit: 15)
        let header = DynamicHeader(litLengths: litLengths, distLengths: distLengths)
        var dynamicBits = 3 + header.bitCount + extraBits
        var fixedBits = 3 + extraBits
        for s in 0..<286 where litFreq[s] > 0 {
            dynamicBits += litFreq[s] * Int(litLengths[s])
            fixedBits += litFreq[s] * Int(DeflateTables.fixedLiteralLengths[s])
        }
        for s in 0..<30 where distFreq[s] > 0 {
            dynamicBits += distFreq[s] * Int(distLengths[s])
            fixedBits += distFreq[s] * 5
        }
        let storedBytes = blockEnd - blockStart
        let storedBits = (storedBytes / 65535 + 1) * (3 + 7 + 32) + storedBytes * 8

        if storedBits <= min(dynamicBits, fixedBits) {
            Deflate.writeStored(input, blockStart..<blockEnd, final: final, &w)
        } else {
            let useFixed = fixedBits <= dynamicBits
            w.write(final ? 1 : 0, 1)
            w.write(useFixed ? 1 : 2, 2)
            let ll = useFixed ? DeflateTables.fixedLiteralLengths : litLengths
            let dl = useFixed ? [UInt8](repeating: 5, count: 30) : distLengths
            if !useFixed { header.write(&w) }
            let lc = HuffmanEncoder.reversedCodes(ll)
            let dcodes = HuffmanEncoder.reversedCodes(dl)
            for k in 0..<lengths.count {
                let v = Int(lengths[k])
                if v < 256 {
                    w.write(Int(lc[v]), Int(ll[v]))
                } else {
                    let l = Int(lengthSymbols[k])
                    w.write(Int(lc[257 + l]), Int(ll[257 + l]))
                    let le = Int(DeflateTables.lengthExtra[l])
                    if le > 0 { w.write(v - 256 - Int(DeflateTables.lengthBase[l]), le) }
                    let d = Int(distanceSymbols[k])
                    w.write(Int(dcodes[d]), Int(dl[d]))
                    let de = Int(DeflateTables.distanceExtra[d])
                    if de > 0 { w.write(Int(distances[k]) - Int(DeflateTables.distanceBase[d]), de) }
                }
            }
            w.write(Int(lc[256]), Int(ll[256]))
        }
        lengths.removeAll(keepingCapacity: true)
        distances.removeAll(keepingCapacity: true)
        blockStart = blockEnd
    }
}

/// The code-length description at the start of a dynamic block.
struct DynamicHeader {
    let hlit: Int
    let hdist: Int
    let hclen: Int
    /// Run-length coded lengths: (symbol 0...18, extra value).
    let runs: [(Int, Int)]
    let clLengths: [UInt8]
    let bitCount: Int

    init(litLengths: [UInt8], distLengths: [UInt8]) {
        var hlit = 286
        while hlit > 257 && litLengths[hlit - 1] == 0 { hlit -= 1 }
        var hdist = 30
        while hdist > 1 && distLengths[hdist - 1] == 0 { hdist -= 1 }
        let all = Array(litLengths[0..<hlit]) + Array(distLengths[0..<hdist])
        var runs: [(Int, Int)] = []
        var i = 0
        while i < all.count {
            let v = all[i]
            var run = 1
            while i + run < all.count && all[i + run] == v { run += 1 }
            var left = run
            if v == 0 {
                while left >= 11 { let r = min(138, left); runs.append((18, r - 11)); left -= r }
                if left >= 3 { runs.append((17, left - 3)); left = 0 }
            } else {
                runs.append((Int(v), 0)); left -= 1
                while left >= 3 { let r = min(6, left); runs.append((16, r - 3)); left -= r }
            }
            while left > 0 { runs.append((Int(v), 0)); left -= 1 }
            i += run
        }
        var clFreq = [Int](repeating: 0, count: 19)
        for (s, _) in runs { clFreq[s] += 1 }
        let clLengths = HuffmanEncoder.codeLengths(clFreq, limit: 7)
        var hclen = 19
        while hclen > 4 && clLengths[DeflateTables.codeLengthOrder[hclen - 1]] == 0 { hclen -= 1 }
        var bits = 5 + 5 + 4 + 3 * hclen
        for (s, _) in runs { bits += Int(clLengths[s]) + (s == 16 ? 2 : s == 17 ? 3 : s == 18 ? 7 : 0) }
        self.hlit = hlit
        self.hdist = hdist
        self.hclen = hclen
        self.runs = runs
        self.clLengths = clLengths
        self.bitCount = bits
    }

    func write(_ w: inout BitWriter) {
        w.write(hlit - 257, 5)
        w.write(hdist - 1, 5)
        w.write(hclen - 4, 4)
        for k in 0..<hclen { w.write(Int(clLengths[DeflateTables.codeLengthOrder[k]]), 3) }
        let codes = HuffmanEncoder.reversedCodes(clLengths)
        for (s, extra) in runs {
            w.write(Int(codes[s]), Int(clLengths[s]))
            switch s {
            case 16: w.write(extra, 2)
            case 17: w.write(extra, 3)
            case 18: w.write(extra, 7)
            default: break
            }
        }
    }
}
