import DetectorModelFile
import DetectorPlatform
import Foundation

/// Owner of the model bytes that constant tensors point into (zero-copy views): the reader's
/// `ByteStorage` (a memory map of the file, or one aligned copy of in-memory data).
package final class ModelBytes: Sendable {
    package let storage: ByteStorage
    /// Wraps the storage a `TFLiteModel` was read from (no copy).
    package init(storage: ByteStorage) { self.storage = storage }
    /// Copies `data` once into aligned storage.
    package convenience init(_ data: Data) { self.init(storage: ByteStorage(copying: data)) }
    /// The bytes; valid while this object is alive.
    package var bytes: UnsafeRawBufferPointer { storage.bytes }
}

/// One tensor of the graph the interpreter runs, as read from the model.
package struct GraphTensor: Sendable {
    /// Where a constant tensor's bytes are.
    package enum ConstantData: Sendable {
        /// `count` bytes at `offset` in the model bytes (zero-copy).
        case model(offset: Int, count: Int)
        /// Bytes owned by the graph (e.g. built in tests).
        case owned([UInt8])

        package var byteCount: Int {
            switch self {
            case .model(_, let count): return count
            case .owned(let bytes): return bytes.count
            }
        }
    }

    /// TFLite sparsity of a constant tensor (for `DENSIFY`).
    package struct Sparsity: Sendable, Equatable {
        /// One dimension's format: dense with a size, or CSR with segments and indices.
        package enum Dimension: Sendable, Equatable {
            case dense(size: Int)
            case sparseCSR(segments: [Int], indices: [Int])
        }
        package var traversalOrder: [Int]
        package var blockMap: [Int]
        package var dimensions: [Dimension]
        package init(traversalOrder: [Int], blockMap: [Int], dimensions: [Dimension]) {
            self.traversalOrder = traversalOrder
            self.blockMap = blockMap
            self.dimensions = dimensions
        }
    }

    package var name: String
    package var type: TensorDataType
    package var shape: [Int]
    /// Shape signature (-1 = dynamic dimension); equals `shape` when the model has none.
    package var shapeSignature: [Int]
    package var quantization: TensorQuantization?
    /// Constant data, nil for activations, inputs and outputs.
    package var constant: ConstantData?
    package var sparsity: Sparsity?
    package var isVariable: Bool

    package init(name: String, type: TensorDataType, shape: [Int], shapeSignature: [Int]? = nil,
                quantization: TensorQuantization? = nil, constant: ConstantData? = nil,
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
package struct GraphOperator: Sendable {
    /// The TFLite builtin code the interpreter dispatches on (`.custom` for custom ops).
    package var code: BuiltinOperator
    /// The custom operator's name (e.g. "TFLite_Detection_PostProcess") when `code` is `.custom`.
    package var customCode: String?
    package var version: Int
    package var inputs: [Int]
    package var outputs: [Int]
    package var parameters: OperatorParameters
    /// Raw custom options (FlexBuffer) of custom ops; empty otherwise.
    package var customOptions: [UInt8]

    package init(code: BuiltinOperator, customCode: String? = nil, version: Int = 1, inputs: [Int], outputs: [Int],
                parameters: OperatorParameters = OperatorParameters(), customOptions: [UInt8] = []) {
        self.code = code
        self.customCode = customCode
        self.version = version
        self.inputs = inputs
        self.outputs = outputs
        self.parameters = parameters
        self.customOptions = customOptions
    }

    /// A custom operator with this custom code.
    package init(custom customCode: String, version: Int = 1, inputs: [Int], outputs: [Int],
                parameters: OperatorParameters = OperatorParameters(), customOptions: [UInt8] = []) {
        self.init(code: .custom, customCode: customCode, version: version, inputs: inputs, outputs: outputs,
                  parameters: parameters, customOptions: customOptions)
    }

    /// The op's name for display only (errors, profiles): "CONV_2D", "ADD", … or the custom
    /// code of a custom op, as the official runtime prints it. Never compared: dispatch uses `code`.
    package var opName: String {
        code == .custom ? (customCode ?? "CUSTOM") : code.name
    }
}

/// The graph the interpreter executes: subgraph 0 of a model (tensors, operators in
/// execution order, input and output tensor indices) and the bytes its constants live in.
///
/// Built from a `.tflite` file by the interpreter, or by hand in tests.
package struct InterpreterGraph: Sendable {
    package var tensors: [GraphTensor]
    package var operators: [GraphOperator]
    package var inputs: [Int]
    package var outputs: [Int]
    package var modelBytes: ModelBytes

    package init(tensors: [GraphTensor], operators: [GraphOperator], inputs: [Int], outputs: [Int],
                modelBytes: ModelBytes = ModelBytes(Data())) {
        self.tensors = tensors
        self.operators = operators
        self.inputs = inputs
        self.outputs = outputs
        self.modelBytes = modelBytes
    }
}
