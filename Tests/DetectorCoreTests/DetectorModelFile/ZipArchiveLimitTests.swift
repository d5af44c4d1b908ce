import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// ZIP members (a model's associated files) whose headers lie about their size: the claimed
/// size is checked against the limit before inflating, and inflating never yields more than it.
final class ZipArchiveLimitTests: XCTestCase {
    private func archive(_ members: [HostileFiles.ZipMember]) throws -> ZipArchive {
        try XCTUnwrap(try ZipArchive(storage: ByteStorage(copying: HostileFiles.zip(members, prefix: Array("MODEL".utf8)))))
    }

    func testMemberThatInflatesPastItsClaimedSizeStopsThere() throws {
        // 8 MiB of zeros deflate to about 8 KB; the headers claim 100 bytes.
        let bomb = HostileFiles.deflatedZeros(8 << 20)
        XCTAssertLessThan(bomb.count, 20_000)
        let zip = try archive([.init(name: "labels.txt", method: 8, payload: bomb, claimedSize: 100, crc: 0)])
        XCTAssertThrowsError(try zip.contents(named: "labels.txt")) { error in
            XCTAssertEqual(error as? ZipArchiveError,
                           .inflateFailed(entry: "labels.txt", reason: "decompressed data exceeds the limit of 100 bytes"))
        }
    }

    func testMemberThatInflatesShortOfItsClaimedSizeIsRefused() throws {
        let zip = try archive([.init(name: "a.txt", method: 8, payload: Deflate.compressRaw(Array("cat\n".utf8)), claimedSize: 10, crc: 0)])
        XCTAssertThrowsError(try zip.contents(named: "a.txt")) { error in
            XCTAssertEqual(error as? ZipArchiveError, .inflateFailed(entry: "a.txt", reason: "produced 4 bytes, directory says 10"))
        }
    }

    func testClaimedSizeAboveTheLimitIsRefusedBeforeInflating() throws {
        // A 20-byte member claiming 1 GiB: over the 64 MiB limit, so nothing is allocated.
        let zip = try archive([.init(name: "big.txt", method: 8, payload: HostileFiles.deflatedZeros(1000), claimedSize: 1 << 30, crc: 0)])
        XCTAssertEqual(ZipArchive.maxEntrySize, 64 << 20)
        XCTAssertThrowsError(try zip.contents(named: "big.txt")) { error in
            XCTAssertEqual(error as? ZipArchiveError,
                           .unsupported(entry: "big.txt", reason: "1073741824 bytes is over the 67108864-byte limit"))
        }
    }

    func testLocalAndCentralSizesMustAgree() throws {
        var bytes = HostileFiles.zip([.init(name: "a.txt", method: 0, payload: Array("cat\n".utf8), claimedSize: 4,
                                            crc: CRC32.checksum(Array("cat\n".utf8)))])
        XCTAssertEqual(try XCTUnwrap(try ZipArchive(storage: ByteStorage(copying: bytes))).contents(named: "a.txt"), Array("cat\n".utf8))
        bytes[22] = 0xFF   // the local header's uncompressed size, low byte: 4 -> 255
        XCTAssertThrowsError(try ZipArchive(storage: ByteStorage(copying: bytes))) { error in
            XCTAssertEqual(error as? ZipArchiveError,
                           .malformed(offset: 0, reason: "entry 'a.txt' has sizes 4/255 in its local header but 4/4 in the central directory"))
        }
    }
}
