import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Tiny files that claim huge sizes: each limit is checked before the memory is allocated or
/// the bytes are buffered (issue 14). Expected limits are worked out by hand in the comments.
final class DecoderLimitTests: XCTestCase {
    private let ppmHuge = Array("P6\n60000 60000\n255\n".utf8)

    // MARK: PNG

    func testPNGHeaderAboveThePixelLimitIsRefusedFromTheHeader() {
        let file = HostileFiles.png(width: 60000, height: 60000, idat: Zlib.compress([0, 0]))
        XCTAssertLessThan(file.count, 100)
        XCTAssertThrowsError(try PNGDecoder.decode(file)) { error in
            XCTAssertEqual(error as? PNGError, .tooManyPixels(width: 60000, height: 60000, limit: 100_000_000))
        }
    }

    func testPNGClaimingALargeImageWithLittleDataFailsWithoutReservingIt() {
        // 10000 x 10000 gray is within the pixel limit: its rows need 10000 x (10000 + 1) bytes,
        // but 1 KiB of zlib data cannot grow past ~1032 x its size, so nothing near 100 MB is reserved.
        let file = HostileFiles.png(width: 10000, height: 10000, idat: Zlib.compress([UInt8](repeating: 0, count: 1024)))
        XCTAssertThrowsError(try PNGDecoder.decode(file)) { error in
            XCTAssertEqual(error as? PNGError, .imageDataTooShort(expected: 100_010_000, actual: 1024))
        }
    }

    func testPNGImageDataBombStopsAtTheSizeTheHeaderImplies() {
        // 16 x 16 gray: 16 rows of 1 + 16 bytes = 272; allowance 272 / 4 + 4096 = 4164; limit 4436.
        let file = HostileFiles.png(width: 16, height: 16, idat: Zlib.compress([UInt8](repeating: 0, count: 1 << 20)))
        XCTAssertLessThan(file.count, 2000)
        XCTAssertThrowsError(try PNGDecoder.decode(file)) { error in
            XCTAssertEqual(error as? PNGError, .compression(.outputLimitExceeded(limit: 4436)))
        }
    }

    func testCompressedMetadataChunksAreNotInflated() throws {
        // zTXt, iTXt and iCCP bodies that would inflate to 4 MiB each: the decoder skips them.
        let bomb = Zlib.compress([UInt8](repeating: 0, count: 4 << 20))
        let chunks = [
            HostileFiles.pngChunk("zTXt", Array("Comment".utf8) + [0, 0] + bomb),
            HostileFiles.pngChunk("iTXt", Array("Comment".utf8) + [0, 1, 0, 0, 0] + bomb),
            HostileFiles.pngChunk("iCCP", Array("ICC".utf8) + [0, 0] + bomb),
        ]
        let file = HostileFiles.png(width: 1, height: 1, idat: Zlib.compress([0, 200]), before: chunks)
        XCTAssertEqual(try PNGDecoder.decode(file).image.pixels, [200, 200, 200, 255])
    }

    func testInflateDoesNotTrustAClaimedSizeItsInputCannotReach() throws {
        // A claimed 1 TiB output used to size the first allocation (and trap); now the claim is
        // capped by what the input could expand to.
        let packed = Deflate.compressRaw([1, 2, 3, 4])
        let out = try Inflate.decompressRaw(packed, maxOutputSize: 1 << 40, expectedSize: 1 << 40).output
        XCTAssertEqual(out, [1, 2, 3, 4])
        XCTAssertEqual(try Zlib.decompress(Zlib.compress([9, 9]), maxOutputSize: 1 << 40, expectedSize: 1 << 40), [9, 9])
    }

    // MARK: frame streams

    /// A source that hands out `head` once, then `tail` forever, counting the chunks pulled.
    private final class EndlessSource {
        var pulls = 0
        let head: [UInt8], tail: [UInt8]
        init(head: [UInt8], tail: [UInt8]) { self.head = head; self.tail = tail }
        func next() -> [UInt8]? {
            pulls += 1
            return pulls == 1 ? head : tail
        }
    }

    private func firstError(_ reader: ImageStreamReader) -> ImageStreamError? {
        do { _ = try reader.nextFrame(); return nil } catch { return error }
    }

    func testPPMFrameAboveThePixelLimitIsRefusedBeforeItsRaster() {
        let source = EndlessSource(head: ppmHuge, tail: [UInt8](repeating: 0, count: 1 << 16))
        let reader = ImageStreamReader(source: source.next)
        guard case let .malformedFrame(frame: 1, format: .ppm, reason)? = firstError(reader) else { return XCTFail() }
        XCTAssertEqual(reason, "PPM image of 60000x60000 pixels exceeds the limit of 100000000 pixels")
        XCTAssertEqual(source.pulls, 1)
    }

    func testPPMFrameAboveTheFrameLimitIsRefusedFromItsHeader() {
        // 10000 x 10000 RGB is within the pixel limit; 19 header bytes + 300,000,000 raster bytes
        // are above the default 256 MiB (268,435,456 bytes).
        let source = EndlessSource(head: Array("P6\n10000 10000\n255\n".utf8), tail: [UInt8](repeating: 0, count: 1 << 16))
        let reader = ImageStreamReader(source: source.next)
        guard case .frameTooLarge(frame: 1, bytes: 300_000_019, limit: 268_435_456)? = firstError(reader) else { return XCTFail() }
        XCTAssertEqual(source.pulls, 1)
        XCTAssertFalse(reader.canContinue)
        // The same frame within a larger limit is waited for.
        XCTAssertEqual(ImageLimits.defaultMaxFrameBytes, 256 << 20)
    }

    func testPNGFrameHeadersAreCheckedBeforeBuffering() {
        let signature = PNGDecoder.signature
        let hugeHeader = EndlessSource(head: signature + HostileFiles.pngChunk("IHDR", HostileFiles.ihdr(width: 60000, height: 60000)),
                                       tail: [UInt8](repeating: 0, count: 1 << 16))
        guard case let .malformedFrame(frame: 1, format: .png, reason)? = firstError(ImageStreamReader(source: hugeHeader.next)) else {
            return XCTFail()
        }
        XCTAssertEqual(reason, "its header claims 60000x60000 pixels, above the limit of 100000000 pixels")
        XCTAssertEqual(hugeHeader.pulls, 1)
        // An IDAT chunk of 300,000,000 bytes after the 8-byte signature and the 25-byte IHDR
        // chunk: 8 + 25 + 12 + 300,000,000 bytes, above 256 MiB, refused from its length field.
        let longChunk = EndlessSource(head: signature + HostileFiles.pngChunk("IHDR", HostileFiles.ihdr(width: 16, height: 16))
                                            + HostileFiles.bigEndian32(300_000_000) + Array("IDAT".utf8),
                                      tail: [UInt8](repeating: 0, count: 1 << 16))
        guard case .frameTooLarge(frame: 1, bytes: 300_000_045, limit: 268_435_456)? = firstError(ImageStreamReader(source: longChunk.next)) else {
            return XCTFail()
        }
        XCTAssertEqual(longChunk.pulls, 1)
    }

    func testJPEGFrameHeaderAboveThePixelLimitIsRefused() {
        // SOI, SOF0 of length 17: precision 8, height 65535, width 65535, 3 components.
        let sof: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 8, 0xFF, 0xFF, 0xFF, 0xFF, 3,
                            1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        let source = EndlessSource(head: sof, tail: [UInt8](repeating: 0, count: 1 << 16))
        guard case let .malformedFrame(frame: 1, format: .jpeg, reason)? = firstError(ImageStreamReader(source: source.next)) else {
            return XCTFail()
        }
        XCTAssertEqual(reason, "its header claims 65535x65535 pixels, above the limit of 100000000 pixels")
        XCTAssertEqual(source.pulls, 1)
    }

    func testEndlessJPEGScanStopsAtTheFrameLimit() {
        // SOI and an SOS header, then entropy-coded zeros that never end: the reader holds at
        // most the limit plus one chunk (4 KiB) before it gives up.
        let sos: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x08, 1, 1, 0, 0, 63, 0]
        let source = EndlessSource(head: sos, tail: [UInt8](repeating: 0, count: 4096))
        let reader = ImageStreamReader(source: source.next, maxFrameBytes: 65536)
        guard case .frameTooLarge(frame: 1, bytes: nil, limit: 65536)? = firstError(reader) else { return XCTFail() }
        // 12 + 4096 k >= 65536 first at k = 16: the head and 16 chunks.
        XCTAssertEqual(source.pulls, 17)
    }

    func testPPMStreamReaderFrameLimits() {
        let raw = EndlessSource(head: Array("P6\n10000 10000\n255\n".utf8), tail: [UInt8](repeating: 0, count: 1 << 16))
        XCTAssertThrowsError(try PPMStreamReader(source: raw.next).nextFrame()) { error in
            XCTAssertEqual(error as? PPMError, .frameTooLarge(bytes: 300_000_019, limit: 268_435_456))
        }
        XCTAssertEqual(raw.pulls, 1)
        // A plain frame's size is not in its header: 15 header bytes + 3 chunks of "1 1 1 …"
        // (12,303 bytes) is the first buffer at or above a 10,000-byte limit.
        let plain = EndlessSource(head: Array("P3\n100 100\n255\n".utf8), tail: Array(String(repeating: "1 ", count: 2048).utf8))
        XCTAssertThrowsError(try PPMStreamReader(source: plain.next, maxFrameBytes: 10_000).nextFrame()) { error in
            XCTAssertEqual(error as? PPMError, .frameTooLarge(bytes: 12_303, limit: 10_000))
        }
        let huge = EndlessSource(head: ppmHuge, tail: [UInt8](repeating: 0, count: 1 << 16))
        XCTAssertThrowsError(try PPMStreamReader(source: huge.next).nextFrame()) { error in
            XCTAssertEqual(error as? PPMError, .tooManyPixels(width: 60000, height: 60000, limit: 100_000_000))
        }
        XCTAssertEqual(huge.pulls, 1)
    }

    func testFrameLimitErrorsReadAsOneSentence() {
        XCTAssertEqual(ImageStreamError.frameTooLarge(frame: 3, bytes: 300_000_019, limit: 268_435_456).description,
                       "frame 3 takes at least 300000019 bytes by its header, above the per-frame limit of 268435456 bytes")
        XCTAssertEqual(ImageStreamError.frameTooLarge(frame: 1, bytes: nil, limit: 65536).description,
                       "frame 1 does not end within the per-frame limit of 65536 bytes")
    }

    // MARK: command line

    func testCommandLineRefusesHugeStdinFrames() throws {
        let huge = try CLIRunner.run(["-", "--mode", "stream", "--model", "face-short", "--quiet"], stdin: Data(ppmHuge))
        XCTAssertEqual(huge.status, 1)
        XCTAssertTrue(huge.stderr.contains("60000x60000 pixels exceeds the limit of 100000000 pixels"), huge.stderr)
        // A 1,500 x 1,000 gray frame (1,500,015 bytes) with --max-frame-mb 1 (1,048,576 bytes).
        let frame = Array("P5\n1500 1000\n255\n".utf8) + [UInt8](repeating: 9, count: 1_500_000)
        let capped = try CLIRunner.run(["-", "--mode", "stream", "--model", "face-short", "--quiet", "--max-frame-mb", "1"],
                                       stdin: Data(frame))
        XCTAssertEqual(capped.status, 1)
        XCTAssertTrue(capped.stderr.contains("takes at least 1500017 bytes by its header, above the per-frame limit of 1048576 bytes"),
                      capped.stderr)
        XCTAssertEqual(capped.stderr.split(separator: "\n").count, 1, capped.stderr)
    }
}
