import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class ImageDecoderTests: XCTestCase {
    private func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] { HostileFiles.pngChunk(type, data) }

    func testSniffingAndDispatch() throws {
        let image = try ImageBuffer(width: 2, height: 1, format: .rgb8, pixels: [1, 2, 3, 4, 5, 6])
        let png = try PNGEncoder.encode(image)
        XCTAssertEqual(ImageDecoder.sniff(png), .png)
        XCTAssertEqual(try ImageDecoder.decode(png).format, .png)
        let ppm = PPMEncoder.encode(image)
        XCTAssertEqual(ImageDecoder.sniff(ppm), .ppm)
        XCTAssertEqual(try ImageDecoder.decode(ppm).image, image)
        XCTAssertEqual(ImageDecoder.sniff([0xFF, 0xD8, 0xFF, 0xE0]), .jpeg)
        XCTAssertThrowsError(try ImageDecoder.decode([0xFF, 0xD8, 0xFF, 0xE0, 0, 0])) { error in
            // A truncated JPEG goes to the JPEG decoder, which says where it ended.
            guard case ImageDecodeError.jpeg = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try ImageDecoder.decode(Array("GIF89a".utf8))) { error in
            guard case ImageDecodeError.unknownFormat = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try ImageDecoder.decode(contentsOf: "/nonexistent/file.png")) { error in
            guard case ImageDecodeError.unreadableFile = error else { return XCTFail("\(error)") }
        }
        // A PNG with a damaged signature is explained by the PNG decoder.
        var damaged = png; damaged[0] = 0x09
        XCTAssertThrowsError(try ImageDecoder.decode(damaged)) { error in
            guard case ImageDecodeError.png(.badSignature) = error else { return XCTFail("\(error)") }
        }
    }

    func testPNGKeepsTheEXIFPayload() throws {
        let image = try ImageBuffer(width: 1, height: 1, format: .gray8, pixels: [42])
        let png = try PNGEncoder.encode(image)
        let exif: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        // Insert eXIf after IHDR (8 signature + 25 IHDR bytes).
        let withExif = Array(png[0..<33]) + chunk("eXIf", exif) + Array(png[33...])
        let decoded = try PNGDecoder.decode(withExif)
        XCTAssertEqual(decoded.exif, exif)
        XCTAssertEqual(decoded.image.pixels, [42, 42, 42, 255])
        XCTAssertNil(try PNGDecoder.decode(png).exif)
        // An unknown ancillary chunk is skipped; an unknown critical one is refused.
        XCTAssertNoThrow(try PNGDecoder.decode(Array(png[0..<33]) + chunk("zzZz", [1, 2]) + Array(png[33...])))
        XCTAssertThrowsError(try PNGDecoder.decode(Array(png[0..<33]) + chunk("ZZZZ", [1, 2]) + Array(png[33...]))) { error in
            guard case PNGError.unknownCriticalChunk(_, "ZZZZ") = error else { return XCTFail("\(error)") }
        }
    }

    func testImageDataLengthRules() throws {
        // 2x2 gray8: rows of 1 filter byte + 2 samples.
        func png(_ scanlines: [UInt8]) -> [UInt8] {
            PNGDecoder.signature + chunk("IHDR", [0, 0, 0, 2, 0, 0, 0, 2, 8, 0, 0, 0, 0])
                + chunk("IDAT", Zlib.compress(scanlines)) + chunk("IEND", [])
        }
        XCTAssertEqual(try PNGDecoder.decode(png([0, 1, 2, 0, 3, 4])).image.pixels,
                       [1, 1, 1, 255, 2, 2, 2, 255, 3, 3, 3, 255, 4, 4, 4, 255])
        // Extra bytes after the last row are ignored, as libpng does.
        XCTAssertEqual(try PNGDecoder.decode(png([0, 1, 2, 0, 3, 4, 0, 0])).image.pixels.count, 16)
        XCTAssertThrowsError(try PNGDecoder.decode(png([0, 1, 2, 0, 3]))) { error in
            XCTAssertEqual(error as? PNGError, .imageDataTooShort(expected: 6, actual: 5))
        }
        XCTAssertThrowsError(try PNGDecoder.decode(png([0, 1, 2, 5, 3, 4]))) { error in
            XCTAssertEqual(error as? PNGError, .invalidFilterType(pass: 0, row: 1, filter: 5))
        }
        // A huge stream of zeros (a decompression bomb) stops at the bounded allowance.
        XCTAssertThrowsError(try PNGDecoder.decode(png([UInt8](repeating: 0, count: 1 << 20)))) { error in
            guard case PNGError.compression(.outputLimitExceeded) = error else { return XCTFail("\(error)") }
        }
    }

    func testErrorsDescribeThemselvesInOneSentence() {
        let errors: [CustomStringConvertible] = [
            PNGError.crcMismatch(offset: 33, type: "IDAT", stored: 1, computed: 2),
            PNGError.compression(.truncated(byteOffset: 10)),
            PPMError.truncatedRaster(expected: 192, available: 100),
            InflateError.distanceTooFar(byteOffset: 3, distance: 10, available: 2),
            ImageDecodeError.jpeg(.truncated(offset: 6, context: "marker")),
        ]
        for e in errors {
            XCTAssertFalse(e.description.isEmpty)
            XCTAssertFalse(e.description.contains("\n"))
        }
        XCTAssertTrue(PNGError.crcMismatch(offset: 33, type: "IDAT", stored: 1, computed: 2).description.contains("33"))
    }

    /// A video or another image format given as an image says what it is (so the CLI can say
    /// how to feed a video), and an empty input says it is empty, not "PPM data is empty".
    func testOtherFormatsAndEmptyDataSayWhatTheyAre() {
        let mp4: [UInt8] = [0x00, 0x00, 0x00, 0x20] + Array("ftypisom".utf8) + [0, 0, 2, 0]
        let mkv: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3, 0x01, 0x00, 0x00, 0x00]
        let gif = Array("GIF89a".utf8) + [1, 0, 1, 0]
        let cases: [([UInt8], String)] = [
            (mp4, "not an image objdetect reads: the data is an MP4 or QuickTime video (PNG, JPEG and PPM/PGM/PBM are read)"),
            (mkv, "not an image objdetect reads: the data is a Matroska or WebM video (PNG, JPEG and PPM/PGM/PBM are read)"),
            (gif, "not an image objdetect reads: the data is a GIF image (PNG, JPEG and PPM/PGM/PBM are read)"),
            ([], "the image data is empty (0 bytes): there is no image to decode"),
        ]
        for (bytes, message) in cases {
            XCTAssertThrowsError(try ImageDecoder.decode(bytes)) { XCTAssertEqual(String(describing: $0), message) }
        }
        XCTAssertEqual(ImageDecoder.videoFormat(mp4), "an MP4 or QuickTime video")
        XCTAssertNil(ImageDecoder.videoFormat(gif))
    }
}
