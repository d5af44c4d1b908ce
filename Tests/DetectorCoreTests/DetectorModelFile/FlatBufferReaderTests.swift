import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// A generic FlatBuffer written with the official `flatbuffers` Python Builder: every scalar width,
/// a float and a double, a bool, a UTF-8 string, a vector of strings, a union (tag 2 → table with
/// a float), a nested FlatBuffer (identifier NEST) in a [ubyte] vector, a [long] vector, and an
/// absent field.
final class FlatBufferReaderTests: XCTestCase {
    static let buffer = "KAAAAFVOSVQAAB4ARABDAEAAPAAwACwAIAAfABgAFAATAAwACAAEAB4AAABAAAAAXAAAAJAAAAAAAAACkAAAALQAAAAAAAABGC1EVPshCUAAAAAAAACgPwAAAAAAAADwAAAAAAAoa+7HzwD6AwAAAP//////////AAAAAAABAAADAAAAAAAAAAAAAAAoAAAAEAAAAE5FU1QIAAwACAAEAAgAAAD5////BAAAAAUAAABpbm5lcgAAAAAAAAAAAAYACAAEAAYAAAAAACBAAwAAABwAAAAQAAAABAAAAAAAAAAAAAAAAgAAAGJjAAABAAAAYQAAAAYAAABow6lsbG8AAA=="

    func testEveryKindOfField() throws {
        let storage = ByteStorage(copying: try XCTUnwrap(Data(base64Encoded: Self.buffer)))
        let fb = try FlatBuffer(storage: storage)
        XCTAssertEqual(fb.identifier, "UNIT")
        XCTAssertThrowsError(try fb.requireIdentifier("TFL3")) {
            XCTAssertEqual($0 as? FlatBufferError, .wrongIdentifier(expected: "TFL3", found: "UNIT"))
        }
        let t = try fb.root()
        XCTAssertEqual(try t.scalar(0, default: UInt8(0)), 250)
        XCTAssertEqual(try t.scalar(1, default: Int16(0)), -12345)
        XCTAssertEqual(try t.scalar(2, default: UInt32(0)), 4_000_000_000)
        XCTAssertEqual(try t.scalar(3, default: Int64(0)), -(1 << 60))
        XCTAssertEqual(try t.float(4, default: 0), 1.25)
        XCTAssertEqual(try t.double(5, default: 0), 3.141592653589793)
        XCTAssertEqual(try t.bool(6, default: false), true)
        XCTAssertEqual(try t.string(7), "héllo")
        XCTAssertEqual(try t.strings(8), ["a", "bc", ""])
        XCTAssertEqual(try t.unionType(9), 2)
        XCTAssertEqual(try t.table(10)?.float(0, default: 0), 2.5)
        XCTAssertEqual(try t.scalars(12, as: Int64.self), [-1, 1 << 40, 3])
        // Absent fields: defaults, nil.
        XCTAssertFalse(t.has(13))
        XCTAssertEqual(try t.scalar(13, default: Int32(42)), 42)
        XCTAssertNil(try t.string(13))
        XCTAssertNil(try t.vector(13, elementSize: 4))
        XCTAssertEqual(try t.scalar(99, default: UInt16(7)), 7, "slots past the vtable are absent")
        // Nested buffer.
        let vector = try XCTUnwrap(try t.vector(11, elementSize: 1))
        let nested = try fb.nested(vector)
        XCTAssertEqual(nested.depth, 1)
        XCTAssertEqual(nested.identifier, "NEST")
        let inner = try nested.root()
        XCTAssertEqual(try inner.string(0), "inner")
        XCTAssertEqual(try inner.scalar(1, default: Int32(0)), -7)
    }

    func testReadingAFieldWithTheWrongWidthStaysInBounds() throws {
        let storage = ByteStorage(copying: try XCTUnwrap(Data(base64Encoded: Self.buffer)))
        let t = try FlatBuffer(storage: storage).root()
        // Slot 0 is a 1-byte field: reading it as 8 bytes runs past the table's declared size.
        XCTAssertThrowsError(try t.scalar(0, default: UInt64(0)))
        // Slot 7 (a string offset) read as a vector of 8-byte elements: checked against the buffer.
        XCTAssertThrowsError(try t.vector(7, elementSize: 1 << 40))
    }

    func testNestingDepthIsLimited() throws {
        let storage = ByteStorage(copying: try XCTUnwrap(Data(base64Encoded: Self.buffer)))
        var fb = try FlatBuffer(storage: storage, limits: FlatBufferLimits(maxDepth: 3))
        let range = ByteRange(offset: 0, count: storage.count)
        for _ in 0..<3 { fb = try fb.nested(range: range) }
        XCTAssertThrowsError(try fb.nested(range: range)) { error in
            guard case FlatBufferError.tooDeep = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try FlatBuffer(storage: storage).nested(range: ByteRange(offset: 10, count: storage.count)))
    }
}
