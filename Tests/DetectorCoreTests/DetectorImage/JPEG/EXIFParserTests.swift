import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class EXIFParserTests: XCTestCase {
    /// A TIFF block with IFD0 at offset 8 holding `entries` (tag, type, count, value).
    static func tiff(littleEndian: Bool, entries: [(Int, Int, Int, Int)]) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] : [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] {
            let b = [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            return littleEndian ? b.reversed() : b
        }
        var out: [UInt8] = littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        out += u16(42) + u32(8) + u16(entries.count)
        for (tag, type, count, value) in entries {
            out += u16(tag) + u16(type) + u32(count)
            out += type == 3 ? u16(value) + [0, 0] : u32(value)
        }
        out += u32(0)
        return out
    }

    func testBothByteOrdersAllValues() {
        for little in [true, false] {
            for value in 1...8 {
                let block = Self.tiff(littleEndian: little, entries: [(0x010F, 2, 4, 0), (0x0112, 3, 1, value)])
                XCTAssertEqual(EXIFParser.orientation(fromTIFF: block[...])?.exifValue, value, "little=\(little) value=\(value)")
            }
        }
    }

    func testInvalidValuesGiveNil() throws {
        for value in [0, 9, 255, 65535] {
            let block = Self.tiff(littleEndian: false, entries: [(0x0112, 3, 1, value)])
            XCTAssertNil(EXIFParser.orientation(fromTIFF: block[...]), "value \(value)")
            XCTAssertEqual(try EXIFParser.rawOrientation(fromTIFF: block[...]), value)
        }
    }

    func testMissingTagAndLongType() throws {
        XCTAssertNil(EXIFParser.orientation(fromTIFF: Self.tiff(littleEndian: true, entries: [(0x010F, 2, 4, 0)])[...]))
        XCTAssertEqual(EXIFParser.orientation(fromTIFF: Self.tiff(littleEndian: true, entries: [(0x0112, 4, 1, 3)])[...]), .down)
    }

    func testMalformedBlocksThrowTypedErrors() {
        XCTAssertThrowsError(try EXIFParser.rawOrientation(fromTIFF: [0x49, 0x49, 42][...])) {
            XCTAssertEqual($0 as? EXIFError, .truncatedHeader(length: 3))
        }
        XCTAssertThrowsError(try EXIFParser.rawOrientation(fromTIFF: [0x41, 0x41, 42, 0, 8, 0, 0, 0][...])) {
            XCTAssertEqual($0 as? EXIFError, .badByteOrder)
        }
        XCTAssertThrowsError(try EXIFParser.rawOrientation(fromTIFF: [0x49, 0x49, 43, 0, 8, 0, 0, 0][...])) {
            XCTAssertEqual($0 as? EXIFError, .badMagic(43))
        }
        // IFD0 offset past the end, and an entry count larger than the block.
        XCTAssertThrowsError(try EXIFParser.rawOrientation(fromTIFF: [0x49, 0x49, 42, 0, 0xFF, 0xFF, 0xFF, 0x7F][...]))
        XCTAssertThrowsError(try EXIFParser.rawOrientation(fromTIFF: [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0x10, 0x00, 1, 2][...]))
    }

    func testSliceWithNonZeroStartIndex() {
        let block = [0xAA, 0xBB] + Self.tiff(littleEndian: false, entries: [(0x0112, 3, 1, 8)])
        XCTAssertEqual(EXIFParser.orientation(fromTIFF: block[2...]), .left)
    }

    func testEveryTruncationIsSafe() {
        let block = Self.tiff(littleEndian: true, entries: [(0x010F, 2, 4, 0), (0x0112, 3, 1, 6)])
        for n in 0..<block.count {
            _ = EXIFParser.orientation(fromTIFF: block[0..<n])
        }
        XCTAssertEqual(EXIFParser.orientation(fromTIFF: block[...]), .right)
    }
}
