import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class ZlibTests: XCTestCase {
    private func hexBytes(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex {
            let j = s.index(i, offsetBy: 2)
            out.append(UInt8(s[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    /// The 600 bytes that `dynamicStream` holds (made by Python's zlib, level 9, one dynamic block).
    private var dynamicPlain: [UInt8] {
        var d: [UInt8] = []
        for i in 0..<200 { d += [UInt8](repeating: UInt8(97 + (i * i) % 7), count: i % 5 + 1) }
        return d
    }
    private let dynamicStream = "78daed8dc10d00200c0267e50cfbafa025b54b288f26d023086caf2b8324489afcdcb22a3164be84f4f443aafb78c058fda197863671efe810"

    func testKnownChecksums() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
        XCTAssertEqual(CRC32.checksum([]), 0)
        XCTAssertEqual(Adler32.checksum(Array("Wikipedia".utf8)), 0x11E6_0398)
        XCTAssertEqual(Adler32.checksum([]), 1)
        // Python: zlib.adler32 / zlib.crc32 of bytes((i*7+i//13)%251 for i in range(3000)).
        let data = (0..<3000).map { (i: Int) -> UInt8 in UInt8((i * 7 + i / 13) % 251) }
        XCTAssertEqual(Adler32.checksum(data), 3_086_333_059)
        XCTAssertEqual(CRC32.checksum(data), 2_424_598_631)
        // Adler over more than one 5552-byte run, CRC split across updates.
        let big = (0..<20_000).map { (i: Int) -> UInt8 in UInt8(truncatingIfNeeded: i &* 31 &+ 7) }
        var a = Adler32(); var aa: UInt32 = 1, bb: UInt32 = 0
        for v in big { aa = (aa + UInt32(v)) % 65521; bb = (bb + aa) % 65521 }
        a.update(Array(big[0..<7777])); a.update(Array(big[7777...]))
        XCTAssertEqual(a.value, bb << 16 | aa)
        var c = CRC32(); c.update(Array(big[0..<13])); c.update(Array(big[13...]))
        XCTAssertEqual(c.value, CRC32.referenceChecksum(big))
    }

    func testInflateKnownStreams() throws {
        // zlib.compress(b'hello hello hello hello'): one fixed-Huffman block with a match.
        let fixed: [UInt8] = [0x78, 0x9c, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40, 0x27, 0x01, 0x68, 0x03, 0x08, 0xb1]
        XCTAssertEqual(try Zlib.decompress(fixed, maxOutputSize: 100), Array("hello hello hello hello".utf8))
        // zlib.compressobj(0) on b'abc': one stored block.
        let stored: [UInt8] = [0x78, 0x01, 0x01, 0x03, 0x00, 0xfc, 0xff, 0x61, 0x62, 0x63, 0x02, 0x4d, 0x01, 0x27]
        XCTAssertEqual(try Zlib.decompress(stored, maxOutputSize: 100), Array("abc".utf8))
        XCTAssertEqual(try Inflate.decompressRaw(Array(stored[2..<10]), maxOutputSize: 3), Array("abc".utf8))
        XCTAssertEqual(try Inflate.decompressRaw(stored[2..<10], maxOutputSize: 3), Array("abc".utf8))
        XCTAssertEqual(try stored.withUnsafeBytes { try Inflate.decompressRaw(UnsafeRawBufferPointer(rebasing: $0[2..<10]), maxOutputSize: 3) },
                       Array("abc".utf8))
        XCTAssertEqual(try Zlib.decompress(hexBytes(dynamicStream), maxOutputSize: 1000), dynamicPlain)
    }

    func testInflateRejectsBadStreams() {
        let stream = hexBytes(dynamicStream)
        // Truncated anywhere: an error, never a trap or a partial success.
        for cut in 0..<stream.count {
            XCTAssertThrowsError(try Zlib.decompress(Array(stream[0..<cut]), maxOutputSize: 1000), "cut at \(cut)")
        }
        var badAdler = stream; badAdler[badAdler.count - 1] ^= 1
        XCTAssertThrowsError(try Zlib.decompress(badAdler, maxOutputSize: 1000)) { error in
            guard case InflateError.adlerMismatch = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try Zlib.decompress(stream, maxOutputSize: 599)) { error in
            XCTAssertEqual(error as? InflateError, .outputLimitExceeded(limit: 599))
        }
        XCTAssertThrowsError(try Zlib.decompress([0x78, 0x9d, 0x03, 0x00], maxOutputSize: 10))  // check bits
        XCTAssertThrowsError(try Zlib.decompress([0x79, 0x9c, 0x03, 0x00], maxOutputSize: 10))  // method 9
        XCTAssertThrowsError(try Zlib.decompress([0x78, 0xbb, 0, 0, 0, 1], maxOutputSize: 10))  // FDICT
        // Block type 3.
        XCTAssertThrowsError(try Inflate.decompressRaw([0x07], maxOutputSize: 10)) { error in
            XCTAssertEqual(error as? InflateError, .invalidBlockType(byteOffset: 0))
        }
        // Stored block with NLEN not the complement of LEN.
        XCTAssertThrowsError(try Inflate.decompressRaw([0x01, 0x03, 0x00, 0xfc, 0xfe, 1, 2, 3], maxOutputSize: 10))
        // Fixed block whose first symbol is a match at distance 1 with nothing written yet:
        // length code 257 (0000001) then distance code 0 (00000), end of block.
        var w = BitWriterForTest()
        w.put(1, 1); w.put(1, 2); w.putReversed(0b0000001, 7); w.putReversed(0, 5); w.putReversed(0, 7)
        XCTAssertThrowsError(try Inflate.decompressRaw(w.bytes, maxOutputSize: 10)) { error in
            guard case InflateError.distanceTooFar = error else { return XCTFail("\(error)") }
        }
        // Fixed block with the reserved literal/length symbol 286 (11000110).
        var r = BitWriterForTest()
        r.put(1, 1); r.put(1, 2); r.putReversed(0b11000110, 8)
        XCTAssertThrowsError(try Inflate.decompressRaw(r.bytes, maxOutputSize: 10)) { error in
            guard case InflateError.invalidCode = error else { return XCTFail("\(error)") }
        }
    }

    func testRandomAndDamagedStreamsNeverTrap() throws {
        var rng = SplitMix64(seed: 1234)
        let (_, text) = DeflateTests.samples()[4]
        let good = Zlib.compress(Array(text[0..<5000]), level: 6)
        var succeeded = 0
        for i in 0..<4000 {
            var input: [UInt8]
            if i % 2 == 0 {
                input = (0..<(1 + Int(rng.next() % 200))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            } else {
                input = good
                for _ in 0..<(1 + Int(rng.next() % 3)) {
                    input[2 + Int(rng.next() % UInt64(input.count - 2))] ^= UInt8(1 + rng.next() % 255)
                }
            }
            if let out = try? Inflate.decompressRaw(i % 2 == 0 ? input : Array(input[2...]), maxOutputSize: 100_000) {
                XCTAssertLessThanOrEqual(out.count, 100_000)
                succeeded += 1
            }
        }
        XCTAssertLessThan(succeeded, 4000)
    }

    func testInflateEmptyInput() {
        XCTAssertThrowsError(try Inflate.decompressRaw([], maxOutputSize: 10))
        XCTAssertThrowsError(try Zlib.decompress([], maxOutputSize: 10))
    }
}

/// Packs bits least-significant first, the way DEFLATE streams are written (test helper).
struct BitWriterForTest {
    var bytes: [UInt8] = []
    var bitCount = 0
    mutating func put(_ value: Int, _ n: Int) {
        for i in 0..<n {
            if bitCount % 8 == 0 { bytes.append(0) }
            if (value >> i) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(1 << (bitCount % 8)) }
            bitCount += 1
        }
    }
    /// Huffman codes go most significant bit first.
    mutating func putReversed(_ code: Int, _ n: Int) {
        for i in stride(from: n - 1, through: 0, by: -1) { put((code >> i) & 1, 1) }
    }
}

final class DeflateTests: XCTestCase {
    /// Deterministic test data of several kinds: text-like, runs, noise, and a mix.
    static func samples() -> [(String, [UInt8])] {
        var rng = SplitMix64(seed: 42)
        let noise = (0..<50_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let words = ["the ", "quick ", "brown ", "fox ", "jumps ", "over ", "lazy ", "dog ", "\n"]
        var text: [UInt8] = []
        while text.count < 120_000 { text += Array(words[Int(rng.next() % UInt64(words.count))].utf8) }
        let runs = (0..<70_000).map { (i: Int) -> UInt8 in UInt8((i / 300) % 7) }
        var mixed: [UInt8] = []
        for k in 0..<40 { mixed += k % 3 == 0 ? Array(noise[(k * 500)..<(k * 500 + 900)]) : Array(text[(k * 1000)..<(k * 1000 + 3000)]) }
        return [("empty", []), ("one", [7]), ("two", [7, 7]), ("noise", noise), ("text", text), ("runs", runs), ("mixed", mixed),
                ("long run", [UInt8](repeating: 0xAB, count: 300_000))]
    }

    func testRoundTripAtEveryLevel() throws {
        for (name, data) in DeflateTests.samples() {
            for level in [0, 1, 6, 9] {
                let packed = Zlib.compress(data, level: level)
                // For checking streams with other tools by hand: ZLIB_OUT=/tmp/dir swift test --filter DeflateTests
                if let dir = ProcessInfo.processInfo.environment["ZLIB_OUT"] {
                    let base = URL(fileURLWithPath: dir).appendingPathComponent("\(name.replacingOccurrences(of: " ", with: "_"))")
                    try Data(packed).write(to: base.appendingPathExtension("l\(level).zlib"))
                    try Data(data).write(to: base.appendingPathExtension("raw"))
                }
                XCTAssertEqual(try Zlib.decompress(packed, maxOutputSize: data.count), data, "\(name) level \(level)")
                if level > 0 && (name == "text" || name == "runs" || name == "long run") {
                    XCTAssertLessThan(packed.count, data.count / 4, "\(name) level \(level) does not compress")
                }
                if name == "noise" {
                    // Incompressible data falls back to stored blocks: barely any growth.
                    XCTAssertLessThan(packed.count, data.count + data.count / 100 + 20, "\(name) level \(level)")
                }
            }
        }
    }

    /// `compressRuns` (the PNG fast mode's DEFLATE): every sample round-trips, runs shrink to
    /// almost nothing, incompressible data is stored, and inputs of many blocks stay whole.
    func testRunLengthModeRoundTrips() throws {
        var rng = SplitMix64(seed: 5)
        // No byte repeats the one before it: 200,000 literals, four blocks of at most 65,536 symbols.
        var noRuns: [UInt8] = []
        for k in 0..<200_000 { noRuns.append(UInt8(truncatingIfNeeded: k % 2 == 0 ? rng.next() % 16 : 16 + rng.next() % 16)) }
        // Runs of exactly 3, 4 and 5 after a byte: at and around the shortest run that becomes a match.
        var edges: [UInt8] = []
        for k in 0..<3000 { edges += [UInt8](repeating: UInt8(k % 250), count: 1 + 3 + k % 3) }
        for (name, data) in DeflateTests.samples() + [("no runs", noRuns), ("run edges", edges), ("run 259", [UInt8](repeating: 1, count: 259))] {
            let packed = Zlib.compressRuns(data)
            if let dir = ProcessInfo.processInfo.environment["ZLIB_OUT"] {
                try Data(packed).write(to: URL(fileURLWithPath: dir).appendingPathComponent("\(name.replacingOccurrences(of: " ", with: "_")).runs.zlib"))
            }
            XCTAssertEqual(Array(packed.prefix(2)), [0x78, 0x01], "\(name): deflate, 32 KiB window, fastest")
            XCTAssertEqual(try Zlib.decompress(packed, maxOutputSize: data.count), data, name)
            if name == "runs" || name == "long run" {
                // 70,000 bytes in runs of 300 and 300,000 equal bytes: a literal and a few matches per run.
                XCTAssertLessThan(packed.count, data.count / 50, name)
            }
            if name == "noise" {
                XCTAssertLessThan(packed.count, data.count + data.count / 100 + 20, "stored, barely any growth")
                XCTAssertEqual((packed[2] >> 1) & 3, 0, "noise is stored (block type 0)")
            }
            if name == "no runs" {
                // 32 values about equally often: 5 bits a byte with Huffman codes alone (62.5 %).
                XCTAssertLessThan(packed.count, data.count * 64 / 100)
                XCTAssertEqual((packed[2] >> 1) & 3, 2, "dynamic Huffman block")
            }
        }
    }

    func testCompressorUsesHuffmanBlocks() {
        let (_, text) = DeflateTests.samples()[4]
        let raw = Deflate.compressRaw(text, level: 6)
        // First block header bits: BFINAL then BTYPE; 2 (dynamic) for text this size.
        XCTAssertEqual((raw[0] >> 1) & 3, 2)
        let small = Deflate.compressRaw(Array("abcabcabcabc".utf8), level: 6)
        XCTAssertEqual((small[0] >> 1) & 3, 1, "a tiny input is cheapest with the fixed code")
    }

    func testHuffmanLengthsAreLimitedAndComplete() {
        // Fibonacci frequencies force a deep tree.
        var f = [1, 1]
        while f.count < 30 { f.append(f[f.count - 1] + f[f.count - 2]) }
        let lengths = HuffmanEncoder.codeLengths(f, limit: 15)
        XCTAssertLessThanOrEqual(Int(lengths.max() ?? 0), 15)
        // Kraft sum exactly 1: a complete prefix code.
        let kraft = lengths.filter { $0 > 0 }.reduce(0.0) { $0 + pow(2.0, -Double($1)) }
        XCTAssertEqual(kraft, 1.0, accuracy: 1e-12)
        XCTAssertEqual(HuffmanEncoder.codeLengths([0, 5, 0], limit: 7).filter { $0 > 0 }.count, 2)
    }
}

