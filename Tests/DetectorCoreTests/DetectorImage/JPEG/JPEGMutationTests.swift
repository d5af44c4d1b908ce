import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Thousands of seeded byte flips and truncations over real JPEG files: every outcome must be
/// an image of the size the header states or a typed `JPEGError` — never a trap, hang or huge
/// allocation (the pixel limit is lowered so mutated dimensions cannot allocate much).
final class JPEGMutationTests: XCTestCase {

    #if DEBUG
    static let mutationsPerFile = 60
    #else
    static let mutationsPerFile = 1500
    #endif

    /// Inputs: the committed fixtures always (progressive ones with and without restarts among
    /// them), plus a spread of coding features from `../shared`.
    func inputs() throws -> [(String, [UInt8])] {
        var result = [("astronaut fixture", [UInt8](try Data(contentsOf: SharedData.fixture("astronaut_128x128_q90_420_exif6.jpg"))))]
        for name in ["progressive_420_75x53.jpg", "progressive_restart_420_67x45.jpg", "baseline_restart_420_67x45.jpg"] {
            result.append((name, [UInt8](try Data(contentsOf: SharedData.fixture("jpeg_truncated/\(name)")))))
        }
        if SharedData.root != nil || SharedData.isCI {
            for name in ["baseline_420_h2v2.jpg", "progressive_custom_scans_successive_approx.jpg", "restart_every_3_mcus_420.jpg",
                         "gray_progressive.jpg", "baseline_mixed_sampling_2x2_1x1_1x2.jpg", "ycck_adobe_transform2.jpg",
                         "progressive_restart_2_420.jpg", "exif_thumbnail.jpg", "odd_33x17_422.jpg"] {
                result.append((name, try GoldenFiles.bytes("jpeg/\(name)")))
            }
        }
        return result
    }

    func testMutatedFilesNeverTrap() throws {
        var generator = SplitMix64(seed: 0x6A70_6567_6D75_7461)
        var decoded = 0, rejected = 0
        for (name, original) in try inputs() {
            XCTAssertNoThrow(try JPEGDecoder.decode(original), name)
            for round in 0..<Self.mutationsPerFile {
                var bytes = original
                switch round % 5 {
                case 0:   // truncate anywhere
                    bytes.removeLast(Int.random(in: 1..<bytes.count, using: &generator))
                case 1:   // one random byte
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                case 2:   // a few random bytes, biased towards the headers
                    let headerEnd = min(bytes.count, 700)
                    for _ in 0..<Int.random(in: 1...4, using: &generator) {
                        let i = Bool.random(using: &generator) ? Int.random(in: 0..<headerEnd, using: &generator)
                                                               : Int.random(in: 0..<bytes.count, using: &generator)
                        bytes[i] = UInt8.random(in: 0...255, using: &generator)
                    }
                case 3:   // cut anywhere, then EOI: smoothing, data that ends at a marker, restart resync
                    bytes.removeLast(Int.random(in: 1..<bytes.count, using: &generator))
                    bytes += [0xFF, 0xD9]
                default:  // single bit flips plus a truncation
                    for _ in 0..<Int.random(in: 1...8, using: &generator) {
                        let i = Int.random(in: 0..<bytes.count, using: &generator)
                        bytes[i] ^= 1 << UInt8.random(in: 0...7, using: &generator)
                    }
                    if Bool.random(using: &generator) { bytes.removeLast(Int.random(in: 0..<bytes.count / 2, using: &generator)) }
                }
                do {
                    let image = try JPEGDecoder.decode(bytes, maxPixels: 2_000_000)
                    XCTAssertEqual(image.image.pixels.count,
                                   image.image.width * image.image.height * image.image.format.bytesPerPixel, name)
                    decoded += 1
                } catch {   // typed: every failure is a JPEGError
                    XCTAssertFalse(error.description.isEmpty)
                    rejected += 1
                }
            }
        }
        XCTAssertGreaterThan(rejected, 0)
        print("JPEG mutation test: \(decoded) mutated files decoded, \(rejected) rejected, 0 traps")
    }
}
