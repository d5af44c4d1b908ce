import XCTest
@testable import DetectorCore
@testable import objdetect
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class SHA256Tests: XCTestCase {
    func testKnownVectors() {
        // FIPS 180-4 / NIST examples.
        XCTAssertEqual(SHA256Hash.hexDigest([]), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256Hash.hexDigest(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256Hash.hexDigest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256Hash.hexDigest([UInt8](repeating: 0x61, count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testIncrementalUpdatesMatchOneShot() {
        let message = (0..<1000).map { (i: Int) -> UInt8 in UInt8(truncatingIfNeeded: i &* 13) }
        for split in [0, 1, 55, 56, 63, 64, 65, 127, 999, 1000] {
            var h = SHA256Hash()
            h.update(Array(message[0..<split]))
            h.update(Array(message[split...]))
            XCTAssertEqual(h.hexDigest, SHA256Hash.hexDigest(message), "split \(split)")
        }
        // README-images.md worked example: the RGBA8 buffer of ppm/p3_ascii_4x3.ppm.
        let buffer: [UInt8] = [0xff, 0, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                               0, 0, 0, 0xff, 0x80, 0x80, 0x80, 0xff, 0x40, 0x20, 0x10, 0xff, 1, 2, 3, 0xff,
                               0x0a, 0x14, 0x1e, 0xff, 0xc8, 0x64, 0x32, 0xff, 0xff, 0xff, 0, 0xff, 0, 0xff, 0xff, 0xff]
        XCTAssertEqual(SHA256Hash.hexDigest(buffer), "e58025a789119a8f77cbf9520fb7bc9b7e7ad645f65ef9d1c936dc4224208562")
    }
}
