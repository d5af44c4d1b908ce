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

/// Every PNG in `goldens/png.json`: good files must match the canonical RGBA8 and RGBA16
/// hashes exactly; bad files must be rejected with a `PNGError`.
final class PNGConformanceTests: XCTestCase {
    /// Release builds (what CI runs) check every file; unoptimised debug builds skip the images
    /// above 0.3 megapixels, which take minutes there (unspecialised SIMD, SHA-256).
    #if DEBUG
    static let checksLargeImages = false
    #else
    static let checksLargeImages = true
    #endif

    func testEveryGoldenPNG() throws {
        let golden = try GoldenFiles.json("png.json")
        let files = try XCTUnwrap(golden["files"] as? [[String: Any]])
        XCTAssertGreaterThan(files.count, 200)
        var decoded = 0, rejected = 0, skipped = 0
        for entry in files {
            let name = try XCTUnwrap(entry["file"] as? String)
            let bytes = try GoldenFiles.bytes(name)
            XCTAssertEqual(SHA256Hash.hexDigest(bytes), entry["file_sha256"] as? String, "\(name): not the bytes the goldens were made from")
            if entry["expect"] as? String == "reject" {
                XCTAssertThrowsError(try PNGDecoder.decode(bytes), name) { error in
                    XCTAssertTrue(error is PNGError, "\(name): \(error)")
                }
                rejected += 1
                continue
            }
            let pixels = ((entry["width"] as? Int) ?? 0) * ((entry["height"] as? Int) ?? 0)
            if !PNGConformanceTests.checksLargeImages && pixels > 300_000 {
                skipped += 1
                continue
            }
            do {
                let result = try PNGDecoder.decode(bytes)
                XCTAssertEqual(result.image.width, entry["width"] as? Int, name)
                XCTAssertEqual(result.image.height, entry["height"] as? Int, name)
                XCTAssertEqual(result.bitDepth, entry["bit_depth"] as? Int, name)
                XCTAssertEqual(result.image.format, .rgba8)
                XCTAssertEqual(SHA256Hash.hexDigest(result.image.pixels), entry["rgba8_sha256"] as? String, "\(name) rgba8")
                if let want16 = entry["rgba16_sha256"] as? String {
                    let wide = try PNGDecoder.decode(bytes, wants16Bit: true)
                    XCTAssertEqual(wide.image.format, .rgba16)
                    XCTAssertEqual(SHA256Hash.hexDigest(wide.image.pixels), want16, "\(name) rgba16")
                }
                decoded += 1
            } catch {
                XCTFail("\(name): \(error)")
            }
        }
        if skipped > 0 { print("debug build: skipped \(skipped) images above 0.3 megapixels (release builds check them)") }
        XCTAssertEqual(decoded + skipped, 192)
        XCTAssertEqual(rejected, 14)
    }

    func testWorkedExampleFromREADME() throws {
        let bytes = try GoldenFiles.bytes("pngsuite/s01n3p01.png")
        let image = try PNGDecoder.decode(bytes).image
        XCTAssertEqual(image.pixels, [0x00, 0x00, 0xff, 0xff])
        XCTAssertEqual(try PNGDecoder.decode(bytes, wants16Bit: true).image.pixels, [0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff])
    }

    func testRejectionReasons() throws {
        func error(_ name: String) throws -> PNGError? {
            let bytes = try GoldenFiles.bytes("pngsuite/\(name)")
            do { _ = try PNGDecoder.decode(bytes); return nil } catch { return error }
        }
        guard case .badSignature? = try error("xs1n0g01.png") else { return XCTFail() }
        guard case .crcMismatch(_, "IHDR", _, _)? = try error("xhdn0g08.png") else { return XCTFail() }
        guard case .crcMismatch(_, "IDAT", _, _)? = try error("xcsn0g01.png") else { return XCTFail() }
        guard case .invalidHeader? = try error("xc1n0g08.png") else { return XCTFail() }
        guard case .invalidHeader? = try error("xd3n2c08.png") else { return XCTFail() }
        guard case .missingImageData? = try error("xdtn0g01.png") else { return XCTFail() }
    }

    func testPixelLimitIsCheckedBeforeDecoding() throws {
        let bytes = try GoldenFiles.bytes("pngsuite/basn2c08.png")  // 32x32
        XCTAssertThrowsError(try PNGDecoder.decode(bytes, maxPixels: 1023)) { error in
            XCTAssertEqual(error as? PNGError, .tooManyPixels(width: 32, height: 32, limit: 1023))
        }
        XCTAssertNoThrow(try PNGDecoder.decode(bytes, maxPixels: 1024))
    }
}
