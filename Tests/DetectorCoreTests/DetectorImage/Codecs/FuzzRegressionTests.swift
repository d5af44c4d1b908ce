import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The inputs the fuzz campaign (Tests/Fuzz) found, kept under `Tests/Fuzz/Regressions/TARGET/`
/// (the smoke run of `Tests/Fuzz/run_all.sh` replays them under its 1 s CPU limit too).
final class FuzzRegressionTests: XCTestCase {
    static func regression(_ target: String, _ name: String) throws -> [UInt8] {
        let url = SharedData.repositoryRoot.appendingPathComponent("Tests/Fuzz/Regressions/\(target)/\(name)")
        return try [UInt8](Data(contentsOf: url))
    }

    /// What a reader makes of a stream: the frames' sizes, then the error that ended it.
    static func outcome(_ next: () throws -> DecodedImage?) -> [String] {
        var seen: [String] = []
        for _ in 0..<8 {
            do {
                guard let frame = try next() else { return seen + ["end"] }
                seen.append("\(frame.image.width)x\(frame.image.height) \(frame.image.format)")
            } catch {
                return seen + ["\(error)"]
            }
        }
        return seen
    }

    static func ppmStream(_ bytes: [UInt8], chunkSize: Int) -> [String] {
        let reader = PPMStreamReader(source: ChunkedInput.chunks(of: bytes, chunkSize: chunkSize))
        return outcome { try reader.nextFrame() }
    }

    static func imageStream(_ bytes: [UInt8], chunkSize: Int) -> [String] {
        let reader = ImageStreamReader(bytes: bytes, chunkSize: chunkSize)
        return outcome { try reader.nextFrame() }
    }

    /// A header comment with no line end (24 kB): the stream readers parsed the header again
    /// after every chunk, so 1-byte chunks took time quadratic in its length (a 1 s timeout in
    /// the fuzzer). Now they wait for the buffer to double; the outcome is the same at any chunk size.
    func testUnterminatedHeaderCommentReadsTheSameAtAnyChunkSize() throws {
        let bytes = try Self.regression("ppm_stream", "unterminated-header-comment.ppm")
        let expected = ["PPM header ends at byte \(bytes.count) before width, height and maxval are complete"]
        for chunk in [1, 7, 4096, bytes.count] {
            XCTAssertEqual(Self.ppmStream(bytes, chunkSize: chunk), expected, "chunk \(chunk)")
        }
        for chunk in [1, 4096] {
            XCTAssertEqual(Self.imageStream(bytes, chunkSize: chunk).count, 1, "chunk \(chunk)")
            XCTAssertTrue(Self.imageStream(bytes, chunkSize: chunk)[0].contains("PPM header ends at byte"), "chunk \(chunk)")
        }
    }

    /// A plain PGM of 4000×3 samples "7" (24 kB), then a NUL byte: one gray frame, then the
    /// NUL, which starts no frame. Parsed again from its start after every 1-byte chunk before.
    func testLongPlainRasterReadsTheSameAtAnyChunkSize() throws {
        let bytes = try Self.regression("ppm_stream", "long-plain-raster.pgm")
        for chunk in [1, 3, 4096, bytes.count] {
            let seen = Self.ppmStream(bytes, chunkSize: chunk)
            XCTAssertEqual(seen.first, "4000x3 gray8", "chunk \(chunk)")
            XCTAssertEqual(seen.count, 2, "chunk \(chunk)")
            XCTAssertTrue(seen.last?.hasPrefix("not a Netpbm image") ?? false, "\(seen)")
        }
        let reader = PPMStreamReader(source: ChunkedInput.chunks(of: bytes, chunkSize: 1))
        let frame = try XCTUnwrap(try reader.nextFrame())
        XCTAssertEqual(Set(frame.image.pixels), [7])
        XCTAssertEqual(Self.imageStream(bytes, chunkSize: 1).first, "4000x3 gray8")
    }

    /// Two raw PGM frames of 128×128, each after a 16 kB header comment (found by the fuzzer as a
    /// 38 kB input: 2.7 s of CPU). A raw frame whose header was complete was parsed again after
    /// every chunk, header comment included, so 1-byte chunks cost header × raster. Now the reader
    /// pulls until it holds the frame's length, and still returns the frame as soon as its last
    /// byte has arrived: the source is asked for exactly one frame's bytes at 1-byte chunks.
    func testLongCommentBeforeRawRasterReadsTheSameAtAnyChunkSize() throws {
        let bytes = try Self.regression("ppm_stream", "long-comment-raw-raster.pgm")
        let frameLength = bytes.count / 2
        for chunk in [1, 5, 4096, bytes.count] {
            XCTAssertEqual(Self.ppmStream(bytes, chunkSize: chunk), ["128x128 gray8", "128x128 gray8", "end"], "chunk \(chunk)")
            XCTAssertEqual(Self.imageStream(bytes, chunkSize: chunk), ["128x128 gray8", "128x128 gray8", "end"], "chunk \(chunk)")
        }
        var calls = 0
        let chunks = ChunkedInput.chunks(of: bytes, chunkSize: 1)
        let reader = PPMStreamReader(source: { calls += 1; return chunks() })
        let frame = try XCTUnwrap(try reader.nextFrame())
        XCTAssertEqual(calls, frameLength)
        // Pixel (x, y) is (7x + y + 8) mod 256, as written; the last byte, 0, makes the fuzz
        // target read it in 1-byte chunks.
        XCTAssertEqual(frame.image.pixels[0], 8)
        XCTAssertEqual(frame.image.pixels[3 * 128 + 5], 46)
        XCTAssertEqual(frame.image.pixels[127 * 128 + 127], 0)
    }

    /// A 369-byte FlexBuffer (the tflite target decodes its input as one too) whose vectors share
    /// their elements: decoded in full it reaches millions of values. The element budget stops it
    /// with `workLimitExceeded` at 2^18 values (350 ms in the fuzzer's ASan build at 2^20, 87 ms now).
    func testFlexBufferOfSharedVectorsStopsAtTheElementBudget() throws {
        let bytes = try Self.regression("tflite", "flexbuffers-shared-vectors-dag")
        XCTAssertEqual(bytes.count, 369)
        XCTAssertThrowsError(try bytes.withUnsafeBytes { try FlexBuffers.decode($0) }) { error in
            guard case FlatBufferError.workLimitExceeded(let limit) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(limit, 1 << 18)
        }
        // It grows exponentially with depth: even 2^22 values are not enough.
        XCTAssertThrowsError(try bytes.withUnsafeBytes { try FlexBuffers.decode($0, maxElements: 1 << 22) }) { error in
            guard case FlatBufferError.workLimitExceeded(1 << 22) = error else { return XCTFail("\(error)") }
        }
    }

    /// A 1×1 gray PNG (decoded as RGBA) with 2,000 empty ancillary chunks, then a NUL byte (which makes the fuzz
    /// target read it in 1-byte chunks). `ImageStreamReader` scanned the PNG's chunks from its
    /// signature again after every piece: 2.2 s in the fuzzer's ASan build. The scan now goes on
    /// from the chunk it stopped at; the outcome is the same at any chunk size.
    func testManyEmptyPNGChunksReadTheSameAtAnyChunkSize() throws {
        let bytes = try Self.regression("image_stream", "many-empty-chunks.png")
        let png = Array(bytes.dropLast())
        for chunk in [1, 7, 4096, bytes.count] {
            let seen = Self.imageStream(bytes, chunkSize: chunk)
            XCTAssertEqual(seen.first, "1x1 rgba8", "chunk \(chunk)")
            XCTAssertEqual(seen.count, 2, "chunk \(chunk): \(seen)")
        }
        let reader = ImageStreamReader(bytes: png, chunkSize: 1)
        let frame = try XCTUnwrap(try reader.nextFrame())
        XCTAssertEqual(frame.image.pixels, [0x7F, 0x7F, 0x7F, 0xFF])   // gray 127, decoded as RGBA
        XCTAssertNil(try reader.nextFrame())
        // Prefix by prefix with the resume point carried along: more is needed until the last
        // byte, the resume point only moves forward and stays on a chunk start (12 bytes apart
        // among the empty chunks), and the end is found where the scan from scratch finds it.
        var resume: Int?
        var last = 0
        for n in 0..<png.count {
            XCTAssertEqual(FrameBoundary.pngEnd(Array(png[0..<n]), from: 0, resume: &resume), .needMore, "prefix \(n)")
            let r = resume ?? 0
            XCTAssertGreaterThanOrEqual(r, last, "prefix \(n)")
            if r >= 33, r < 33 + 12 * 2000 { XCTAssertEqual((r - 33) % 12, 0, "prefix \(n)") }
            last = r
        }
        XCTAssertEqual(FrameBoundary.pngEnd(png, from: 0, resume: &resume), .end(png.count))
        XCTAssertEqual(FrameBoundary.pngEnd(png, from: 0), .end(png.count))
    }
}
