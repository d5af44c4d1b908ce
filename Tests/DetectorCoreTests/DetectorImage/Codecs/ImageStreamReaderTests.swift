import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Splitting concatenated PNG, JPEG and PPM files (what `ffmpeg -f image2pipe` writes) into
/// frames: boundaries by hand-built byte sequences, then real files read back frame by frame in
/// small chunks, as a pipe delivers them.
final class ImageStreamReaderTests: XCTestCase {
    /// A JPEG skeleton whose traps are known: an APP1 segment holding a thumbnail's own SOI/EOI,
    /// entropy data with a stuffed FF 00, a restart marker and fill bytes, and a second scan.
    func testJPEGBoundarySkipsSegmentsAndEntropyDataTraps() {
        let app1: [UInt8] = [0xFF, 0xE1, 0x00, 0x08, 0xFF, 0xD8, 0xFF, 0xD9, 0x00, 0x00]   // length 8 covers 6 payload bytes
        let sos: [UInt8] = [0xFF, 0xDA, 0x00, 0x03, 0x01]
        let entropy: [UInt8] = [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD3, 0x56, 0xFF, 0xFF, 0x00, 0x78]
        let secondScan: [UInt8] = [0xFF, 0xFF, 0xDA, 0x00, 0x02, 0x9A, 0xFF, 0x00]
        let jpeg: [UInt8] = [0xFF, 0xD8] + app1 + sos + entropy + secondScan + [0xFF, 0xD9]
        XCTAssertEqual(jpeg.count, 2 + 10 + 5 + 11 + 8 + 2)
        XCTAssertEqual(FrameBoundary.jpegEnd(jpeg + [0xFF, 0xD8, 0x00], from: 0), .end(38))
        XCTAssertEqual(FrameBoundary.jpegEnd([0x00, 0x00] + jpeg, from: 2), .end(40))
        // Every shorter prefix asks for more, never ends early or calls the data invalid.
        for n in 0..<jpeg.count {
            XCTAssertEqual(FrameBoundary.jpegEnd(Array(jpeg[0..<n]), from: 0), .needMore, "prefix \(n)")
        }
        // Growing the buffer a byte at a time and going on from where the last call stopped finds
        // the same end, and the resume point never moves backwards.
        var resume: FrameBoundary.JPEGResume?
        var lastOffset = 0
        for n in 0..<jpeg.count {
            XCTAssertEqual(FrameBoundary.jpegEnd([0xAA] + Array(jpeg[0..<n]), from: 1, resume: &resume), .needMore, "prefix \(n)")
            XCTAssertGreaterThanOrEqual(resume?.offset ?? 0, lastOffset)
            lastOffset = resume?.offset ?? 0
        }
        XCTAssertEqual(resume, FrameBoundary.JPEGResume(offset: 36, inEntropyData: true), "stopped in the second scan at the FF of EOI")
        XCTAssertEqual(FrameBoundary.jpegEnd([0xAA] + jpeg, from: 1, resume: &resume), .end(39))
        guard case .invalid = FrameBoundary.jpegEnd([0xFF, 0xD8, 0x12, 0x34], from: 0) else { return XCTFail("no marker after SOI") }
        guard case .invalid = FrameBoundary.jpegEnd([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x01], from: 0) else { return XCTFail("length 1") }
    }

    /// PNG chunks are skipped by length: "IEND" bytes inside a chunk's data do not end the file.
    func testPNGBoundaryEndsAfterTheIENDChunk() {
        let signature = PNGDecoder.signature
        let decoy: [UInt8] = [0, 0, 0, 4] + Array("tEXt".utf8) + Array("IEND".utf8) + [1, 2, 3, 4]
        let iend: [UInt8] = [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
        let png = signature + decoy + iend
        XCTAssertEqual(png.count, 8 + 16 + 12)
        XCTAssertEqual(FrameBoundary.pngEnd(png + signature, from: 0), .end(36))
        for n in 0..<png.count { XCTAssertEqual(FrameBoundary.pngEnd(Array(png[0..<n]), from: 0), .needMore, "prefix \(n)") }
        guard case .invalid = FrameBoundary.pngEnd(signature + [0xFF, 0xFF, 0xFF, 0xFF] + Array("IDAT".utf8), from: 0) else {
            return XCTFail("a chunk length above 2^31-1 is invalid")
        }
    }

    func testMixedStreamReadsBackEveryFrameInSmallChunks() throws {
        let photo = try ImageDecoder.decode(contentsOf: SharedData.fixture("astronaut.png").path).image.converted(to: .rgb8)
        let small = try photo.cropped(x: 100, y: 50, width: 64, height: 48)
        let png = try PNGEncoder.encode(small)
        let ppm = PPMEncoder.encode(try photo.cropped(x: 0, y: 0, width: 33, height: 17))
        let jpegFile = [UInt8](try Data(contentsOf: SharedData.fixture("astronaut_128x128_q90_420_exif6.jpg")))
        let stream = png + jpegFile + ppm + png + jpegFile
        let expected = try [png, jpegFile, ppm, png, jpegFile].map { try ImageDecoder.decode($0) }
        for chunk in [1, 7, 4096, 1 << 20] {
            let reader = ImageStreamReader(bytes: stream, chunkSize: chunk)
            var frames: [DecodedImage] = []
            while let frame = try reader.nextFrame() { frames.append(frame) }
            XCTAssertEqual(frames.count, 5, "chunk \(chunk)")
            for (got, want) in zip(frames, expected) {
                XCTAssertEqual(got.format, want.format)
                XCTAssertEqual(got.image, want.image, "chunk \(chunk)")
                XCTAssertEqual(got.orientation, want.orientation)
            }
            XCTAssertEqual(reader.frameCount, 5)
            XCTAssertFalse(reader.canContinue)
        }
    }

    /// Real JPEGs with thumbnails, fill bytes, restart markers and progressive scans, back to back.
    func testSharedJPEGsSplitExactly() throws {
        let names = ["exif_thumbnail.jpg", "fill_ff_before_markers.jpg", "fill_ff_before_rst_markers.jpg",
                     "restart_every_mcu_444.jpg", "progressive_custom_scans_successive_approx.jpg",
                     "progressive_restart_2_420.jpg", "app_segments_many.jpg", "no_dht_mjpeg_default_tables.jpg",
                     "icc_profile_display_p3.jpg"]
        let files = try names.map { [UInt8](try Data(contentsOf: try SharedData.url("jpeg/\($0)"))) }
        var stream: [UInt8] = []
        var ends: [Int] = []
        for f in files {
            stream += f
            ends.append(stream.count)
        }
        var start = 0
        for (name, end) in zip(names, ends) {
            XCTAssertEqual(FrameBoundary.jpegEnd(stream, from: start), .end(end), name)
            start = end
        }
        let reader = ImageStreamReader(bytes: stream, chunkSize: 1000)
        for (name, file) in zip(names, files) {
            let frame = try XCTUnwrap(try reader.nextFrame(), name)
            XCTAssertEqual(frame.image, try ImageDecoder.decode(file).image, name)
        }
        XCTAssertNil(try reader.nextFrame())
    }

    func testBadStreamsGiveOneTypedError() throws {
        func firstError(_ bytes: [UInt8]) -> (frames: Int, error: ImageStreamError?) {
            let reader = ImageStreamReader(bytes: bytes, chunkSize: 512)
            var frames = 0
            do {
                while try reader.nextFrame() != nil { frames += 1 }
            } catch {
                XCTAssertNil(try? reader.nextFrame() ?? nil, "nothing after a stream-ending error")
                return (frames, error)
            }
            return (frames, nil)
        }
        var rng = SplitMix64(seed: 17)
        let noise = (0..<5000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let png = try PNGEncoder.encode(ImageBuffer(width: 4, height: 3, format: .rgb8, pixels: [UInt8](repeating: 200, count: 36)))
        // Random bytes, and a list of paths whose first one starts with "P".
        for bytes in [[0x10] + noise, Array("Pictures/a.png\nPictures/b.png\n".utf8)] {
            let r = firstError(bytes)
            XCTAssertEqual(r.frames, 0)
            guard case .notAnImageStream? = r.error else { return XCTFail("\(String(describing: r.error))") }
        }
        let garbage = firstError(png + png + [0x10] + noise)
        XCTAssertEqual(garbage.frames, 2)
        guard case .unexpectedBytes(afterFrame: 2, _)? = garbage.error else { return XCTFail("\(String(describing: garbage.error))") }
        let truncated = firstError(png + Array(png.dropLast(5)))
        XCTAssertEqual(truncated.frames, 1)
        guard case .truncatedFrame(frame: 2, format: .png)? = truncated.error else { return XCTFail("\(String(describing: truncated.error))") }
        // A delimited frame that does not decode (bad CRC) is reported and the next one still reads.
        var broken = png
        broken[broken.count - 20] ^= 0xFF
        let reader = ImageStreamReader(bytes: broken + png)
        XCTAssertThrowsError(try reader.nextFrame()) { error in
            guard case .undecodableFrame(frame: 1, _)? = error as? ImageStreamError else { return XCTFail("\(error)") }
        }
        XCTAssertTrue(reader.canContinue)
        XCTAssertEqual(try reader.nextFrame()?.image.width, 4)
        XCTAssertEqual(reader.frameCount, 2)
        XCTAssertFalse(ImageStreamError.notAnImageStream(firstBytes: Array("Pictures".utf8)).description.contains("\n"))
    }

    func testFrameSizeLimit() {
        let header = Array("P5\n4000 4000\n255\n".utf8) + [UInt8](repeating: 7, count: 3000)
        let reader = ImageStreamReader(source: { [UInt8](repeating: 1, count: 1000) }, maxFrameBytes: 2000)
        XCTAssertThrowsError(try reader.nextFrame())   // endless non-image data: not a stream
        var sent = false
        let large = ImageStreamReader(source: {
            if sent { return [UInt8](repeating: 7, count: 1000) }
            sent = true
            return header
        }, maxFrameBytes: 10_000)
        XCTAssertThrowsError(try large.nextFrame()) { error in
            // 17 header bytes + 4000 x 4000 raster bytes, refused from the header alone.
            guard case .frameTooLarge(frame: 1, bytes: 16_000_017, limit: 10_000)? = error as? ImageStreamError else { return XCTFail("\(error)") }
        }
    }

    /// Mutated and cut streams end in frames or typed errors, never a trap or an endless loop.
    func testMutatedStreamsNeverTrap() throws {
        let photo = try ImageDecoder.decode(contentsOf: SharedData.fixture("astronaut.png").path).image.converted(to: .rgb8)
        let png = try PNGEncoder.encode(try photo.cropped(x: 0, y: 0, width: 24, height: 16))
        let jpeg = [UInt8](try Data(contentsOf: SharedData.fixture("astronaut_128x128_q90_420_exif6.jpg")))
        let ppm = PPMEncoder.encode(try photo.cropped(x: 0, y: 0, width: 9, height: 7))
        let stream = png + jpeg + ppm + png
        var rng = SplitMix64(seed: 2026)
        var frames = 0, errors = 0
        for _ in 0..<600 {
            var bytes = stream
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[i] = [0x00, 0xFF, 0xD8, 0xD9, 0xDA, 0x49, 0x50, UInt8.random(in: 0...255, using: &rng)].randomElement(using: &rng) ?? 0
            }
            if Bool.random(using: &rng) { bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng))) }
            let reader = ImageStreamReader(bytes: bytes, chunkSize: Int.random(in: 1...3000, using: &rng))
            for _ in 0..<20 {
                do {
                    guard try reader.nextFrame() != nil else { break }
                    frames += 1
                } catch {
                    errors += 1
                    XCTAssertFalse(String(describing: error).isEmpty)
                }
                if !reader.canContinue { break }
            }
            XCTAssertLessThanOrEqual(reader.frameCount, 4 + 2)
        }
        XCTAssertGreaterThan(frames, 0)
        XCTAssertGreaterThan(errors, 0)
    }
}
