import DetectorZlib
/// A TFLite builtin operator code (`tflite.BuiltinOperator` in schema v3), with the official
/// numeric codes and names. Codes not listed here (newer than this reader) are kept as-is and
/// named `BUILTIN_<code>`.
///
/// ```swift
/// let code = BuiltinOperator(rawValue: 3)
/// code.name                                 // "CONV_2D"
/// code == BuiltinOperator(name: "CONV_2D")  // true
/// ```
public struct BuiltinOperator: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The official name (as `tflite::EnumNameBuiltinOperator` spells it).
    public var name: String {
        if rawValue >= 0, Int(rawValue) < BuiltinOperator.officialNames.count {
            return BuiltinOperator.officialNames[Int(rawValue)]
        }
        if rawValue == 225 { return "TEMP_STREAMING_CONV_2D" }
        return "BUILTIN_\(rawValue)"
    }

    public var description: String { name }

    /// Whether the code is one this reader knows by name.
    public var isKnown: Bool { (rawValue >= 0 && Int(rawValue) < BuiltinOperator.officialNames.count) || rawValue == 225 }

    /// The code with this official name, if any.
    public init?(name: String) {
        if let i = BuiltinOperator.officialNames.firstIndex(of: name) { self.init(rawValue: Int32(i)) }
        else if name == "TEMP_STREAMING_CONV_2D" { self.init(rawValue: 225) }
        else { return nil }
    }

    /// Official names of codes 0...205, indexed by code.
    static let officialNames: [String] = [
        "ADD",
        "AVERAGE_POOL_2D",
        "CONCATENATION",
        "CONV_2D",
        "DEPTHWISE_CONV_2D",
        "DEPTH_TO_SPACE",
        "DEQUANTIZE",
        "EMBEDDING_LOOKUP",
        "FLOOR",
        "FULLY_CONNECTED",
        "HASHTABLE_LOOKUP",
        "L2_NORMALIZATION",
        "L2_POOL_2D",
        "LOCAL_RESPONSE_NORMALIZATION",
        "LOGISTIC",
        "LSH_PROJECTION",
        "LSTM",
        "MAX_POOL_2D",
        "MUL",
        "RELU",
        "RELU_N1_TO_1",
        "RELU6",
        "RESHAPE",
        "RESIZE_BILINEAR",
        "RNN",
        "SOFTMAX",
        "SPACE_TO_DEPTH",
        "SVDF",
        "TANH",
        "CONCAT_EMBEDDINGS",
        "SKIP_GRAM",
        "CALL",
        "CUSTOM",
        "EMBEDDING_LOOKUP_SPARSE",
        "PAD",
        "UNIDIRECTIONAL_SEQUENCE_RNN",
        "GATHER",
        "BATCH_TO_SPACE_ND",
        "SPACE_TO_BATCH_ND",
        "TRANSPOSE",
        "MEAN",
        "SUB",
        "DIV",
        "SQUEEZE",
        "UNIDIRECTIONAL_SEQUENCE_LSTM",
        "STRIDED_SLICE",
        "BIDIRECTIONAL_SEQUENCE_RNN",
        "EXP",
        "TOPK_V2",
        "SPLIT",
        "LOG_SOFTMAX",
        "DELEGATE",
        "BIDIRECTIONAL_SEQUENCE_LSTM",
        "CAST",
        "PRELU",
        "MAXIMUM",
        "ARG_MAX",
        "MINIMUM",
        "LESS",
        "NEG",
        "PADV2",
        "GREATER",
        "GREATER_EQUAL",
        "LESS_EQUAL",
        "SELECT",
        "SLICE",
        "SIN",
        "TRANSPOSE_CONV",
        "SPARSE_TO_DENSE",
        "TILE",
        "EXPAND_DIMS",
        "EQUAL",
        "NOT_EQUAL",
        "LOG",
        "SUM",
        "SQRT",
        "RSQRT",
        "SHAPE",
        "POW",
        "ARG_MIN",
        "FAKE_QUANT",
        "REDUCE_PROD",
        "REDUCE_MAX",
        "PACK",
        "LOGICAL_OR",
        "ONE_HOT",
        "LOGICAL_AND",
        "LOGICAL_NOT",
        "UNPACK",
        "REDUCE_MIN",
        "FLOOR_DIV",
        "REDUCE_ANY",
        "SQUARE",
        "ZEROS_LIKE",
        "FILL",
        "FLOOR_MOD",
        "RANGE",
        "RESIZE_NEAREST_NEIGHBOR",
        "LEAKY_RELU",
        "SQUARED_DIFFERENCE",
        "MIRROR_PAD",
        "ABS",
        "SPLIT_V",
        "UNIQUE",
        "CEIL",
        "REVERSE_V2",
        "ADD_N",
        "GATHER_ND",
        "COS",
        "WHERE",
        "RANK",
        "ELU",
        "REVERSE_SEQUENCE",
        "MATRIX_DIAG",
        "QUANTIZE",
        "MATRIX_SET_DIAG",
        "ROUND",
        "HARD_SWISH",
        "IF",
        "WHILE",
        "NON_MAX_SUPPRESSION_V4",
        "NON_MAX_SUPPRESSION_V5",
        "SCATTER_ND",
        "SELECT_V2",
        "DENSIFY",
        "SEGMENT_SUM",
        "BATCH_MATMUL",
        "PLACEHOLDER_FOR_GREATER_OP_CODES",
        "CUMSUM",
        "CALL_ONCE",
        "BROADCAST_TO",
        "RFFT2D",
        "CONV_3D",
        "IMAG",
        "REAL",
        "COMPLEX_ABS",
        "HASHTABLE",
        "HASHTABLE_FIND",
        "HASHTABLE_IMPORT",
        "HASHTABLE_SIZE",
        "REDUCE_ALL",
        "CONV_3D_TRANSPOSE",
        "VAR_HANDLE",
        "READ_VARIABLE",
        "ASSIGN_VARIABLE",
        "BROADCAST_ARGS",
        "RANDOM_STANDARD_NORMAL",
        "BUCKETIZE",
        "RANDOM_UNIFORM",
        "MULTINOMIAL",
        "GELU",
        "DYNAMIC_UPDATE_SLICE",
        "RELU_0_TO_1",
        "UNSORTED_SEGMENT_PROD",
        "UNSORTED_SEGMENT_MAX",
        "UNSORTED_SEGMENT_SUM",
        "ATAN2",
        "UNSORTED_SEGMENT_MIN",
        "SIGN",
        "BITCAST",
        "BITWISE_XOR",
        "RIGHT_SHIFT",
        "STABLEHLO_LOGISTIC",
        "STABLEHLO_ADD",
        "STABLEHLO_DIVIDE",
        "STABLEHLO_MULTIPLY",
        "STABLEHLO_MAXIMUM",
        "STABLEHLO_RESHAPE",
        "STABLEHLO_CLAMP",
        "STABLEHLO_CONCATENATE",
        "STABLEHLO_BROADCAST_IN_DIM",
        "STABLEHLO_CONVOLUTION",
        "STABLEHLO_SLICE",
        "STABLEHLO_CUSTOM_CALL",
        "STABLEHLO_REDUCE",
        "STABLEHLO_ABS",
        "STABLEHLO_AND",
        "STABLEHLO_COSINE",
        "STABLEHLO_EXPONENTIAL",
        "STABLEHLO_FLOOR",
        "STABLEHLO_LOG",
        "STABLEHLO_MINIMUM",
        "STABLEHLO_NEGATE",
        "STABLEHLO_OR",
        "STABLEHLO_POWER",
        "STABLEHLO_REMAINDER",
        "STABLEHLO_RSQRT",
        "STABLEHLO_SELECT",
        "STABLEHLO_SUBTRACT",
        "STABLEHLO_TANH",
        "STABLEHLO_SCATTER",
        "STABLEHLO_COMPARE",
        "STABLEHLO_CONVERT",
        "STABLEHLO_DYNAMIC_SLICE",
        "STABLEHLO_DYNAMIC_UPDATE_SLICE",
        "STABLEHLO_PAD",
        "STABLEHLO_IOTA",
        "STABLEHLO_DOT_GENERAL",
        "STABLEHLO_REDUCE_WINDOW",
        "STABLEHLO_SORT",
        "STABLEHLO_WHILE",
        "STABLEHLO_GATHER",
        "STABLEHLO_TRANSPOSE",
        "DILATE",
        "STABLEHLO_RNG_BIT_GENERATOR",
        "REDUCE_WINDOW"
    ]

    /// `ADD`
    package static let add = BuiltinOperator(rawValue: 0)
    /// `AVERAGE_POOL_2D`
    package static let averagePool2D = BuiltinOperator(rawValue: 1)
    /// `CONCATENATION`
    package static let concatenation = BuiltinOperator(rawValue: 2)
    /// `CONV_2D`
    package static let conv2D = BuiltinOperator(rawValue: 3)
    /// `DEPTHWISE_CONV_2D`
    package static let depthwiseConv2D = BuiltinOperator(rawValue: 4)
    /// `DEPTH_TO_SPACE`
    package static let depthToSpace = BuiltinOperator(rawValue: 5)
    /// `DEQUANTIZE`
    package static let dequantize = BuiltinOperator(rawValue: 6)
    /// `EMBEDDING_LOOKUP`
    package static let embeddingLookup = BuiltinOperator(rawValue: 7)
    /// `FLOOR`
    package static let floor = BuiltinOperator(rawValue: 8)
    /// `FULLY_CONNECTED`
    package static let fullyConnected = BuiltinOperator(rawValue: 9)
    /// `HASHTABLE_LOOKUP`
    package static let hashtableLookup = BuiltinOperator(rawValue: 10)
    /// `L2_NORMALIZATION`
    package static let l2Normalization = BuiltinOperator(rawValue: 11)
    /// `L2_POOL_2D`
    package static let l2Pool2D = BuiltinOperator(rawValue: 12)
    /// `LOCAL_RESPONSE_NORMALIZATION`
    package static let localResponseNormalization = BuiltinOperator(rawValue: 13)
    /// `LOGISTIC`
    package static let logistic = BuiltinOperator(rawValue: 14)
    /// `LSH_PROJECTION`
    package static let lshProjection = BuiltinOperator(rawValue: 15)
    /// `LSTM`
    package static let lstm = BuiltinOperator(rawValue: 16)
    /// `MAX_POOL_2D`
    package static let maxPool2D = BuiltinOperator(rawValue: 17)
    /// `MUL`
    package static let mul = BuiltinOperator(rawValue: 18)
    /// `RELU`
    package static let relu = BuiltinOperator(rawValue: 19)
    /// `RELU_N1_TO_1`
    package static let reluN1To1 = BuiltinOperator(rawValue: 20)
    /// `RELU6`
    package static let relu6 = BuiltinOperator(rawValue: 21)
    /// `RESHAPE`
    package static let reshape = BuiltinOperator(rawValue: 22)
    /// `RESIZE_BILINEAR`
    package static let resizeBilinear = BuiltinOperator(rawValue: 23)
    /// `RNN`
    package static let rnn = BuiltinOperator(rawValue: 24)
    /// `SOFTMAX`
    package static let softmax = BuiltinOperator(rawValue: 25)
    /// `SPACE_TO_DEPTH`
    package static let spaceToDepth = BuiltinOperator(rawValue: 26)
    /// `SVDF`
    package static let svdf = BuiltinOperator(rawValue: 27)
    /// `TANH`
    package static let tanh = BuiltinOperator(rawValue: 28)
    /// `CONCAT_EMBEDDINGS`
    package static let concatEmbeddings = BuiltinOperator(rawValue: 29)
    /// `SKIP_GRAM`
    package static let skipGram = BuiltinOperator(rawValue: 30)
    /// `CALL`
    package static let call = BuiltinOperator(rawValue: 31)
    /// `CUSTOM`
    package static let custom = BuiltinOperator(rawValue: 32)
    /// `EMBEDDING_LOOKUP_SPARSE`
    package static let embeddingLookupSparse = BuiltinOperator(rawValue: 33)
    /// `PAD`
    package static let pad = BuiltinOperator(rawValue: 34)
    /// `UNIDIRECTIONAL_SEQUENCE_RNN`
    package static let unidirectionalSequenceRnn = BuiltinOperator(rawValue: 35)
    /// `GATHER`
    package static let gather = BuiltinOperator(rawValue: 36)
    /// `BATCH_TO_SPACE_ND`
    package static let batchToSpaceND = BuiltinOperator(rawValue: 37)
    /// `SPACE_TO_BATCH_ND`
    package static let spaceToBatchND = BuiltinOperator(rawValue: 38)
    /// `TRANSPOSE`
    package static let transpose = BuiltinOperator(rawValue: 39)
    /// `MEAN`
    package static let mean = BuiltinOperator(rawValue: 40)
    /// `SUB`
    package static let sub = BuiltinOperator(rawValue: 41)
    /// `DIV`
    package static let div = BuiltinOperator(rawValue: 42)
    /// `SQUEEZE`
    package static let squeeze = BuiltinOperator(rawValue: 43)
    /// `UNIDIRECTIONAL_SEQUENCE_LSTM`
    package static let unidirectionalSequenceLstm = BuiltinOperator(rawValue: 44)
    /// `STRIDED_SLICE`
    package static let stridedSlice = BuiltinOperator(rawValue: 45)
    /// `BIDIRECTIONAL_SEQUENCE_RNN`
    package static let bidirectionalSequenceRnn = BuiltinOperator(rawValue: 46)
    /// `EXP`
    package static let exp = BuiltinOperator(rawValue: 47)
    /// `TOPK_V2`
    package static let topkV2 = BuiltinOperator(rawValue: 48)
    /// `SPLIT`
    package static let split = BuiltinOperator(rawValue: 49)
    /// `LOG_SOFTMAX`
    package static let logSoftmax = BuiltinOperator(rawValue: 50)
    /// `DELEGATE`
    package static let delegate = BuiltinOperator(rawValue: 51)
    /// `BIDIRECTIONAL_SEQUENCE_LSTM`
    package static let bidirectionalSequenceLstm = BuiltinOperator(rawValue: 52)
    /// `CAST`
    package static let cast = BuiltinOperator(rawValue: 53)
    /// `PRELU`
    package static let prelu = BuiltinOperator(rawValue: 54)
    /// `MAXIMUM`
    package static let maximum = BuiltinOperator(rawValue: 55)
    /// `ARG_MAX`
    package static let argMax = BuiltinOperator(rawValue: 56)
    /// `MINIMUM`
    package static let minimum = BuiltinOperator(rawValue: 57)
    /// `LESS`
    package static let less = BuiltinOperator(rawValue: 58)
    /// `NEG`
    package static let neg = BuiltinOperator(rawValue: 59)
    /// `PADV2`
    package static let padv2 = BuiltinOperator(rawValue: 60)
    /// `GREATER`
    package static let greater = BuiltinOperator(rawValue: 61)
    /// `GREATER_EQUAL`
    package static let greaterEqual = BuiltinOperator(rawValue: 62)
    /// `LESS_EQUAL`
    package static let lessEqual = BuiltinOperator(rawValue: 63)
    /// `SELECT`
    package static let select = BuiltinOperator(rawValue: 64)
    /// `SLICE`
    package static let slice = BuiltinOperator(rawValue: 65)
    /// `SIN`
    package static let sin = BuiltinOperator(rawValue: 66)
    /// `TRANSPOSE_CONV`
    package static let transposeConv = BuiltinOperator(rawValue: 67)
    /// `SPARSE_TO_DENSE`
    package static let sparseToDense = BuiltinOperator(rawValue: 68)
    /// `TILE`
    package static let tile = BuiltinOperator(rawValue: 69)
    /// `EXPAND_DIMS`
    package static let expandDims = BuiltinOperator(rawValue: 70)
    /// `EQUAL`
    package static let equal = BuiltinOperator(rawValue: 71)
    /// `NOT_EQUAL`
    package static let notEqual = BuiltinOperator(rawValue: 72)
    /// `LOG`
    package static let log = BuiltinOperator(rawValue: 73)
    /// `SUM`
    package static let sum = BuiltinOperator(rawValue: 74)
    /// `SQRT`
    package static let sqrt = BuiltinOperator(rawValue: 75)
    /// `RSQRT`
    package static let rsqrt = BuiltinOperator(rawValue: 76)
    /// `SHAPE`
    package static let shape = BuiltinOperator(rawValue: 77)
    /// `POW`
    package static let pow = BuiltinOperator(rawValue: 78)
    /// `ARG_MIN`
    package static let argMin = BuiltinOperator(rawValue: 79)
    /// `FAKE_QUANT`
    package static let fakeQuant = BuiltinOperator(rawValue: 80)
    /// `REDUCE_PROD`
    package static let reduceProd = BuiltinOperator(rawValue: 81)
    /// `REDUCE_MAX`
    package static let reduceMax = BuiltinOperator(rawValue: 82)
    /// `PACK`
    package static let pack = BuiltinOperator(rawValue: 83)
    /// `LOGICAL_OR`
    package static let logicalOr = BuiltinOperator(rawValue: 84)
    /// `ONE_HOT`
    package static let oneHot = BuiltinOperator(rawValue: 85)
    /// `LOGICAL_AND`
    package static let logicalAnd = BuiltinOperator(rawValue: 86)
    /// `LOGICAL_NOT`
    package static let logicalNot = BuiltinOperator(rawValue: 87)
    /// `UNPACK`
    package static let unpack = BuiltinOperator(rawValue: 88)
    /// `REDUCE_MIN`
    package static let reduceMin = BuiltinOperator(rawValue: 89)
    /// `FLOOR_DIV`
    package static let floorDiv = BuiltinOperator(rawValue: 90)
    /// `REDUCE_ANY`
    package static let reduceAny = BuiltinOperator(rawValue: 91)
    /// `SQUARE`
    package static let square = BuiltinOperator(rawValue: 92)
    /// `ZEROS_LIKE`
    package static let zerosLike = BuiltinOperator(rawValue: 93)
    /// `FILL`
    package static let fill = BuiltinOperator(rawValue: 94)
    /// `FLOOR_MOD`
    package static let floorMod = BuiltinOperator(rawValue: 95)
    /// `RANGE`
    package static let range = BuiltinOperator(rawValue: 96)
    /// `RESIZE_NEAREST_NEIGHBOR`
    package static let resizeNearestNeighbor = BuiltinOperator(rawValue: 97)
    /// `LEAKY_RELU`
    package static let leakyRelu = BuiltinOperator(rawValue: 98)
    /// `SQUARED_DIFFERENCE`
    package static let squaredDifference = BuiltinOperator(rawValue: 99)
    /// `MIRROR_PAD`
    package static let mirrorPad = BuiltinOperator(rawValue: 100)
    /// `ABS`
    package static let abs = BuiltinOperator(rawValue: 101)
    /// `SPLIT_V`
    package static let splitV = BuiltinOperator(rawValue: 102)
    /// `UNIQUE`
    package static let unique = BuiltinOperator(rawValue: 103)
    /// `CEIL`
    package static let ceil = BuiltinOperator(rawValue: 104)
    /// `REVERSE_V2`
    package static let reverseV2 = BuiltinOperator(rawValue: 105)
    /// `ADD_N`
    package static let addN = BuiltinOperator(rawValue: 106)
    /// `GATHER_ND`
    package static let gatherND = BuiltinOperator(rawValue: 107)
    /// `COS`
    package static let cos = BuiltinOperator(rawValue: 108)
    /// `WHERE`
    public static let `where` = BuiltinOperator(rawValue: 109)
    /// `RANK`
    package static let rank = BuiltinOperator(rawValue: 110)
    /// `ELU`
    package static let elu = BuiltinOperator(rawValue: 111)
    /// `REVERSE_SEQUENCE`
    package static let reverseSequence = BuiltinOperator(rawValue: 112)
    /// `MATRIX_DIAG`
    package static let matrixDiag = BuiltinOperator(rawValue: 113)
    /// `QUANTIZE`
    package static let quantize = BuiltinOperator(rawValue: 114)
    /// `MATRIX_SET_DIAG`
    package static let matrixSetDiag = BuiltinOperator(rawValue: 115)
    /// `ROUND`
    package static let round = BuiltinOperator(rawValue: 116)
    /// `HARD_SWISH`
    package static let hardSwish = BuiltinOperator(rawValue: 117)
    /// `IF`
    public static let `if` = BuiltinOperator(rawValue: 118)
    /// `WHILE`
    public static let `while` = BuiltinOperator(rawValue: 119)
    /// `NON_MAX_SUPPRESSION_V4`
    package static let nonMaxSuppressionV4 = BuiltinOperator(rawValue: 120)
    /// `NON_MAX_SUPPRESSION_V5`
    package static let nonMaxSuppressionV5 = BuiltinOperator(rawValue: 121)
    /// `SCATTER_ND`
    package static let scatterND = BuiltinOperator(rawValue: 122)
    /// `SELECT_V2`
    package static let selectV2 = BuiltinOperator(rawValue: 123)
    /// `DENSIFY`
    package static let densify = BuiltinOperator(rawValue: 124)
    /// `SEGMENT_SUM`
    package static let segmentSum = BuiltinOperator(rawValue: 125)
    /// `BATCH_MATMUL`
    package static let batchMatmul = BuiltinOperator(rawValue: 126)
    /// `PLACEHOLDER_FOR_GREATER_OP_CODES`
    package static let placeholderForGreaterOpCodes = BuiltinOperator(rawValue: 127)
    /// `CUMSUM`
    package static let cumsum = BuiltinOperator(rawValue: 128)
    /// `CALL_ONCE`
    package static let callOnce = BuiltinOperator(rawValue: 129)
    /// `BROADCAST_TO`
    package static let broadcastTo = BuiltinOperator(rawValue: 130)
    /// `RFFT2D`
    package static let rfft2d = BuiltinOperator(rawValue: 131)
    /// `CONV_3D`
    package static let conv3D = BuiltinOperator(rawValue: 132)
    /// `IMAG`
    package static let imag = BuiltinOperator(rawValue: 133)
    /// `REAL`
    package static let real = BuiltinOperator(rawValue: 134)
    /// `COMPLEX_ABS`
    package static let complexAbs = BuiltinOperator(rawValue: 135)
    /// `HASHTABLE`
    package static let hashtable = BuiltinOperator(rawValue: 136)
    /// `HASHTABLE_FIND`
    package static let hashtableFind = BuiltinOperator(rawValue: 137)
    /// `HASHTABLE_IMPORT`
    package static let hashtableImport = BuiltinOperator(rawValue: 138)
    /// `HASHTABLE_SIZE`
    package static let hashtableSize = BuiltinOperator(rawValue: 139)
    /// `REDUCE_ALL`
    package static let reduceAll = BuiltinOperator(rawValue: 140)
    /// `CONV_3D_TRANSPOSE`
    package static let conv3DTranspose = BuiltinOperator(rawValue: 141)
    /// `VAR_HANDLE`
    package static let varHandle = BuiltinOperator(rawValue: 142)
    /// `READ_VARIABLE`
    package static let readVariable = BuiltinOperator(rawValue: 143)
    /// `ASSIGN_VARIABLE`
    package static let assignVariable = BuiltinOperator(rawValue: 144)
    /// `BROADCAST_ARGS`
    package static let broadcastArgs = BuiltinOperator(rawValue: 145)
    /// `RANDOM_STANDARD_NORMAL`
    package static let randomStandardNormal = BuiltinOperator(rawValue: 146)
    /// `BUCKETIZE`
    package static let bucketize = BuiltinOperator(rawValue: 147)
    /// `RANDOM_UNIFORM`
    package static let randomUniform = BuiltinOperator(rawValue: 148)
    /// `MULTINOMIAL`
    package static let multinomial = BuiltinOperator(rawValue: 149)
    /// `GELU`
    package static let gelu = BuiltinOperator(rawValue: 150)
    /// `DYNAMIC_UPDATE_SLICE`
    package static let dynamicUpdateSlice = BuiltinOperator(rawValue: 151)
    /// `RELU_0_TO_1`
    package static let relu0To1 = BuiltinOperator(rawValue: 152)
    /// `UNSORTED_SEGMENT_PROD`
    package static let unsortedSegmentProd = BuiltinOperator(rawValue: 153)
    /// `UNSORTED_SEGMENT_MAX`
    package static let unsortedSegmentMax = BuiltinOperator(rawValue: 154)
    /// `UNSORTED_SEGMENT_SUM`
    package static let unsortedSegmentSum = BuiltinOperator(rawValue: 155)
    /// `ATAN2`
    package static let atan2 = BuiltinOperator(rawValue: 156)
    /// `UNSORTED_SEGMENT_MIN`
    package static let unsortedSegmentMin = BuiltinOperator(rawValue: 157)
    /// `SIGN`
    package static let sign = BuiltinOperator(rawValue: 158)
    /// `BITCAST`
    package static let bitcast = BuiltinOperator(rawValue: 159)
    /// `BITWISE_XOR`
    package static let bitwiseXor = BuiltinOperator(rawValue: 160)
    /// `RIGHT_SHIFT`
    package static let rightShift = BuiltinOperator(rawValue: 161)
    /// `STABLEHLO_LOGISTIC`
    package static let stablehloLogistic = BuiltinOperator(rawValue: 162)
    /// `STABLEHLO_ADD`
    package static let stablehloAdd = BuiltinOperator(rawValue: 163)
    /// `STABLEHLO_DIVIDE`
    package static let stablehloDivide = BuiltinOperator(rawValue: 164)
    /// `STABLEHLO_MULTIPLY`
    package static let stablehloMultiply = BuiltinOperator(rawValue: 165)
    /// `STABLEHLO_MAXIMUM`
    package static let stablehloMaximum = BuiltinOperator(rawValue: 166)
    /// `STABLEHLO_RESHAPE`
    package static let stablehloReshape = BuiltinOperator(rawValue: 167)
    /// `STABLEHLO_CLAMP`
    package static let stablehloClamp = BuiltinOperator(rawValue: 168)
    /// `STABLEHLO_CONCATENATE`
    package static let stablehloConcatenate = BuiltinOperator(rawValue: 169)
    /// `STABLEHLO_BROADCAST_IN_DIM`
    package static let stablehloBroadcastInDim = BuiltinOperator(rawValue: 170)
    /// `STABLEHLO_CONVOLUTION`
    package static let stablehloConvolution = BuiltinOperator(rawValue: 171)
    /// `STABLEHLO_SLICE`
    package static let stablehloSlice = BuiltinOperator(rawValue: 172)
    /// `STABLEHLO_CUSTOM_CALL`
    package static let stablehloCustomCall = BuiltinOperator(rawValue: 173)
    /// `STABLEHLO_REDUCE`
    package static let stablehloReduce = BuiltinOperator(rawValue: 174)
    /// `STABLEHLO_ABS`
    package static let stablehloAbs = BuiltinOperator(rawValue: 175)
    /// `STABLEHLO_AND`
    package static let stablehloAnd = BuiltinOperator(rawValue: 176)
    /// `STABLEHLO_COSINE`
    package static let stablehloCosine = BuiltinOperator(rawValue: 177)
    /// `STABLEHLO_EXPONENTIAL`
    package static let stablehloExponential = BuiltinOperator(rawValue: 178)
    /// `STABLEHLO_FLOOR`
    package static let stablehloFloor = BuiltinOperator(rawValue: 179)
    /// `STABLEHLO_LOG`
    package static let stablehloLog = BuiltinOperator(rawValue: 180)
    /// `STABLEHLO_MINIMUM`
    package static let stablehloMinimum = BuiltinOperator(rawValue: 181)
    /// `STABLEHLO_NEGATE`
    package static let stablehloNegate = BuiltinOperator(rawValue: 182)
    /// `STABLEHLO_OR`
    package static let stablehloOr = BuiltinOperator(rawValue: 183)
    /// `STABLEHLO_POWER`
    package static let stablehloPower = BuiltinOperator(rawValue: 184)
    /// `STABLEHLO_REMAINDER`
    package static let stablehloRemainder = BuiltinOperator(rawValue: 185)
    /// `STABLEHLO_RSQRT`
    package static let stablehloRsqrt = BuiltinOperator(rawValue: 186)
    /// `STABLEHLO_SELECT`
    package static let stablehloSelect = BuiltinOperator(rawValue: 187)
    /// `STABLEHLO_SUBTRACT`
    package static let stablehloSubtract = BuiltinOperator(rawValue: 188)
    /// `STABLEHLO_TANH`
    package static let stablehloTanh = BuiltinOperator(rawValue: 189)
    /// `STABLEHLO_SCATTER`
    package static let stablehloScatter = BuiltinOperator(rawValue: 190)
    /// `STABLEHLO_COMPARE`
    package static let stablehloCompare = BuiltinOperator(rawValue: 191)
    /// `STABLEHLO_CONVERT`
    package static let stablehloConvert = BuiltinOperator(rawValue: 192)
    /// `STABLEHLO_DYNAMIC_SLICE`
    package static let stablehloDynamicSlice = BuiltinOperator(rawValue: 193)
    /// `STABLEHLO_DYNAMIC_UPDATE_SLICE`
    package static let stablehloDynamicUpdateSlice = BuiltinOperator(rawValue: 194)
    /// `STABLEHLO_PAD`
    package static let stablehloPad = BuiltinOperator(rawValue: 195)
    /// `STABLEHLO_IOTA`
    package static let stablehloIota = BuiltinOperator(rawValue: 196)
    /// `STABLEHLO_DOT_GENERAL`
    package static let stablehloDotGeneral = BuiltinOperator(rawValue: 197)
    /// `STABLEHLO_REDUCE_WINDOW`
    package static let stablehloReduceWindow = BuiltinOperator(rawValue: 198)
    /// `STABLEHLO_SORT`
    package static let stablehloSort = BuiltinOperator(rawValue: 199)
    /// `STABLEHLO_WHILE`
    package static let stablehloWhile = BuiltinOperator(rawValue: 200)
    /// `STABLEHLO_GATHER`
    package static let stablehloGather = BuiltinOperator(rawValue: 201)
    /// `STABLEHLO_TRANSPOSE`
    package static let stablehloTranspose = BuiltinOperator(rawValue: 202)
    /// `DILATE`
    package static let dilate = BuiltinOperator(rawValue: 203)
    /// `STABLEHLO_RNG_BIT_GENERATOR`
    package static let stablehloRngBitGenerator = BuiltinOperator(rawValue: 204)
    /// `REDUCE_WINDOW`
    package static let reduceWindow = BuiltinOperator(rawValue: 205)
    /// `TEMP_STREAMING_CONV_2D`
    package static let tempStreamingConv2D = BuiltinOperator(rawValue: 225)
}
