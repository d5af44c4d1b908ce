import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Little-endian byte assembly for hand-made FlatBuffers (layouts written out in each test).
struct LEBytes {
    var bytes: [UInt8]
    init(count: Int) { bytes = [UInt8](repeating: 0, count: count) }
    mutating func u16(_ p: Int, _ v: Int) { bytes[p] = UInt8(v & 0xFF); bytes[p + 1] = UInt8((v >> 8) & 0xFF) }
    mutating func u32(_ p: Int, _ v: Int) { u16(p, v & 0xFFFF); u16(p + 2, (v >> 16) & 0xFFFF) }
    mutating func ascii(_ p: Int, _ s: String) { for (i, c) in s.utf8.enumerated() { bytes[p + i] = c } }
}

final class TFLiteBadInputTests: XCTestCase {
    /// A model whose subgraph vector has `subgraphs` entries all pointing at one subgraph table,
    /// whose tensor vector has `tensors` entries all pointing at one (empty) tensor table.
    ///   0: root offset → 20        4: "TFL3"
    ///   8: model vtable [10, 12, slot0 @4, slot1 absent, slot2 @8]
    ///  20: model table: soffset 12, version 3, offset → subgraph vector at 32
    ///  32: subgraph vector (count, offsets → A+8)
    ///   A: subgraph vtable [6, 8, slot0 @4]; A+8: table: soffset 8, offset → tensor vector at A+16
    ///   V: tensor vector (count, offsets → B+4); B: tensor vtable [4, 4]; B+4: empty tensor table
    static func sharedTablesModel(subgraphs n: Int, tensors m: Int) -> [UInt8] {
        let a = 36 + 4 * n, v = a + 16, b = v + 4 + 4 * m
        var w = LEBytes(count: b + 8)
        w.u32(0, 20); w.ascii(4, "TFL3")
        w.u16(8, 10); w.u16(10, 12); w.u16(12, 4); w.u16(14, 0); w.u16(16, 8)
        w.u32(20, 12); w.u32(24, 3); w.u32(28, 4)
        w.u32(32, n)
        for i in 0..<n { w.u32(36 + 4 * i, (a + 8) - (36 + 4 * i)) }
        w.u16(a, 6); w.u16(a + 2, 8); w.u16(a + 4, 4)
        w.u32(a + 8, 8); w.u32(a + 12, v - (a + 12))
        w.u32(v, m)
        for j in 0..<m { w.u32(v + 4 + 4 * j, (b + 4) - (v + 4 + 4 * j)) }
        w.u16(b, 4); w.u16(b + 2, 4); w.u32(b + 4, 4)
        return w.bytes
    }

    func read(_ bytes: [UInt8]) throws -> TFLiteModel {
        try TFLiteModel(data: Data(bytes))
    }

    func testHandMadeMinimalModelReads() throws {
        let model = try read(Self.sharedTablesModel(subgraphs: 2, tensors: 3))
        XCTAssertEqual(model.subgraphs.count, 2)
        XCTAssertEqual(model.mainSubgraph.tensors.count, 3)
        XCTAssertEqual(model.mainSubgraph.tensors[2].type, .float32, "absent fields take schema defaults")
        XCTAssertEqual(model.mainSubgraph.tensors[2].shape, [])
    }

    func testSharedTablesAreBoundedByTheWorkLimit() {
        // 3000 × 3000 = 9 million tensors from a 24 KB file: must stop, not allocate gigabytes.
        let bytes = Self.sharedTablesModel(subgraphs: 3000, tensors: 3000)
        XCTAssertLessThan(bytes.count, 30_000)
        XCTAssertThrowsError(try read(bytes)) { error in
            guard case TFLiteModelError.malformed(_, .workLimitExceeded) = error else { return XCTFail("\(error)") }
        }
    }

    func testHugeVectorCount() {
        var w = LEBytes(count: 0)
        w.bytes = Self.sharedTablesModel(subgraphs: 1, tensors: 1)
        w.u32(32, 0x7FFF_FFFF)  // subgraph vector claims 2^31 - 1 entries
        XCTAssertThrowsError(try read(w.bytes)) { error in
            guard case TFLiteModelError.malformed(_, .outOfBounds) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(String(describing: error).contains("byte offset"), String(describing: error))
        }
    }

    func testSelfReferencingAndOutOfRangeOffsets() {
        // Subgraph offset 0: the "table" is the offset itself, whose vtable offset is 0 → the
        // vtable is the table: size 0 is not a vtable.
        var selfRef = LEBytes(count: 0)
        selfRef.bytes = Self.sharedTablesModel(subgraphs: 1, tensors: 1)
        selfRef.u32(36, 0)
        XCTAssertThrowsError(try read(selfRef.bytes)) { error in
            guard case TFLiteModelError.malformed(_, .invalidVTable) = error else { return XCTFail("\(error)") }
        }
        // Root offset past the end.
        var root = LEBytes(count: 0)
        root.bytes = Self.sharedTablesModel(subgraphs: 1, tensors: 1)
        root.u32(0, 1_000_000)
        XCTAssertThrowsError(try read(root.bytes)) { error in
            guard case TFLiteModelError.malformed(_, .outOfBounds) = error else { return XCTFail("\(error)") }
        }
        // vtable offset leaving the buffer.
        var vt = LEBytes(count: 0)
        vt.bytes = Self.sharedTablesModel(subgraphs: 1, tensors: 1)
        vt.u32(20, 0x7000_0000)
        XCTAssertThrowsError(try read(vt.bytes)) { error in
            guard case TFLiteModelError.malformed(_, .invalidVTable) = error else { return XCTFail("\(error)") }
        }
        // A field offset beyond the table's declared size.
        var field = LEBytes(count: 0)
        field.bytes = Self.sharedTablesModel(subgraphs: 1, tensors: 1)
        field.u16(16, 200)
        XCTAssertThrowsError(try read(field.bytes))
    }

    func testWrongIdentifierVersionAndEmptyModel() {
        var w = LEBytes(count: 0)
        w.bytes = Self.sharedTablesModel(subgraphs: 1, tensors: 1)
        w.ascii(4, "TFL2")
        XCTAssertThrowsError(try read(w.bytes)) { error in
            XCTAssertEqual(error as? TFLiteModelError, .wrongIdentifier(found: "TFL2"))
            XCTAssertEqual(String(describing: error), "not a TFLite model: file identifier is 'TFL2', expected 'TFL3'")
        }
        w.ascii(4, "TFL3")
        w.u32(24, 2)
        XCTAssertThrowsError(try read(w.bytes)) { XCTAssertEqual($0 as? TFLiteModelError, .unsupportedSchemaVersion(2)) }
        w.u32(24, 3)
        w.u32(32, 0)  // no subgraphs
        XCTAssertThrowsError(try read(w.bytes)) { error in
            guard case TFLiteModelError.missing = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try read([]))
        XCTAssertThrowsError(try read([1, 2, 3]))
        XCTAssertThrowsError(try TFLiteModel(contentsOfFile: "/nonexistent/model.tflite")) { error in
            guard case TFLiteModelError.cannotOpen = error else { return XCTFail("\(error)") }
        }
    }

    func testTruncatedRealModelsThrow() throws {
        for name in ["dilated_conv.tflite", "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite"] {
            let data = try Data(contentsOf: try SharedData.url("models/\(name)"))
            // A prefix cut anywhere before the end of the FlatBuffer part must fail cleanly; the tables
            // of these files sit near the start (TOCO) or the end (MLIR), so cut at many places.
            var failures = 0
            for fraction in stride(from: 0.0, to: 0.999, by: 0.05) {
                let cut = data.prefix(Int(Double(data.count) * fraction))
                do { _ = try TFLiteModel(data: cut) } catch { failures += 1 }
            }
            XCTAssertGreaterThan(failures, 15, name)
        }
    }

    func testRandomBytesThrow() {
        var rng = SplitMix64(seed: 42)
        for size in [0, 1, 7, 8, 64, 1000, 100_000] {
            for _ in 0..<20 {
                var bytes = (0..<size).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                if size >= 8 { bytes.replaceSubrange(4..<8, with: Array("TFL3".utf8)) }  // get past the identifier
                XCTAssertThrowsError(try read(bytes), "random \(size) bytes")
            }
        }
    }

    func testHonestModelsStayWellUnderTheWorkLimit() throws {
        _ = try SharedData.require()
        // One unit of work per byte (half the default) is enough for every shared model.
        let strict = FlatBufferLimits(workPerByte: 1, baseWork: 0)
        for stem in TFLiteConformanceTests.models {
            XCTAssertNoThrow(try TFLiteModel(contentsOfFile: try SharedData.url("models/\(stem).tflite").path, limits: strict), stem)
        }
    }
}

