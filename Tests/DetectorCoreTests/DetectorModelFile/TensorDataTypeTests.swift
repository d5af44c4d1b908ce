import XCTest
import DetectorCore

/// `TensorDataType` is the one element type of the model reader and the interpreter: its codes
/// and names as TFLite's schema (`schema.fbs`, `enum TensorType`) and NumPy spell them.
final class TensorDataTypeTests: XCTestCase {
    func testCodesAndNamesAsTheSchemaAndNumPyGiveThem() {
        // (code, schema name, NumPy dtype name), from schema.fbs and the Python runtime's dtypes.
        let expected: [(Int, String, String)] = [
            (0, "FLOAT32", "float32"), (1, "FLOAT16", "float16"), (2, "INT32", "int32"), (3, "UINT8", "uint8"),
            (4, "INT64", "int64"), (5, "STRING", "bytes_"), (6, "BOOL", "bool"), (7, "INT16", "int16"),
            (8, "COMPLEX64", "complex64"), (9, "INT8", "int8"), (10, "FLOAT64", "float64"),
            (11, "COMPLEX128", "complex128"), (12, "UINT64", "uint64"), (13, "RESOURCE", "object_"),
            (14, "VARIANT", "object_"), (15, "UINT32", "uint32"), (16, "UINT16", "uint16"), (17, "INT4", "int4"),
        ]
        XCTAssertEqual(TensorDataType.allCases.count, expected.count)
        for (code, schema, numpy) in expected {
            guard let type = TensorDataType(rawValue: code) else { XCTFail("no type for code \(code)"); continue }
            XCTAssertEqual(type.schemaName, schema)
            XCTAssertEqual(type.numpyName, numpy)
        }
        XCTAssertNil(TensorDataType(rawValue: 18))
        XCTAssertEqual(TensorDataType.string.description, "string")
    }
}
