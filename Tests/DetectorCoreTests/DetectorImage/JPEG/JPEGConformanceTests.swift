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

/// Every file of `../shared/goldens/jpeg.json`: good files decode to the golden RGBA8 hashes
/// (raw and after EXIF orientation), header facts match, bad and unsupported files are
/// rejected with a typed `JPEGError`.
final class JPEGConformanceTests: XCTestCase {
    struct Golden {
        let file: String
        let expect: String
        let entry: [String: Any]
    }

    static func goldens() throws -> [Golden] {
        let json = try GoldenFiles.json("jpeg.json")
        let files = try XCTUnwrap(json["files"] as? [[String: Any]])
        return try files.map { entry in
            Golden(file: try XCTUnwrap(entry["file"] as? String), expect: try XCTUnwrap(entry["expect"] as? String),
                   entry: entry)
        }
    }

    static func rgba8Hash(_ image: ImageBuffer) -> String {
        SHA256Hash.hexDigest(image.converted(to: .rgba8).pixels)
    }

    func testGoldenCounts() throws {
        let goldens = try Self.goldens()
        XCTAssertEqual(goldens.count, 99)
        XCTAssertEqual(goldens.filter { $0.expect == "decode" }.count, 74)
        XCTAssertEqual(goldens.filter { $0.expect == "reject" }.count, 18)
    }

    func testGoodFilesMatchGoldenHashes() throws {
        var checked = 0
        for golden in try Self.goldens() where golden.expect == "decode" || golden.expect == "optional" {
            let bytes = try GoldenFiles.bytes(golden.file)
            let decoded: DecodedImage
            do {
                decoded = try JPEGDecoder.decode(bytes)
            } catch {   // typed: a JPEGError
                if golden.expect == "optional" {
                    XCTAssertTrue(error.isUnsupported, "\(golden.file): optional file rejected with a non-'unsupported' error: \(error)")
                    continue
                }
                XCTFail("\(golden.file): \(error)")
                continue
            }
            let e = golden.entry
            XCTAssertEqual(decoded.format, .jpeg)
            XCTAssertEqual(decoded.bitDepth, 8)
            XCTAssertEqual(decoded.image.width, e["width"] as? Int, golden.file)
            XCTAssertEqual(decoded.image.height, e["height"] as? Int, golden.file)
            XCTAssertEqual(decoded.image.format, (e["components"] as? Int) == 1 ? .gray8 : .rgb8, golden.file)
            XCTAssertEqual(Self.rgba8Hash(decoded.image), e["rgba8_sha256"] as? String, "\(golden.file): raw RGBA8 hash")
            // EXIF orientation: `exif_orientation` is 1 when absent or invalid.
            let expectedOrientation = e["exif_orientation"] as? Int ?? 1
            XCTAssertEqual(decoded.orientation?.exifValue ?? 1, expectedOrientation, "\(golden.file): orientation")
            if e["exif_orientation_raw"] is NSNull || e["exif_orientation_raw"] == nil {
                XCTAssertNil(decoded.orientation, "\(golden.file): orientation without EXIF")
            }
            let upright = decoded.image.applyingOrientation(decoded.orientation ?? .up)
            XCTAssertEqual(upright.width, e["oriented_width"] as? Int, golden.file)
            XCTAssertEqual(upright.height, e["oriented_height"] as? Int, golden.file)
            XCTAssertEqual(Self.rgba8Hash(upright), e["rgba8_oriented_sha256"] as? String, "\(golden.file): oriented RGBA8 hash")
            if let hex = e["rgba8_hex"] as? String {
                let rgba = decoded.image.converted(to: .rgba8).pixels
                XCTAssertEqual(rgba.map { String(format: "%02x", $0) }.joined(separator: " "), hex, golden.file)
            }
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 74)
    }

    func testUnsupportedFilesAreRejectedAsUnsupported() throws {
        var checked = 0
        for golden in try Self.goldens() where golden.expect == "unsupported" {
            let bytes = try GoldenFiles.bytes(golden.file)
            XCTAssertThrowsError(try JPEGDecoder.decode(bytes), golden.file) { error in
                guard let jpegError = error as? JPEGError else { return XCTFail("\(golden.file): untyped error \(error)") }
                XCTAssertTrue(jpegError.isUnsupported, "\(golden.file): \(jpegError)")
            }
            checked += 1
        }
        XCTAssertEqual(checked, 4)
    }

    func testBadFilesAreRejected() throws {
        var checked = 0
        for golden in try Self.goldens() where golden.expect == "reject" {
            let bytes = try GoldenFiles.bytes(golden.file)
            XCTAssertThrowsError(try JPEGDecoder.decode(bytes), golden.file) { error in
                guard let jpegError = error as? JPEGError else { return XCTFail("\(golden.file): untyped error \(error)") }
                XCTAssertFalse(jpegError.description.isEmpty)
            }
            checked += 1
        }
        XCTAssertEqual(checked, 18)
    }

    func testSpecificRejectionReasons() throws {
        _ = try SharedData.require()
        func error(_ name: String) throws -> JPEGError? {
            let bytes = try GoldenFiles.bytes("jpeg/bad/\(name)")
            do { _ = try JPEGDecoder.decode(bytes) } catch { return error }
            return nil
        }
        XCTAssertEqual(try error("absurd_dimensions_65535x65535_no_data.jpg"),
                       .tooManyPixels(width: 65535, height: 65535, limit: ImageLimits.defaultMaxPixels))
        guard case .corruptData? = try error("invalid_huffman_code_in_scan.jpg") else { return XCTFail("bad Huffman code not reported") }
        guard case .truncated? = try error("missing_eoi.jpg") else { return XCTFail("missing EOI not reported as truncation") }
        guard case .noImage? = try error("missing_sos.jpg") else { return XCTFail("missing SOS not reported") }
        guard case .malformed? = try error("dqt_table_id_7.jpg") else { return XCTFail("DQT id 7 accepted") }
        guard case .malformed? = try error("corrupt_huffman_table_oversubscribed.jpg") else { return XCTFail("oversubscribed DHT accepted") }
    }

    func testMaxPixelsIsCheckedBeforeDecoding() throws {
        let bytes = try GoldenFiles.bytes("jpeg/baseline_420_h2v2.jpg")   // 227x151
        XCTAssertThrowsError(try JPEGDecoder.decode(bytes, maxPixels: 227 * 151 - 1)) { error in
            XCTAssertEqual(error as? JPEGError, .tooManyPixels(width: 227, height: 151, limit: 227 * 151 - 1))
        }
        XCTAssertNoThrow(try JPEGDecoder.decode(bytes, maxPixels: 227 * 151))
    }

    func testColorTypes() throws {
        _ = try SharedData.require()
        let cases = ["jpeg/gray.jpg": "gray", "jpeg/baseline_444.jpg": "ycbcr", "jpeg/rgb_adobe_transform0.jpg": "rgb",
                     "jpeg/cmyk_adobe_inverted.jpg": "cmyk", "jpeg/ycck_adobe_transform2.jpg": "ycck"]
        for (file, colorType) in cases {
            XCTAssertEqual(try JPEGDecoder.decode(try GoldenFiles.bytes(file)).colorType, colorType, file)
        }
    }

    func testMissingDHTUsesStandardTables() throws {
        let withoutDHT = try JPEGDecoder.decode(try GoldenFiles.bytes("jpeg/no_dht_mjpeg_default_tables.jpg"))
        let reference = try JPEGDecoder.decode(try GoldenFiles.bytes("jpeg/baseline_420_h2v2.jpg"))
        XCTAssertEqual(withoutDHT.image, reference.image)
    }

    func testEXIFPayloadIsTheTIFFBlock() throws {
        let decoded = try JPEGDecoder.decode(try GoldenFiles.bytes("jpeg/exif_orientation_6_little_endian.jpg"))
        let exif = try XCTUnwrap(decoded.exif)
        XCTAssertEqual(Array(exif.prefix(4)), [0x49, 0x49, 42, 0])
        XCTAssertEqual(decoded.orientation, .right)
        XCTAssertNil(try JPEGDecoder.decode(try GoldenFiles.bytes("jpeg/baseline_444.jpg")).exif)
    }
}
