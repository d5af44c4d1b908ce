import Foundation

/// Owner of the model bytes that constant tensors point into (zero-copy views): the reader's
/// `ByteStorage` (a memory map of the file, or one aligned copy of in-memory data).
public final class ModelBytes: Sendable {
    public let storage: ByteStorage
    /// Wraps the storage a `TFLiteModel` was read from (no copy).
    public init(storage: ByteStorage) { self.storage = storage }
    /// Copies `data` once into aligned storage.
    public convenience init(_ data: Data) { self.init(storage: ByteStorage(copying: data)) }
    /// The bytes; valid while this object is alive.
    public var bytes: UnsafeRawBufferPointer { storage.bytes }
}

/// One tensor of the graph the interpreter runs, as read from the model.
public struct GraphTensor: Sendable {
    /// Affine quantization: real = scale * (q - zeroPoint), per tensor or per channel.
    public struct Quantization: Sendable, Equatable {
        public var scales: [Float]
        public var zeroPoints: [Int64]
        /// Axis the per-channel scales run along (0 for per-tensor).
        public var quantizedDimension: Int
        public init(scales: [Float], zeroPoints: [Int64], quantizedDimension: Int = 0) {
            self.scales = scales
            self.zeroPoints = zeroPoints
            self.quantizedDimension = quantizedDimension
        }
        /// Scale of a per-tensor quantization (first scale), 0 when empty.
        public var scale: Float { scales.first ?? 0 }
        /// Zero point of a per-tensor quantization (first zero point), 0 when empty.
        public var zeroPoint: Int { Int(zeroPoints.first ?? 0) }
    }

    /// Where a constant tensor's bytes are.
    public enum ConstantData: Sendable {
        /// `count` bytes at `offset` in the model bytes (zero-copy).
        case model(offset: Int, count: Int)
        /// Bytes owned by the graph (e.g. built in tests).
        case owned([UInt8])

        public var byteCount: Int {
            switch self {
            case .model(_, let count): return count
            case .owned(let bytes): return bytes.count
            }
        }
    }

    /// TFLite sparsity of a constant tensor (for `DENSIFY`).
    public struct Sparsity: Sendable, Equatable {
        /// One dimension's format: dense with a size, or CSR with segments and indices.
        public enum Dimension: Sendable, Equatable {
            case dense(size: Int)
            case sparseCSR(segments: [Int], indices: [Int])
        }
        public var traversalOrder: [Int]
        public var blockMap: [Int]
        public var dimensions: [Dimension]
        public init(traversalOrder: [Int], blockMap: [Int], dimensions: [Dimension]) {
            self.traversalOrder = traversalOrder
            self.blockMap = blockMap
            self.dimensions = dimensions
        }
    }

    public var name: String
    public var type: TensorDataType
    public var shape: [Int]
    /// Shape signature (-1 = dynamic dimension); equals `shape` when the model has none.
    public var shapeSignature: [Int]
    public var quantization: Quantization?
    /// Constant data, nil for activations, inputs and outputs.
    public var constant: ConstantData?
    public var sparsity: Sparsity?
    public var isVariable: Bool

    public init(name: String, type: TensorDataType, shape: [Int], shapeSignature: [Int]? = nil,
                quantization: Quantization? = nil, constant: ConstantData? = nil,
                sparsity: Sparsity? = nil, isVariable: Bool = false) {
        self.name = name
        self.type = type
        self.shape = shape
        self.shapeSignature = shapeSignature ?? shape
        self.quantization = quantization
        self.constant = constant
        self.sparsity = sparsity
        self.isVariable = isVariable
    }
}

/// One operator of the graph: which op, its tensors (-1 = absent optional input) and options.
public struct GraphOperator: Sendable {
    /// Official op name as the runtime prints it: "CONV_2D", "ADD", … or the custom code
    /// for custom ops (e.g. "TFLite_Detection_PostProcess").
    public var opName: String
    /// TFLite builtin code (32 = CUSTOM).
    public var builtinCode: Int
    public var version: Int
    public var inputs: [Int]
    public var outputs: [Int]
    public var parameters: OperatorParameters
    /// Raw custom options (FlexBuffer) of custom ops; empty otherwise.
    public var customOptions: [UInt8]

    public init(opName: String, builtinCode: Int = -1, version: Int = 1, inputs: [Int], outputs: [Int],
                parameters: OperatorParameters = OperatorParameters(), customOptions: [UInt8] = []) {
        self.opName = opName
        self.builtinCode = builtinCode
        self.version = version
        self.inputs = inputs
        self.outputs = outputs
        self.parameters = parameters
        self.customOptions = customOptions
    }
}

/// The graph the interpreter executes: subgraph 0 of a model (tensors, operators in
/// execution order, input and output tensor indices) and the bytes its constants live in.
///
/// Built from a `.tflite` file by the interpreter, or by hand in tests.
public struct InterpreterGraph: Sendable {
    public var tensors: [GraphTensor]
    public var operators: [GraphOperator]
    public var inputs: [Int]
    public var outputs: [Int]
    public var modelBytes: ModelBytes

    public init(tensors: [GraphTensor], operators: [GraphOperator], inputs: [Int], outputs: [Int],
                modelBytes: ModelBytes = ModelBytes(Data())) {
        self.tensors = tensors
        self.operators = operators
        self.inputs = inputs
        self.outputs = outputs
        self.modelBytes = modelBytes
    }
}
