import Foundation
import XCTest
@testable import DetectorCore
@testable import objdetect
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class PPMTests: XCTestCase {
    /// Every good fixture in `goldens/ppm.json` matches its RGBA8 (and RGBA16) hash; every
    /// bad one is rejected with a `PPMError`.
    func testGoldenFixtures() throws {
        let golden = try GoldenFiles.json("ppm.json")
        let files = try XCTUnwrap(golden["files"] as? [[String: Any]])
        var checked = 0
        for entry in files {
            let name = try XCTUnwrap(entry["file"] as? String)
            let bytes = try GoldenFiles.bytes(name)
            XCTAssertEqual(SHA256Hash.hexDigest(bytes), entry["file_sha256"] as? String, name)
            if let frames = entry["frames"] as? [[String: Any]] {
                // The stream fixture, read through the stream reader in small chunks.
                var offset = 0
                let reader = PPMStreamReader(source: {
                    guard offset < bytes.count else { return nil }
                    let chunk = Array(bytes[offset..<min(bytes.count, offset + 1000)])
                    offset += chunk.count
                    return chunk
                })
                var index = 0
                while let frame = try reader.nextFrame() {
                    XCTAssertLessThan(index, frames.count)
                    guard index < frames.count else { break }
                    XCTAssertEqual(frame.image.width, frames[index]["width"] as? Int)
                    XCTAssertEqual(frame.image.height, frames[index]["height"] as? Int)
                    XCTAssertEqual(SHA256Hash.hexDigest(frame.image.converted(to: .rgba8).pixels),
                                   frames[index]["rgba8_sha256"] as? String, "\(name) frame \(index)")
                    index += 1
                }
                XCTAssertEqual(index, entry["frame_count"] as? Int)
                XCTAssertEqual(index, 3)
                XCTAssertEqual(try PPMDecoder.decodeAll(bytes).count, 3)
                checked += 1
                continue
            }
            let decoded = try PPMDecoder.decode(bytes)
            XCTAssertEqual(decoded.image.width, entry["width"] as? Int, name)
            XCTAssertEqual(decoded.image.height, entry["height"] as? Int, name)
            XCTAssertEqual(decoded.image.format, (entry["channels"] as? Int) == 3 ? .rgb8 : .gray8, name)
            XCTAssertEqual(SHA256Hash.hexDigest(decoded.image.converted(to: .rgba8).pixels), entry["rgba8_sha256"] as? String, name)
            if let want16 = entry["rgba16_sha256"] as? String {
                let wide = try PPMDecoder.decode(bytes, wants16Bit: true)
                XCTAssertEqual(wide.image.format, .rgba16)
                XCTAssertEqual(SHA256Hash.hexDigest(wide.image.pixels), want16, "\(name) rgba16")
            }
            checked += 1
        }
        XCTAssertEqual(checked, 8)

        let bad = try XCTUnwrap(golden["bad"] as? [[String: Any]])
        XCTAssertEqual(bad.count, 10)
        for entry in bad {
            let name = try XCTUnwrap(entry["file"] as? String)
            let bytes = try GoldenFiles.bytes(name)
            XCTAssertThrowsError(try PPMDecoder.decode(bytes), name) { error in
                XCTAssertTrue(error is PPMError, "\(name): \(error)")
            }
            XCTAssertThrowsError(try ImageDecoder.decode(bytes), name)
            let reader = PPMStreamReader(bytes: bytes)
            if bytes.isEmpty {
                XCTAssertNil(try reader.nextFrame(), "an empty stream has no frames")
            } else {
                XCTAssertThrowsError(try reader.nextFrame(), name)
            }
        }
    }

    func testSpecificRejectionReasons() throws {
        func error(_ text: String) -> PPMError? {
            do { _ = try PPMDecoder.decode(Array(text.utf8)); return nil } catch { return error }
        }
        XCTAssertEqual(error(""), .empty)
        XCTAssertEqual(error("P9\n1 1\n255\n\0\0\0"), .badMagic(found: Array("P9".utf8)))
        XCTAssertEqual(error("P6\n0 4\n255\n"), .invalidDimensions(width: 0, height: 4))
        XCTAssertEqual(error("P6\n-4 4\n255\n"), .invalidNumber(offset: 3, field: "width"))
        XCTAssertEqual(error("P6\n1 1\n0\n\0\0\0"), .invalidMaxval(0))
        XCTAssertEqual(error("P6\n1 1\n70000\n\0\0\0"), .invalidMaxval(70000))
        XCTAssertEqual(error("P6\n2 2\n255\n\0\0\0"), .truncatedRaster(expected: 12, available: 3))
        XCTAssertEqual(error("P3\n1 1\n255\n0 0 256\n"), .sampleOutOfRange(offset: 15, value: 256, maxval: 255))
        XCTAssertEqual(error("P5\n1 1\n100\n\u{65}"), .sampleOutOfRange(offset: 11, value: 101, maxval: 100))
        XCTAssertEqual(error("P6\n1 1\n255#x\n\0\0\0"), .missingWhitespaceAfterMaxval(offset: 10))
        do {
            _ = try PPMDecoder.decode(Array("P6\n3000 3000\n255\n".utf8), maxPixels: 1_000_000)
            XCTFail("limit not applied")
        } catch {
            XCTAssertEqual(error, .tooManyPixels(width: 3000, height: 3000, limit: 1_000_000))
        }
    }

    func testScalingAndPlainFormats() throws {
        // maxval 100: round half up, 30 -> 77, 70 -> 179 (Python's round() would give 76, 178).
        let p5 = try PPMDecoder.decode(Array("P5 4 1 100\n".utf8) + [0, 30, 70, 100])
        XCTAssertEqual(p5.image.pixels, [0, 77, 179, 255])
        XCTAssertEqual(p5.bitDepth, 7)
        // 16-bit maxval 65535: round(v / 257), not v >> 8. 128 -> 0 (>>8 gives 0), 129 -> 1 (>>8 gives 0), 65535 -> 255.
        let p6 = try PPMDecoder.decode(Array("P6 1 1 65535\n".utf8) + [0x00, 0x80, 0x00, 0x81, 0xFF, 0xFF])
        XCTAssertEqual(p6.image.pixels, [0, 1, 255])
        let wide = try PPMDecoder.decode(Array("P6 1 1 65535\n".utf8) + [0x00, 0x80, 0x00, 0x81, 0xFF, 0xFF], wants16Bit: true)
        XCTAssertEqual(wide.image.pixels, [0x00, 0x80, 0x00, 0x81, 0xFF, 0xFF, 0xFF, 0xFF])
        // P1 and P4: 1 is black.
        XCTAssertEqual(try PPMDecoder.decode(Array("P1\n3 2\n1 0 1\n011".utf8)).image.pixels, [0, 255, 0, 255, 0, 0])
        XCTAssertEqual(try PPMDecoder.decode(Array("P4\n3 2\n".utf8) + [0b1010_0000, 0b0110_0000]).image.pixels,
                       [0, 255, 0, 255, 0, 0])
        // P2 with a comment between header tokens.
        XCTAssertEqual(try PPMDecoder.decode(Array("P2 # c\n2 1 15\n15 1".utf8)).image.pixels, [255, 17])
    }

    func testStreamReaderFromFileHandleAndOneByteChunks() throws {
        let frame1 = Array("P6\n2 1\n255\n".utf8) + [1, 2, 3, 4, 5, 6]
        let frame2 = Array("P5\n1 1\n255\n".utf8) + [80]
        let stream = frame1 + frame2 + frame1
        var i = 0
        let reader = PPMStreamReader(source: {
            guard i < stream.count else { return nil }
            i += 1
            return [stream[i - 1]]
        })
        XCTAssertEqual(try reader.nextFrame()?.image.pixels, [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(try reader.nextFrame()?.image.pixels, [80])
        XCTAssertEqual(try reader.nextFrame()?.image.format, .rgb8)
        XCTAssertNil(try reader.nextFrame())
        XCTAssertEqual(reader.frameCount, 3)

        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ppm-stream-\(UUID().uuidString).ppm")
        try Data(stream + Array(frame1.prefix(12))).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let fileReader = PPMStreamReader(fileHandle: handle, chunkSize: 5)
        for _ in 0..<3 { XCTAssertNotNil(try fileReader.nextFrame()) }
        // A last frame cut short is an error, not a silent end.
        XCTAssertThrowsError(try fileReader.nextFrame())
    }

    func testEncoderRoundTrip() throws {
        let rgb = try ImageBuffer(width: 3, height: 2, format: .rgb8, pixels: (0..<18).map { UInt8($0 * 13) })
        XCTAssertEqual(try PPMDecoder.decode(PPMEncoder.encode(rgb)).image, rgb)
        let gray = try ImageBuffer(width: 2, height: 2, format: .gray8, pixels: [0, 9, 200, 255])
        XCTAssertEqual(try PPMDecoder.decode(PPMEncoder.encode(gray)).image, gray)
        let rgba = try ImageBuffer(width: 1, height: 1, format: .rgba8, pixels: [1, 2, 3, 4])
        XCTAssertEqual(Array(PPMEncoder.encode(rgba).suffix(3)), [1, 2, 3])
        let wide = try ImageBuffer(width: 1, height: 1, format: .rgba16, pixels: [1, 2, 3, 4, 5, 6, 7, 8])
        XCTAssertEqual(try PPMDecoder.decode(PPMEncoder.encode(wide), wants16Bit: true).image.pixels, [1, 2, 3, 4, 5, 6, 255, 255])
    }
}
