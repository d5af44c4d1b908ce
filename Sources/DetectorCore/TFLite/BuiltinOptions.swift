/// Padding of convolutions and pools (`tflite.Padding`).
public enum TFLitePadding: UInt8, Sendable, Equatable {
    case same = 0
    case valid = 1
}

/// A fused activation applied to an operator's output (`tflite.ActivationFunctionType`).
public enum TFLiteActivation: UInt8, Sendable, Equatable {
    case none = 0
    case relu = 1
    case reluN1To1 = 2
    case relu6 = 3
    case tanh = 4
    case signBit = 5
}

public struct Conv2DOptions: Sendable, Equatable {
    public var padding: TFLitePadding = .same
    public var strideWidth: Int = 0
    public var strideHeight: Int = 0
    public var activation: TFLiteActivation = .none
    public var dilationWidthFactor: Int = 1
    public var dilationHeightFactor: Int = 1
    /// `quantized_bias_type` (raw TensorType; 0 = not set).
    public var quantizedBiasType: Int8 = 0
    public init() {}
}

public struct DepthwiseConv2DOptions: Sendable, Equatable {
    public var padding: TFLitePadding = .same
    public var strideWidth: Int = 0
    public var strideHeight: Int = 0
    public var depthMultiplier: Int = 0
    public var activation: TFLiteActivation = .none
    public var dilationWidthFactor: Int = 1
    public var dilationHeightFactor: Int = 1
    public init() {}
}

public struct Pool2DOptions: Sendable, Equatable {
    public var padding: TFLitePadding = .same
    public var strideWidth: Int = 0
    public var strideHeight: Int = 0
    public var filterWidth: Int = 0
    public var filterHeight: Int = 0
    public var activation: TFLiteActivation = .none
    public init() {}
}

public struct FullyConnectedOptions: Sendable, Equatable {
    public var activation: TFLiteActivation = .none
    /// 0 = DEFAULT, 1 = SHUFFLED4x16INT8.
    public var weightsFormat: UInt8 = 0
    public var keepNumDims: Bool = false
    public var asymmetricQuantizeInputs: Bool = false
    public var quantizedBiasType: Int8 = 0
    public init() {}
}

public struct SoftmaxOptions: Sendable, Equatable {
    public var beta: Float = 0
    public init() {}
}

public struct ConcatenationOptions: Sendable, Equatable {
    public var axis: Int = 0
    public var activation: TFLiteActivation = .none
    public init() {}
}

/// Options of ADD, SUB, MUL, DIV (`pot_scale_int16` only exists for ADD and SUB).
public struct ArithmeticOptions: Sendable, Equatable {
    public var activation: TFLiteActivation = .none
    public var potScaleInt16: Bool = true
    public init() {}
}

public struct ReshapeOptions: Sendable, Equatable {
    public var newShape: [Int]? = nil
    public init() {}
}

/// Options of RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR.
public struct ResizeOptions: Sendable, Equatable {
    public var alignCorners: Bool = false
    public var halfPixelCenters: Bool = false
    public init() {}
}

public struct StridedSliceOptions: Sendable, Equatable {
    public var beginMask: Int = 0
    public var endMask: Int = 0
    public var ellipsisMask: Int = 0
    public var newAxisMask: Int = 0
    public var shrinkAxisMask: Int = 0
    public var offset: Bool = false
    public init() {}
}

/// Options of MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, REDUCE_ANY, REDUCE_ALL.
public struct ReducerOptions: Sendable, Equatable {
    public var keepDims: Bool = false
    public init() {}
}

public struct SqueezeOptions: Sendable, Equatable {
    public var squeezeDims: [Int] = []
    public init() {}
}

/// Options of DEPTH_TO_SPACE and SPACE_TO_DEPTH.
public struct BlockSizeOptions: Sendable, Equatable {
    public var blockSize: Int = 0
    public init() {}
}

public struct GatherOptions: Sendable, Equatable {
    public var axis: Int = 0
    public var batchDims: Int = 0
    public init() {}
}

/// Options of SPLIT and SPLIT_V.
public struct SplitOptions: Sendable, Equatable {
    public var numSplits: Int = 0
    public init() {}
}

public struct PackOptions: Sendable, Equatable {
    public var valuesCount: Int = 0
    public var axis: Int = 0
    public init() {}
}

public struct UnpackOptions: Sendable, Equatable {
    public var num: Int = 0
    public var axis: Int = 0
    public init() {}
}

public struct LeakyReluOptions: Sendable, Equatable {
    public var alpha: Float = 0
    public init() {}
}

public struct CastOptions: Sendable, Equatable {
    /// Raw `TensorType` values (0 = FLOAT32, also the default when absent).
    public var inDataType: Int8 = 0
    public var outDataType: Int8 = 0
    public init() {}
}

/// Options of ARG_MAX, ARG_MIN and SHAPE: the output type (raw `TensorType`).
public struct OutputTypeOptions: Sendable, Equatable {
    public var outputType: Int8 = 0
    public init() {}
}

public struct TransposeConvOptions: Sendable, Equatable {
    public var padding: TFLitePadding = .same
    public var strideWidth: Int = 0
    public var strideHeight: Int = 0
    public var activation: TFLiteActivation = .none
    public var quantizedBiasType: Int8 = 0
    public init() {}
}

public struct MirrorPadOptions: Sendable, Equatable {
    /// 0 = REFLECT, 1 = SYMMETRIC.
    public var mode: UInt8 = 0
    public init() {}
}

public struct BatchMatMulOptions: Sendable, Equatable {
    public var adjointX: Bool = false
    public var adjointY: Bool = false
    public var asymmetricQuantizeInputs: Bool = false
    public init() {}
}

public struct LocalResponseNormalizationOptions: Sendable, Equatable {
    public var radius: Int = 0
    public var bias: Float = 0
    public var alpha: Float = 0
    public var beta: Float = 0
    public init() {}
}

public struct GeluOptions: Sendable, Equatable {
    public var approximate: Bool = false
    public init(approximate: Bool = false) { self.approximate = approximate }
}

/// The decoded `builtin_options` union of an operator. Option tables this reader does not model
/// (or that have no fields) are kept as `.other(unionType:)`.
public enum BuiltinOptions: Sendable, Equatable {
    case none
    case conv2D(Conv2DOptions)
    case depthwiseConv2D(DepthwiseConv2DOptions)
    case pool2D(Pool2DOptions)
    case fullyConnected(FullyConnectedOptions)
    case softmax(SoftmaxOptions)
    case concatenation(ConcatenationOptions)
    case add(ArithmeticOptions)
    case sub(ArithmeticOptions)
    case mul(ArithmeticOptions)
    case div(ArithmeticOptions)
    case l2Norm(activation: TFLiteActivation)
    case reshape(ReshapeOptions)
    case resizeBilinear(ResizeOptions)
    case resizeNearestNeighbor(ResizeOptions)
    case stridedSlice(StridedSliceOptions)
    case reducer(ReducerOptions)
    case squeeze(SqueezeOptions)
    case depthToSpace(BlockSizeOptions)
    case spaceToDepth(BlockSizeOptions)
    case gather(GatherOptions)
    case split(SplitOptions)
    case splitV(SplitOptions)
    case pack(PackOptions)
    case unpack(UnpackOptions)
    case leakyRelu(LeakyReluOptions)
    case cast(CastOptions)
    case argMax(OutputTypeOptions)
    case argMin(OutputTypeOptions)
    case shape(OutputTypeOptions)
    case transposeConv(TransposeConvOptions)
    case mirrorPad(MirrorPadOptions)
    case batchMatMul(BatchMatMulOptions)
    case localResponseNormalization(LocalResponseNormalizationOptions)
    case gelu(GeluOptions)
    /// Any other option table: the union type tag as stored (see `BuiltinOptionsType`).
    case other(unionType: UInt8)
}

/// Union type tags of `tflite.BuiltinOptions` that this reader decodes (1-based, 0 = NONE).
public enum BuiltinOptionsType {
    public static let conv2D: UInt8 = 1
    public static let depthwiseConv2D: UInt8 = 2
    public static let pool2D: UInt8 = 5
    public static let fullyConnected: UInt8 = 8
    public static let softmax: UInt8 = 9
    public static let concatenation: UInt8 = 10
    public static let add: UInt8 = 11
    public static let l2Norm: UInt8 = 12
    public static let localResponseNormalization: UInt8 = 13
    public static let resizeBilinear: UInt8 = 15
    public static let reshape: UInt8 = 17
    public static let spaceToDepth: UInt8 = 19
    public static let mul: UInt8 = 21
    public static let pad: UInt8 = 22
    public static let gather: UInt8 = 23
    public static let transpose: UInt8 = 26
    public static let reducer: UInt8 = 27
    public static let sub: UInt8 = 28
    public static let div: UInt8 = 29
    public static let squeeze: UInt8 = 30
    public static let stridedSlice: UInt8 = 32
    public static let split: UInt8 = 35
    public static let cast: UInt8 = 37
    public static let argMax: UInt8 = 40
    public static let transposeConv: UInt8 = 49
    public static let shape: UInt8 = 55
    public static let argMin: UInt8 = 57
    public static let pack: UInt8 = 59
    public static let unpack: UInt8 = 64
    public static let resizeNearestNeighbor: UInt8 = 74
    public static let leakyRelu: UInt8 = 75
    public static let mirrorPad: UInt8 = 77
    public static let splitV: UInt8 = 79
    public static let depthToSpace: UInt8 = 94
    public static let batchMatMul: UInt8 = 101
    public static let gelu: UInt8 = 116
}
