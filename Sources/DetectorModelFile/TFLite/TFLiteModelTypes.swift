import DetectorZlib
/// An operator code (`tflite.OperatorCode`): which builtin (or custom) operator an operator runs.
public struct TFLiteOperatorCode: Sendable, Equatable {
    /// The builtin code: the larger of `deprecated_builtin_code` and `builtin_code`, exactly as the
    /// official runtime resolves it (old files only set the deprecated byte, new ones both).
    public var builtinCode: BuiltinOperator
    /// The custom operator's name (e.g. `TFLite_Detection_PostProcess`) when `builtinCode` is CUSTOM.
    public var customCode: String?
    /// The operator version (default 1).
    public var version: Int
    public var deprecatedBuiltinCode: Int8
    public var rawBuiltinCode: Int32

    package init(builtinCode: BuiltinOperator, customCode: String? = nil, version: Int = 1,
                deprecatedBuiltinCode: Int8 = 0, rawBuiltinCode: Int32 = 0) {
        self.builtinCode = builtinCode
        self.customCode = customCode
        self.version = version
        self.deprecatedBuiltinCode = deprecatedBuiltinCode
        self.rawBuiltinCode = rawBuiltinCode
    }

    /// Whether this is a custom operator.
    public var isCustom: Bool { builtinCode == .custom }

    /// The name the official runtime reports as `op_name`: the custom code for custom operators,
    /// the builtin's official name otherwise.
    public var opName: String {
        if isCustom { return customCode ?? "CUSTOM" }
        return builtinCode.name
    }
}

/// Quantization parameters of a tensor (`tflite.QuantizationParameters`).
///
/// Real value = `scales[c] * (q - zeroPoints[c])`, where `c` indexes `quantizedDimension` when
/// there is more than one scale (per-channel), and is 0 otherwise.
public struct TFLiteQuantization: Sendable, Equatable {
    public var min: [Float]
    public var max: [Float]
    public var scales: [Float]
    public var zeroPoints: [Int64]
    public var quantizedDimension: Int
    /// The bytes of a `CustomQuantization` detail, when present (other parameters are then ignored).
    public var custom: ByteRange?

    package init(min: [Float] = [], max: [Float] = [], scales: [Float] = [], zeroPoints: [Int64] = [],
                quantizedDimension: Int = 0, custom: ByteRange? = nil) {
        self.min = min
        self.max = max
        self.scales = scales
        self.zeroPoints = zeroPoints
        self.quantizedDimension = quantizedDimension
        self.custom = custom
    }

    /// Whether the tensor has affine (scale/zero point) quantization, as the runtime sees it.
    public var isAffine: Bool { !scales.isEmpty && custom == nil }
    /// Whether there is one scale per slice along `quantizedDimension`.
    public var isPerChannel: Bool { scales.count > 1 }
}

/// The storage type of one dimension of a sparse tensor.
public enum TFLiteDimensionType: UInt8, Sendable, Equatable {
    case dense = 0
    case sparseCSR = 1
}

/// An index vector of a sparse dimension (`tflite.SparseIndexVector`).
public enum TFLiteSparseIndexVector: Sendable, Equatable {
    case int32([Int32])
    case uint16([UInt16])
    case uint8([UInt8])

    /// The values widened to `Int`.
    public var values: [Int] {
        switch self {
        case let .int32(v): return v.map { Int($0) }
        case let .uint16(v): return v.map { Int($0) }
        case let .uint8(v): return v.map { Int($0) }
        }
    }
}

/// Index metadata of one traversal dimension of a sparse tensor.
public struct TFLiteDimensionMetadata: Sendable, Equatable {
    public var format: TFLiteDimensionType
    public var denseSize: Int
    public var arraySegments: TFLiteSparseIndexVector?
    public var arrayIndices: TFLiteSparseIndexVector?

    package init(format: TFLiteDimensionType, denseSize: Int, arraySegments: TFLiteSparseIndexVector?, arrayIndices: TFLiteSparseIndexVector?) {
        self.format = format
        self.denseSize = denseSize
        self.arraySegments = arraySegments
        self.arrayIndices = arrayIndices
    }
}

/// How a sparse tensor's values are laid out (`tflite.SparsityParameters`).
///
/// The reader reports sparse tensors as stored: `shape` is the dense shape, the buffer holds only
/// the non-zero values and this struct says where they go. It does not densify. The official
/// runtime does the same for the tensor list (a DENSIFY operator writes the dense copy into a
/// separate tensor), so tensor metadata match the runtime's; only a tensor's *data* differs from
/// its dense form. None of the shared models has sparse tensors.
public struct TFLiteSparsity: Sendable, Equatable {
    public var traversalOrder: [Int]
    public var blockMap: [Int]
    public var dimensionMetadata: [TFLiteDimensionMetadata]

    package init(traversalOrder: [Int], blockMap: [Int], dimensionMetadata: [TFLiteDimensionMetadata]) {
        self.traversalOrder = traversalOrder
        self.blockMap = blockMap
        self.dimensionMetadata = dimensionMetadata
    }
}

/// One tensor of a subgraph (`tflite.Tensor`).
public struct TFLiteTensor: Sendable, Equatable {
    /// Index in its subgraph's `tensors`.
    public var index: Int
    public var name: String
    public var type: TensorDataType
    /// The shape as stored (for tensors with unknown dimensions, the runtime's initial shape).
    public var shape: [Int]
    /// The shape with unknown dimensions as -1; equals `shape` when the file has no signature.
    public var shapeSignature: [Int]
    /// Index into the model's `buffers` (0 = no data: the tensor is computed at run time).
    public var bufferIndex: Int
    /// Quantization parameters, when the tensor has a quantization table.
    public var quantization: TFLiteQuantization?
    public var isVariable: Bool
    public var sparsity: TFLiteSparsity?
    public var hasRank: Bool

    package init(index: Int, name: String, type: TensorDataType, shape: [Int], shapeSignature: [Int]? = nil,
                bufferIndex: Int = 0, quantization: TFLiteQuantization? = nil, isVariable: Bool = false,
                sparsity: TFLiteSparsity? = nil, hasRank: Bool = false) {
        self.index = index
        self.name = name
        self.type = type
        self.shape = shape
        self.shapeSignature = shapeSignature ?? shape
        self.bufferIndex = bufferIndex
        self.quantization = quantization
        self.isVariable = isVariable
        self.sparsity = sparsity
        self.hasRank = hasRank
    }

    /// Number of elements of `shape` (nil if a dimension is negative or the product overflows).
    public var elementCount: Int? {
        var n = 1
        for d in shape {
            guard d >= 0 else { return nil }
            let (p, o) = n.multipliedReportingOverflow(by: d)
            if o { return nil }
            n = p
        }
        return n
    }
}

/// One operator of a subgraph (`tflite.Operator`).
public struct TFLiteOperator: Sendable, Equatable {
    /// Index in its subgraph's `operators` (execution order).
    public var index: Int
    /// Index into the model's `operatorCodes`.
    public var opcodeIndex: Int
    /// The resolved operator code (copied from `operatorCodes[opcodeIndex]`).
    public var code: TFLiteOperatorCode
    /// Input tensor indices; -1 marks an absent optional input.
    public var inputs: [Int]
    /// Output tensor indices.
    public var outputs: [Int]
    /// Tensors internal to the operator.
    public var intermediates: [Int]
    package var builtinOptions: BuiltinOptions
    /// The raw union tag of `builtin_options` (0 = none).
    public var builtinOptionsType: UInt8
    /// The raw union tag of `builtin_options_2` (StableHLO options; not decoded).
    public var builtinOptions2Type: UInt8
    /// The custom options bytes (FlexBuffers for `TFLite_Detection_PostProcess`), as a range of the model.
    public var customOptions: ByteRange?
    /// 0 = FLEXBUFFERS.
    public var customOptionsFormat: UInt8
    public var mutatingVariableInputs: [Bool]

    package init(index: Int, opcodeIndex: Int, code: TFLiteOperatorCode, inputs: [Int], outputs: [Int],
                intermediates: [Int] = [], builtinOptions: BuiltinOptions = .none, builtinOptionsType: UInt8 = 0,
                builtinOptions2Type: UInt8 = 0, customOptions: ByteRange? = nil, customOptionsFormat: UInt8 = 0,
                mutatingVariableInputs: [Bool] = []) {
        self.index = index
        self.opcodeIndex = opcodeIndex
        self.code = code
        self.inputs = inputs
        self.outputs = outputs
        self.intermediates = intermediates
        self.builtinOptions = builtinOptions
        self.builtinOptionsType = builtinOptionsType
        self.builtinOptions2Type = builtinOptions2Type
        self.customOptions = customOptions
        self.customOptionsFormat = customOptionsFormat
        self.mutatingVariableInputs = mutatingVariableInputs
    }

    /// The name the official runtime reports (`CONV_2D`, `TFLite_Detection_PostProcess`, …).
    public var opName: String { code.opName }
    /// The builtin operator (`.custom` for custom operators).
    public var builtin: BuiltinOperator { code.builtinCode }
}

/// One subgraph (`tflite.SubGraph`); subgraph 0 is the main model.
public struct TFLiteSubGraph: Sendable, Equatable {
    public var name: String?
    public var tensors: [TFLiteTensor]
    public var inputs: [Int]
    public var outputs: [Int]
    public var operators: [TFLiteOperator]

    package init(name: String?, tensors: [TFLiteTensor], inputs: [Int], outputs: [Int], operators: [TFLiteOperator]) {
        self.name = name
        self.tensors = tensors
        self.inputs = inputs
        self.outputs = outputs
        self.operators = operators
    }
}

/// One entry of the model's buffer table (`tflite.Buffer`): constant data as a view of the model's
/// bytes, inline in the FlatBuffer or (for models over 2 GB) at `offset`/`size` past it.
public struct TFLiteBuffer: Sendable, Equatable {
    /// Where the bytes are in the model file; nil for an empty buffer.
    public var range: ByteRange?
    /// Whether the data lives outside the FlatBuffer (`offset`/`size` fields).
    public var isExternal: Bool

    package init(range: ByteRange?, isExternal: Bool = false) {
        self.range = range
        self.isExternal = isExternal
    }

    /// Number of bytes (0 when empty).
    public var count: Int { range?.count ?? 0 }
}

/// A named metadata entry of the model (`tflite.Metadata`), e.g. `TFLITE_METADATA` or `min_runtime_version`.
public struct TFLiteMetadataEntry: Sendable, Equatable {
    public var name: String
    public var bufferIndex: Int
    package init(name: String, bufferIndex: Int) {
        self.name = name
        self.bufferIndex = bufferIndex
    }
}

/// A tensor alias of a signature.
public struct TFLiteTensorMap: Sendable, Equatable {
    public var name: String
    public var tensorIndex: Int
    package init(name: String, tensorIndex: Int) {
        self.name = name
        self.tensorIndex = tensorIndex
    }
}

/// A signature (`tflite.SignatureDef`): named inputs and outputs of one subgraph.
public struct TFLiteSignatureDef: Sendable, Equatable {
    public var key: String?
    public var subgraphIndex: Int
    public var inputs: [TFLiteTensorMap]
    public var outputs: [TFLiteTensorMap]
    package init(key: String?, subgraphIndex: Int, inputs: [TFLiteTensorMap], outputs: [TFLiteTensorMap]) {
        self.key = key
        self.subgraphIndex = subgraphIndex
        self.inputs = inputs
        self.outputs = outputs
    }
}
