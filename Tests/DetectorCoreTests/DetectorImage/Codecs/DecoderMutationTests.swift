import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Thousands of seeded random mutations of the PngSuite and PPM fixtures: byte flips,
/// truncations, insertions, flips with the chunk CRC repaired, and damage to the
/// decompressed image data (re-compressed, so it reaches unfiltering and pixel expansion).
/// Every decode must either succeed or throw a typed error; a trap would kill the test run.
final class DecoderMutationTests: XCTestCase {
    private struct Chunk { var type: [UInt8]; var data: [UInt8] }

    private func chunks(_ png: [UInt8]) -> [Chunk]? {
        var out: [Chunk] = []
        var p = 8
        while p + 12 <= png.count {
            let len = Int(png[p]) << 24 | Int(png[p + 1]) << 16 | Int(png[p + 2]) << 8 | Int(png[p + 3])
            guard len <= png.count - p - 12 else { return nil }
            out.append(Chunk(type: Array(png[(p + 4)..<(p + 8)]), data: Array(png[(p + 8)..<(p + 8 + len)])))
            p += 12 + len
        }
        return out
    }

    private func assemble(_ chunks: [Chunk]) -> [UInt8] {
        var out = PNGDecoder.signature
        for c in chunks {
            let n = UInt32(c.data.count)
            out += [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
            out += c.type + c.data
            let crc = CRC32.checksum(c.type + c.data)
            out += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        }
        return out
    }

    func testMutatedFixturesNeverTrap() throws {
        let root = try SharedData.require()
        var fixtures: [(String, [UInt8])] = []
        let suite = root.appendingPathComponent("pngsuite")
        for name in try FileManager.default.contentsOfDirectory(atPath: suite.path).sorted() where name.hasSuffix(".png") {
            fixtures.append((name, [UInt8](try Data(contentsOf: suite.appendingPathComponent(name)))))
        }
        for dir in ["ppm", "ppm/bad"] {
            let url = root.appendingPathComponent(dir)
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
            where name.hasSuffix(".ppm") || name.hasSuffix(".pgm") {
                let bytes = [UInt8](try Data(contentsOf: url.appendingPathComponent(name)))
                if bytes.count <= 20_000 { fixtures.append((name, bytes)) }
            }
        }
        XCTAssertGreaterThan(fixtures.count, 170)

        // MUTATION_ITERATIONS / MUTATION_SEED run a longer or different campaign by hand.
        let environment = ProcessInfo.processInfo.environment
        var rng = SplitMix64(seed: environment["MUTATION_SEED"].flatMap { UInt64($0) } ?? 20_261_130)
        let iterations = environment["MUTATION_ITERATIONS"].flatMap { Int($0) } ?? 12_000
        var decoded = 0, rejected = 0
        for iteration in 0..<iterations {
            let (name, original) = fixtures[Int(rng.next() % UInt64(fixtures.count))]
            var bytes = original
            let kind = Int(rng.next() % 7)
            func position() -> Int { bytes.isEmpty ? 0 : Int(rng.next() % UInt64(bytes.count)) }
            switch kind {
            case 0:  // a few random byte flips
                for _ in 0..<(1 + Int(rng.next() % 4)) where !bytes.isEmpty {
                    bytes[position()] ^= UInt8(1 + rng.next() % 255)
                }
            case 1:  // truncation
                bytes = Array(bytes.prefix(position()))
            case 2:  // insertion of random bytes
                let insert = (0..<(1 + Int(rng.next() % 16))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                bytes.insert(contentsOf: insert, at: position())
            case 3:  // deletion of a range
                let p = position()
                bytes.removeSubrange(p..<min(bytes.count, p + 1 + Int(rng.next() % 32)))
            case 4, 5:  // PNG: flip bytes inside one chunk and repair its CRC (reaches IHDR/PLTE/tRNS/inflate)
                if var list = chunks(bytes), !list.isEmpty {
                    let c = Int(rng.next() % UInt64(list.count))
                    if !list[c].data.isEmpty {
                        for _ in 0..<(1 + Int(rng.next() % 3)) {
                            let i = Int(rng.next() % UInt64(list[c].data.count))
                            list[c].data[i] ^= UInt8(1 + rng.next() % 255)
                        }
                    } else if kind == 5 {
                        list.remove(at: c)
                    }
                    bytes = assemble(list)
                } else if !bytes.isEmpty {
                    bytes[position()] = UInt8(truncatingIfNeeded: rng.next())
                }
            default:  // PNG: damage the decompressed scanlines (filter bytes, palette indices), recompress
                if var list = chunks(bytes), let first = list.firstIndex(where: { $0.type == Array("IDAT".utf8) }) {
                    let stream = list.filter { $0.type == Array("IDAT".utf8) }.flatMap(\.data)
                    if var raw = try? Zlib.decompress(stream, maxOutputSize: 1 << 24), !raw.isEmpty {
                        for _ in 0..<(1 + Int(rng.next() % 4)) {
                            raw[Int(rng.next() % UInt64(raw.count))] = UInt8(truncatingIfNeeded: rng.next())
                        }
                        if rng.next() % 4 == 0 { raw = Array(raw.prefix(Int(rng.next() % UInt64(raw.count)))) }
                        list.removeAll { $0.type == Array("IDAT".utf8) }
                        list.insert(Chunk(type: Array("IDAT".utf8), data: Zlib.compress(raw, level: 1)), at: min(first, list.count))
                        bytes = assemble(list)
                    }
                }
            }
            let wide = rng.next() % 3 == 0
            do {
                let result = try ImageDecoder.decode(bytes, wants16Bit: wide, maxPixels: 1 << 22)
                let image = result.image
                XCTAssertEqual(image.pixels.count, image.width * image.height * image.format.bytesPerPixel, "\(name) #\(iteration)")
                decoded += 1
            } catch {
                XCTAssertFalse(String(describing: error).isEmpty)
                rejected += 1
            }
            if name.hasSuffix("ppm") || name.hasSuffix("pgm") {
                let reader = PPMStreamReader(bytes: bytes, maxPixels: 1 << 22)
                var frames = 0
                while frames < 8, (try? reader.nextFrame()) != nil { frames += 1 }
            }
        }
        XCTAssertEqual(decoded + rejected, iterations)
        XCTAssertGreaterThan(decoded, iterations / 20, "mutations should not all be fatal")
        XCTAssertGreaterThan(rejected, iterations / 4)
        print("mutation test: \(iterations) mutated files, \(decoded) decoded, \(rejected) rejected with typed errors, 0 traps")
    }
}
