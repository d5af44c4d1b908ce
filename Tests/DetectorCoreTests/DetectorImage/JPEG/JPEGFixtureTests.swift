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

/// Tests on the committed fixture (run on a fresh clone without `../shared`).
///
/// `Fixtures/astronaut_128x128_q90_420_exif6.jpg` was made with Pillow 13.0.0 (libjpeg-turbo
/// 3.2.0) from `Fixtures/astronaut.png`:
/// ```python
/// src = Image.open("Fixtures/astronaut.png").convert("RGB").crop((176, 48, 304, 176))
/// exif = Image.Exif(); exif[0x0112] = 6
/// src.save(path, quality=90, subsampling=2, exif=exif.tobytes())
/// ```
/// and the expected hashes with
/// `hashlib.sha256(Image.open(path).convert("RGBA").tobytes())` and the same after
/// `ImageOps.exif_transpose`.
final class JPEGFixtureTests: XCTestCase {
    func testAstronautFixtureMatchesPillow() throws {
        let bytes = [UInt8](try Data(contentsOf: SharedData.fixture("astronaut_128x128_q90_420_exif6.jpg")))
        XCTAssertEqual(SHA256Hash.hexDigest(bytes), "bf5d31615766eead9bcd5953663f24f4474560a82789432f453aa3df10458b34")
        let decoded = try JPEGDecoder.decode(bytes)
        XCTAssertEqual(decoded.image.width, 128)
        XCTAssertEqual(decoded.image.height, 128)
        XCTAssertEqual(decoded.colorType, "ycbcr")
        XCTAssertEqual(decoded.orientation, .right)
        let rgba = decoded.image.converted(to: .rgba8)
        XCTAssertEqual(SHA256Hash.hexDigest(rgba.pixels), "de956c3142ca710adfadca26a95f14f8fff974da932c2bdfa6de95b86fd58f98")
        let upright = decoded.image.applyingOrientation(.right).converted(to: .rgba8)
        XCTAssertEqual(SHA256Hash.hexDigest(upright.pixels), "8a5cdc0bccb5ec6eb7fe8f3a860abb052b44ec71df752637dba6267112372b52")
    }

    /// A skipped segment (COM, APPn) whose length field is 0 or 1: libjpeg-turbo reads the two
    /// length bytes, resynchronises on the next marker with a warning and decodes the image; so
    /// does Pillow 13.0.0, whose RGBA bytes for each of these three files equal the untouched
    /// file's (checked with `Image.open(io.BytesIO(data)).tobytes()`). A parsed segment (DQT) with
    /// such a length stays an error, as in libjpeg-turbo (JERR_BAD_LENGTH).
    func testSegmentWithLengthBelowTwoIsSkippedAsLibjpegDoes() throws {
        let bytes = [UInt8](try Data(contentsOf: SharedData.fixture("astronaut_128x128_q90_420_exif6.jpg")))
        for inserted: [UInt8] in [[0xFF, 0xFE, 0x00, 0x00], [0xFF, 0xE5, 0x00, 0x01], [0xFF, 0xFE, 0x00, 0x00, 0x12, 0x34]] {
            let file = Array(bytes[..<2]) + inserted + Array(bytes[2...])
            let decoded = try JPEGDecoder.decode(file)
            XCTAssertEqual(decoded.orientation, .right)
            XCTAssertEqual(SHA256Hash.hexDigest(decoded.image.converted(to: .rgba8).pixels),
                           "de956c3142ca710adfadca26a95f14f8fff974da932c2bdfa6de95b86fd58f98", "\(inserted)")
        }
        let badTable = Array(bytes[..<2]) + [0xFF, 0xDB, 0x00, 0x00] + Array(bytes[2...])
        XCTAssertThrowsError(try JPEGDecoder.decode(badTable)) { error in
            XCTAssertTrue(String(describing: error).contains("less than 2"), "\(error)")
        }
    }

    /// The worked example of `../shared/jpeg/README.md`, built by hand: a 1x1 4:4:4 file whose
    /// three blocks hold only DC values -27, -51, 56 with quantizer 3 → RGBA 93 6e 54 ff.
    func testHandBuiltOnePixelFile() throws {
        let bytes = JPEGTestFiles.onePixel444(dcY: -27, dcCb: -51, dcCr: 56, quant: 3)
        let decoded = try JPEGDecoder.decode(bytes)
        XCTAssertEqual(decoded.image.pixels, [0x93, 0x6e, 0x54])
        XCTAssertNil(decoded.orientation)
    }
}

/// Small JPEG files built byte by byte for tests.
enum JPEGTestFiles {
    /// A 1x1 4:4:4 baseline file: DC table with categories 0...11 all of length 4 (codes
    /// 0000...1011), an AC table whose only code `0` is EOB, one quantizer for everything.
    static func onePixel444(dcY: Int, dcCb: Int, dcCr: Int, quant: UInt8) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        func segment(_ marker: UInt8, _ payload: [UInt8]) {
            out += [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        segment(0xE0, [0x4A, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0])
        segment(0xDB, [0x00] + [UInt8](repeating: quant, count: 64))
        segment(0xC0, [8, 0, 1, 0, 1, 3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0])
        var dcCounts = [UInt8](repeating: 0, count: 16); dcCounts[3] = 12
        segment(0xC4, [0x00] + dcCounts + (0...11).map { UInt8($0) })
        var acCounts = [UInt8](repeating: 0, count: 16); acCounts[0] = 1
        segment(0xC4, [0x10] + acCounts + [0x00])
        segment(0xDA, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0])
        // Entropy data: per block the DC category code (4 bits), the extra bits, then EOB ("0").
        // Each component has its own predictor starting at 0, so the difference is the value.
        var bits: [Int] = []
        for diff in [dcY, dcCb, dcCr] {
            let magnitude = abs(diff)
            let category = magnitude == 0 ? 0 : (Int.bitWidth - magnitude.leadingZeroBitCount)
            for i in (0..<4).reversed() { bits.append((category >> i) & 1) }
            let extra = diff >= 0 ? diff : diff + (1 << category) - 1
            for i in (0..<category).reversed() { bits.append((extra >> i) & 1) }
            bits.append(0)
        }
        while bits.count % 8 != 0 { bits.append(1) }
        for i in stride(from: 0, to: bits.count, by: 8) {
            let byte = bits[i..<(i + 8)].reduce(0) { $0 << 1 | $1 }
            out.append(UInt8(byte))
            if byte == 0xFF { out.append(0) }
        }
        out += [0xFF, 0xD9]
        return out
    }
}
