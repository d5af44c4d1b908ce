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

/// Damaged-but-decodable JPEGs against Pillow's pixels (`Fixtures/jpeg_truncated/expected.json`,
/// made by `Tests/Scripts/jpeg_truncated_fixtures.py`): progressive files cut after each scan
/// and in the middle of scans, then closed with EOI (libjpeg's interblock smoothing shows in
/// these), and restart markers renumbered, removed or replaced (libjpeg's resynchronisation).
///
/// Each case is a splice of a source file; the committed sources are synthetic, the `shared/`
/// ones are read from `../shared` (CI only; skipped elsewhere).
///
/// Our IDCT is libjpeg-turbo's C code (islow). Where a block holds coefficients too large for
/// libjpeg-turbo's 16-bit SIMD IDCT (the block a mid-scan cut leaves half decoded from zero
/// bits), Pillow's default output comes from the SIMD code, which saturates where the C code
/// wraps; such cases are checked against Pillow with `JSIMD_FORCENONE=1` (the C code) and
/// counted apart. Every other case must equal Pillow's default output.
final class JPEGDamagedFileTests: XCTestCase {
    struct Case {
        let name: String
        let kind: String
        let source: String
        let offset: Int
        let delete: Int
        let insert: [UInt8]
        let sha256: String
        let width: Int
        let height: Int
        let isGray: Bool
        let pixelsSHA256: String
        let pixelsSHA256NoSIMD: String
        let channelMeans: [Double]
        let pillowWithoutEOI: String?
    }

    static let folder = SharedData.fixture("jpeg_truncated")

    static func load() throws -> (sources: [String: String], cases: [Case]) {
        let data = try Data(contentsOf: folder.appendingPathComponent("expected.json"))
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let sources = try XCTUnwrap(json["sources"] as? [String: String])
        let entries = try XCTUnwrap(json["cases"] as? [[String: Any]])
        let cases = try entries.map { e -> Case in
            let splice = try XCTUnwrap(e["splice"] as? [String: Any])
            let hex = try XCTUnwrap(splice["insert"] as? String)
            let insert = stride(from: 0, to: hex.count, by: 2).compactMap { i -> UInt8? in
                let start = hex.index(hex.startIndex, offsetBy: i)
                return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)
            }
            return Case(name: try XCTUnwrap(e["name"] as? String), kind: try XCTUnwrap(e["kind"] as? String),
                        source: try XCTUnwrap(e["source"] as? String),
                        offset: try XCTUnwrap(splice["offset"] as? Int), delete: try XCTUnwrap(splice["delete"] as? Int),
                        insert: insert, sha256: try XCTUnwrap(e["sha256"] as? String),
                        width: try XCTUnwrap(e["width"] as? Int), height: try XCTUnwrap(e["height"] as? Int),
                        isGray: (e["mode"] as? String) == "L", pixelsSHA256: try XCTUnwrap(e["pixels_sha256"] as? String),
                        pixelsSHA256NoSIMD: try XCTUnwrap(e["pixels_sha256_no_simd"] as? String),
                        channelMeans: try XCTUnwrap(e["channel_means"] as? [Double]),
                        pillowWithoutEOI: e["pillow_without_eoi"] as? String)
        }
        return (sources, cases)
    }

    /// The source's bytes, checked against the SHA-256 the goldens were made from.
    static func sourceBytes(_ source: String, sources: [String: String]) throws -> [UInt8] {
        let bytes: [UInt8]
        if source.hasPrefix("shared/") {
            bytes = try GoldenFiles.bytes(String(source.dropFirst("shared/".count)))
        } else {
            bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(source)))
        }
        XCTAssertEqual(SHA256Hash.hexDigest(bytes), sources[source], "\(source) is not the file the goldens were made from")
        return bytes
    }

    static func spliced(_ bytes: [UInt8], _ c: Case) -> [UInt8] {
        Array(bytes[..<c.offset]) + c.insert + Array(bytes[(c.offset + c.delete)...])
    }

    struct Tally {
        /// Cases equal to Pillow's default output.
        var exact = 0
        /// Cases where Pillow's SIMD and C outputs differ and ours equals the C output.
        var cCodeOnly = 0
        var total = 0
    }

    /// Decodes every case of `cases` and compares with Pillow.
    @discardableResult
    func check(_ cases: [Case], sources: [String: String], label: String) throws -> Tally {
        var cache: [String: [UInt8]] = [:]
        var tally = Tally(total: cases.count)
        for c in cases {
            if cache[c.source] == nil { cache[c.source] = try Self.sourceBytes(c.source, sources: sources) }
            let bytes = Self.spliced(cache[c.source] ?? [], c)
            XCTAssertEqual(SHA256Hash.hexDigest(bytes), c.sha256, "\(c.name): spliced bytes differ from the golden's")
            let decoded: DecodedImage
            do {
                decoded = try JPEGDecoder.decode(bytes)
            } catch {
                XCTFail("\(c.name): \(error)")
                continue
            }
            XCTAssertEqual(decoded.image.width, c.width, c.name)
            XCTAssertEqual(decoded.image.height, c.height, c.name)
            XCTAssertEqual(decoded.image.format, c.isGray ? .gray8 : .rgb8, c.name)
            let hash = SHA256Hash.hexDigest(decoded.image.pixels)
            if hash == c.pixelsSHA256 {
                tally.exact += 1
            } else if hash == c.pixelsSHA256NoSIMD {
                tally.cCodeOnly += 1
            } else {
                Self.dump(decoded.image, name: c.name)
                XCTFail("\(c.name): pixels differ from Pillow's; channel means \(Self.channelMeans(decoded.image)) "
                        + "vs Pillow \(c.channelMeans) (python3 Tests/Scripts/jpeg_truncated_fixtures.py dump '\(c.name)' x.png)")
            }
            // The same cut without its EOI is rejected, as Pillow does by default.
            if let pillowError = c.pillowWithoutEOI, c.kind != "missing-eoi" {
                XCTAssertTrue(pillowError.contains("truncated"), "\(c.name): \(pillowError)")
                XCTAssertThrowsError(try JPEGDecoder.decode(Array(bytes.dropLast(2))), c.name) { error in
                    guard case .truncated? = error as? JPEGError else { return XCTFail("\(c.name): \(error)") }
                }
            }
        }
        print("JPEGDamagedFileTests \(label): \(tally.exact) of \(tally.total) equal Pillow's pixels, "
              + "\(tally.cCodeOnly) equal Pillow's with libjpeg-turbo's C IDCT (its SIMD IDCT saturates there)")
        return tally
    }

    /// With `JPEG_DAMAGED_DUMP=folder` set, a mismatching decode is written there as PPM/PGM.
    static func dump(_ image: ImageBuffer, name: String) {
        guard let folder = ProcessInfo.processInfo.environment["JPEG_DAMAGED_DUMP"] else { return }
        let header = Array("\(image.format == .gray8 ? "P5" : "P6")\n\(image.width) \(image.height)\n255\n".utf8)
        let file = name.map { $0.isLetter || $0.isNumber ? $0 : "_" }
        try? Data(header + image.pixels).write(to: URL(fileURLWithPath: folder).appendingPathComponent(String(file) + ".pnm"))
    }

    static func channelMeans(_ image: ImageBuffer) -> [Double] {
        let channels = image.format == .gray8 ? 1 : 3
        var sums = [Double](repeating: 0, count: channels)
        for (i, p) in image.pixels.enumerated() { sums[i % channels] += Double(p) }
        let n = Double(image.width * image.height)
        return sums.map { ($0 / n * 1000).rounded() / 1000 }
    }

    func testCommittedCasesAreComplete() throws {
        let (_, cases) = try Self.load()
        let own = cases.filter { !$0.source.hasPrefix("shared/") }
        // 5 progressive sources: 9 scan cuts each (gray: 5) and 2 mid-scan cuts per scan;
        // 2 restart sources: 8 damages per damaged scan (1 scan baseline, 2 progressive).
        XCTAssertEqual(own.filter { $0.kind == "scan-cut" }.count, 4 * 9 + 5)
        XCTAssertEqual(own.filter { $0.kind == "mid-scan-cut" }.count, 2 * (4 * 10 + 6))
        XCTAssertEqual(own.filter { $0.kind == "restart" }.count, 8 * 3)
    }

    func testProgressiveCutsAfterEachScanMatchPillow() throws {
        let (sources, cases) = try Self.load()
        let tally = try check(cases.filter { $0.kind == "scan-cut" && !$0.source.hasPrefix("shared/") },
                              sources: sources, label: "scan cuts")
        XCTAssertEqual(tally.exact, tally.total)
    }

    func testProgressiveCutsInsideScansMatchPillow() throws {
        let (sources, cases) = try Self.load()
        let midScan = cases.filter { $0.kind == "mid-scan-cut" }
        let tally = try check(midScan, sources: sources, label: "mid-scan cuts")
        // Only cases whose SIMD and C outputs differ in Pillow may match the C output alone.
        XCTAssertEqual(tally.cCodeOnly, midScan.filter { $0.pixelsSHA256 != $0.pixelsSHA256NoSIMD }.count)
        XCTAssertEqual(tally.exact + tally.cCodeOnly, tally.total)
    }

    func testDamagedRestartMarkersMatchPillow() throws {
        let (sources, cases) = try Self.load()
        let tally = try check(cases.filter { $0.kind == "restart" }, sources: sources, label: "restart damage")
        XCTAssertEqual(tally.exact, tally.total)
    }

    /// `../shared`'s progressive files cut after each scan, and its files that lack EOI with
    /// one appended (CI only).
    func testSharedProgressiveFilesCutAfterEachScanMatchPillow() throws {
        _ = try SharedData.require()
        let (sources, cases) = try Self.load()
        let shared = cases.filter { $0.source.hasPrefix("shared/") }
        // 87 scan cuts of 10 progressive files, 3 files without EOI.
        XCTAssertEqual(shared.count, 90)
        let tally = try check(shared, sources: sources, label: "../shared cuts")
        XCTAssertEqual(tally.exact, tally.total)
    }
}
