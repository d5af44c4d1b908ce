import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// A 1520-byte model written with the official `flatbuffers` Python Builder (generic API, slots
/// from schema.fbs) to cover what the shared models do not: per-channel quantization on
/// dimension 3, sparsity (DENSE + SPARSE_CSR with uint8/uint16 index vectors), is_variable,
/// shape_signature, STRING/INT16 tensors, a builtin code above 127 (deprecated_builtin_code 127 +
/// builtin_code 150), a custom op, an external buffer (offset/size past the FlatBuffer), metadata
/// entries and a signature def. Expected values are the ones the Python script wrote.
final class TFLiteSyntheticModelTests: XCTestCase {
    static let model = "IAAAAFRGTDMAAAAAFAAgABwAGAAUABAADAAAAAgABAAUAAAALAAAADAAAAA0AAAAEAAAAEQAAABIAAAAAwAAAAkAAABzeW50aGV0aWMAAAABAAAASAAAAAEAAACgAAAABQAAAEwBAAAcAQAA+AAAANQAAAC4AAAAAQAAAEgBAAADAAAATAUAADAFAAAIBQAAAAAKABAADAAIAAQACgAAABwAAAAIAAAADAAAAAEAAAAgAAAAAQAAACwAAAAPAAAAc2VydmluZ19kZWZhdWx0ANz///8FAAAABAAAAAEAAAB5AAAAZvz//wQAAAABAAAAeAAAAAgADAAIAAQACAAAAAMAAAAEAAAAEwAAAG1pbl9ydW50aW1lX3ZlcnNpb24AAAAKABgAAAAMAAQACgAAABAAAAAAAAAA4AUAAAAAAAAAAAAAxvz//wQAAAAGAAAAMS41LjAAAAAAAAAAAAAAAAAAAADm/P//BAAAABAAAAAAAIA/AAAAQAAAQEAAAIBAAAAAAAb9//8EAAAAEgAAAAECAwQFBgcICQoLDA0ODxAREgAAAAAAAAAAAAAEAAYABAAAAAAADgAYABQAEAAMAAgABAAOAAAAFAAAACwAAAAYAAAAHAAAADAAAAAEAAAAbWFpbgAAAAABAAAABQAAAAEAAAAAAAAAAwAAAKQAAABoAAAAMAAAAAYAAABAAwAAsAIAANwBAABkAQAAMAEAAPwAAAAQABQAEAAMAAgAAAAAAAQAEAAAAJQAAAAMAAAAEAAAAAIAAAABAAAABQAAAAEAAAAEAAAAAAAOABgAFAAQAAwACwAEAA4AAABwAAAAAAAAdAwAAAAQAAAAAQAAAAEAAAAEAAAAAQAAAAMAAAAAAA4AFAAAABAADAALAAQADgAAAFAAAAAAAAACCAAAAAwAAAABAAAAAwAAAAMAAAAAAAAAAQAAAP////8DAAAAAQIDAAAABgAIAAcABgAAAAAAAAEQABwAGwAUABAADAALAAQAEAAAAAIAAAAAAAADAQAAAAEAAAACAAAAAAAAAQwAFAAQAA8ACAAEAAwAAAAYAAAABAAAAAAAAAIEAAAAAQAAAAQAAAADAAAAZXh0AAwAEAAMAAsAAAAEAAwAAAAUAAAAAAAABQQAAAABAAAAAgAAAAMAAABzdHIAEAAYABQAEwAAAAwACAAHABAAAAAAAAABHAAAAEwAAAAAAAAHMAAAAAwADAAAAAAACAAEAAwAAAAIAAAAEAAAAAEAAAD9/////////wEAAAAAAAA+BAAAAAEAAAACAAAABAAAAAIAAAADAAAAb3V0AAAAEgAWABAAAAAMAAgAAAAAAAQAEgAAABwAAACsAAAAAgAAAJgAAAAAAAoADAAIAAAABAAKAAAACAAAABAAAAACAAAAQAAAACAAAAACAAAAAAAAAAEAAAAQABQAEwAAABIADAALAAQAEAAAACAAAAAAAAACNAAAAAAAAwEIAAgAAAAEAAgAAAAEAAAA6v///wQAAAAEAAAAAAABAAIAAwAAAAYACAAEAAYAAAAEAAAABQAAAAABAgMEAAAAAgAAAAQAAAAEAAAABgAAAHNwYXJzZQAAAAAOABoAFAATAAwACAAEAA4AAAAoAAAAaAAAAAEAAAAAAAAJSAAAAAAAEgAQAAAAAAAMAAgAAAAAAAQAEgAAAAMAAAAIAAAAGAAAAAIAAAAAAAAAAAAAAAAAAAAAAAAAAgAAAAAAAD8AAIA+BAAAAAEAAAADAAAAAwAAAAIAAAABAAAAdwAAABQAEAAMAAAAAAAIAAAAAAAAAAQAFAAAAAwAAAAwAAAAGAAAAAQAAAD/////BAAAAAQAAAACAAAABAAAAAEAAAAEAAAABAAAAAIAAAACAAAAaW4AAAgADAALAAQACAAAAAgAAAAAAAAgBAAAAE15T3AAAAAADAAMAAsAAAAAAAQADAAAAJYAAAAAAAB/DAAQAA8AAAAIAAQADAAAAAQAAAACAAAAAAAABGRlZmdoaWprbG1ub3BxcnM="

    func testEveryFieldReadsBack() throws {
        let data = try XCTUnwrap(Data(base64Encoded: Self.model))
        XCTAssertEqual(data.count, 1520)
        let m = try TFLiteModel(data: data)
        XCTAssertEqual(m.version, 3)
        XCTAssertEqual(m.description, "synthetic")
        XCTAssertEqual(m.operatorCodes.map(\.builtinCode), [.depthwiseConv2D, .gelu, .custom])
        XCTAssertEqual(m.operatorCodes[0].version, 2)
        XCTAssertEqual(m.operatorCodes[1].deprecatedBuiltinCode, 127)
        XCTAssertEqual(m.operatorCodes[1].rawBuiltinCode, 150)
        XCTAssertEqual(m.operatorCodes[2].customCode, "MyOp")

        let g = m.mainSubgraph
        XCTAssertEqual(g.name, "main")
        XCTAssertEqual(g.inputs, [0])
        XCTAssertEqual(g.outputs, [5])
        XCTAssertEqual(g.tensors.map(\.name), ["in", "w", "sparse", "out", "str", "ext"])
        XCTAssertEqual(g.tensors.map(\.type), [.float32, .int8, .float32, .int16, .string, .int32])
        XCTAssertEqual(g.tensors[0].shape, [1, 4, 4, 2])
        XCTAssertEqual(g.tensors[0].shapeSignature, [-1, 4, 4, 2])
        XCTAssertEqual(g.tensors[1].shapeSignature, [1, 3, 3, 2], "no signature: equals the shape")

        let w = g.tensors[1]
        XCTAssertEqual(w.quantization, TFLiteQuantization(scales: [0.5, 0.25], zeroPoints: [0, 0], quantizedDimension: 3))
        XCTAssertTrue(w.quantization?.isPerChannel ?? false)
        XCTAssertEqual(Array(try XCTUnwrap(m.constantBytes(of: w))), Array(1...18))

        let sparse = try XCTUnwrap(g.tensors[2].sparsity)
        XCTAssertEqual(sparse.traversalOrder, [0, 1])
        XCTAssertEqual(sparse.blockMap, [])
        XCTAssertEqual(sparse.dimensionMetadata, [
            TFLiteDimensionMetadata(format: .dense, denseSize: 4, arraySegments: nil, arrayIndices: nil),
            TFLiteDimensionMetadata(format: .sparseCSR, denseSize: 0, arraySegments: .uint8([0, 1, 2, 3, 4]), arrayIndices: .uint16([0, 1, 2, 3])),
        ])
        let values = try XCTUnwrap(m.constantBytes(of: g.tensors[2]))
        XCTAssertEqual((0..<4).map { values.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self) }, [1, 2, 3, 4])

        XCTAssertTrue(g.tensors[3].isVariable)
        XCTAssertEqual(g.tensors[3].quantization?.zeroPoints, [-3])
        XCTAssertEqual(g.tensors[3].quantization?.scales, [0.125])
        XCTAssertFalse(g.tensors[0].isVariable)

        // The external buffer: 16 bytes (100...115) after the FlatBuffer, at offset 1504.
        XCTAssertEqual(m.buffers[4], TFLiteBuffer(range: ByteRange(offset: 1504, count: 16), isExternal: true))
        XCTAssertEqual(Array(try XCTUnwrap(m.constantBytes(of: g.tensors[5]))), Array(100...115))

        XCTAssertEqual(g.operators.map(\.opName), ["DEPTHWISE_CONV_2D", "GELU", "MyOp"])
        XCTAssertEqual(g.operators[0].inputs, [0, 1, -1])
        var dw = DepthwiseConv2DOptions()
        dw.padding = .valid
        dw.strideWidth = 2
        dw.strideHeight = 1
        dw.depthMultiplier = 1
        dw.activation = .relu6
        dw.dilationWidthFactor = 2
        XCTAssertEqual(g.operators[0].builtinOptions, .depthwiseConv2D(dw))
        XCTAssertEqual(g.operators[1].builtinOptions, .gelu(GeluOptions(approximate: true)))
        XCTAssertEqual(Array(m.customOptionsBytes(of: g.operators[2])), [1, 2, 3])
        XCTAssertEqual(g.operators[2].builtinOptions, .none)

        XCTAssertEqual(m.metadataEntries, [TFLiteMetadataEntry(name: "min_runtime_version", bufferIndex: 3)])
        XCTAssertEqual(Array(m.bytes(ofBuffer: 3)), Array("1.5.0\0".utf8))
        XCTAssertEqual(m.signatureDefs, [TFLiteSignatureDef(key: "serving_default", subgraphIndex: 0,
                                                            inputs: [TFLiteTensorMap(name: "x", tensorIndex: 0)],
                                                            outputs: [TFLiteTensorMap(name: "y", tensorIndex: 5)])])
    }

    func testExternalBufferPastTheEndIsRejected() throws {
        var bytes = [UInt8](try XCTUnwrap(Data(base64Encoded: Self.model)))
        bytes.removeLast(8)  // the external buffer (offset 1504, 16 bytes) now runs past the end
        XCTAssertThrowsError(try TFLiteModel(data: Data(bytes))) { error in
            guard case TFLiteModelError.malformed(let location, .outOfBounds) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(location, "buffer 4")
        }
    }
}
