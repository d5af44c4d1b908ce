import DetectorZlib
/// The element type of a tensor, in a model file and in the interpreter: every value of the
/// TFLite schema's `TensorType` (v3), with its codes as raw values.
///
/// ```swift
/// let model = try TFLiteModel(contentsOfFile: "detect.tflite")
/// print(model.mainSubgraph.tensors[0].type)   // float32
/// ```
public enum TensorDataType: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case float32 = 0
    case float16 = 1
    case int32 = 2
    case uint8 = 3
    case int64 = 4
    case string = 5
    case bool = 6
    case int16 = 7
    case complex64 = 8
    case int8 = 9
    case float64 = 10
    case complex128 = 11
    case uint64 = 12
    case resource = 13
    case variant = 14
    case uint32 = 15
    case uint16 = 16
    case int4 = 17

    /// Bytes per element, or nil for types without a fixed element size (string, resource, variant, int4).
    public var byteSize: Int? {
        switch self {
        case .float32, .int32, .uint32: return 4
        case .float16, .int16, .uint16: return 2
        case .uint8, .int8, .bool: return 1
        case .int64, .float64, .uint64, .complex64: return 8
        case .complex128: return 16
        case .string, .resource, .variant, .int4: return nil
        }
    }

    /// The lower-case name used in goldens and `outputs.json` (`float32`, `uint8`, …).
    public var name: String {
        switch self {
        case .float32: return "float32"
        case .float16: return "float16"
        case .int32: return "int32"
        case .uint8: return "uint8"
        case .int64: return "int64"
        case .string: return "string"
        case .bool: return "bool"
        case .int16: return "int16"
        case .complex64: return "complex64"
        case .int8: return "int8"
        case .float64: return "float64"
        case .complex128: return "complex128"
        case .uint64: return "uint64"
        case .resource: return "resource"
        case .variant: return "variant"
        case .uint32: return "uint32"
        case .uint16: return "uint16"
        case .int4: return "int4"
        }
    }

    /// The schema's name (`FLOAT32`, `UINT8`, …): `name` in capitals.
    public var schemaName: String { name.uppercased() }

    /// The NumPy dtype name the official Python runtime reports, as in the `dtype` field of
    /// `../shared/goldens/models/*.json`: `name`, except `bytes_` for strings and `object_` for
    /// resources and variants.
    public var numpyName: String {
        switch self {
        case .string: return "bytes_"
        case .resource, .variant: return "object_"
        default: return name
        }
    }

    public var description: String { name }
}
