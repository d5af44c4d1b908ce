import DetectorZlib
/// Padding of convolutions and pools (`tflite.Padding`).
package enum TFLitePadding: UInt8, Sendable, Equatable {
    case same = 0
    case valid = 1
}

/// A fused activation applied to an operator's output (`tflite.ActivationFunctionType`).
package enum TFLiteActivation: UInt8, Sendable, Equatable {
    case none = 0
    case relu = 1
    case reluN1To1 = 2
    case relu6 = 3
    case tanh = 4
    case signBit = 5
}

package struct Conv2DOptions: Sendable, Equatable {
    package var padding: TFLitePadding = .same
    package var strideWidth: Int = 0
    package var strideHeight: Int = 0
    package var activation: TFLiteActivation = .none
    package var dilationWidthFactor: Int = 1
    package var dilationHeightFactor: Int = 1
    /// `quantized_bias_type` (raw TensorType; 0 = not set).
    package var quantizedBiasType: Int8 = 0
    package init() {}
}

package struct DepthwiseConv2DOptions: Sendable, Equatable {
    package var padding: TFLitePadding = .same
    package var strideWidth: Int = 0
    package var strideHeight: Int = 0
    package var depthMultiplier: Int = 0
    package var activation: TFLiteActivation = .none
    package var dilationWidthFactor: Int = 1
    package var dilationHeightFactor: Int = 1
    package init() {}
}

package struct Pool2DOptions: Sendable, Equatable {
    package var padding: TFLitePadding = .same
    package var strideWidth: Int = 0
    package var strideHeight: Int = 0
    package var filterWidth: Int = 0
    package var filterHeight: Int = 0
    package var activation: TFLiteActivation = .none
    package init() {}
}

package struct FullyConnectedOptions: Sendable, Equatable {
    package var activation: TFLiteActivation = .none
    /// 0 = DEFAULT, 1 = SHUFFLED4x16INT8.
    package var weightsFormat: UInt8 = 0
    package var keepNumDims: Bool = false
    package var asymmetricQuantizeInputs: Bool = false
    package var quantizedBiasType: Int8 = 0
    package init() {}
}

package struct SoftmaxOptions: Sendable, Equatable {
    package var beta: Float = 0
    package init() {}
}

package struct ConcatenationOptions: Sendable, Equatable {
    package var axis: Int = 0
    package var activation: TFLiteActivation = .none
    package init() {}
}

/// Options of ADD, SUB, MUL, DIV (`pot_scale_int16` only exists for ADD and SUB).
package struct ArithmeticOptions: Sendable, Equatable {
    package var activation: TFLiteActivation = .none
    package var potScaleInt16: Bool = true
    package init() {}
}

package struct ReshapeOptions: Sendable, Equatable {
    package var newShape: [Int]? = nil
    package init() {}
}

/// Options of RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR.
package struct ResizeOptions: Sendable, Equatable {
    package var alignCorners: Bool = false
    package var halfPixelCenters: Bool = false
    package init() {}
}

package struct StridedSliceOptions: Sendable, Equatable {
    package var beginMask: Int = 0
    package var endMask: Int = 0
    package var ellipsisMask: Int = 0
    package var newAxisMask: Int = 0
    package var shrinkAxisMask: Int = 0
    package var offset: Bool = false
    package init() {}
}

/// Options of MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, REDUCE_ANY, REDUCE_ALL.
package struct ReducerOptions: Sendable, Equatable {
    package var keepDims: Bool = false
    package init() {}
}

package struct SqueezeOptions: Sendable, Equatable {
    package var squeezeDims: [Int] = []
    package init() {}
}

/// Options of DEPTH_TO_SPACE and SPACE_TO_DEPTH.
package struct BlockSizeOptions: Sendable, Equatable {
    package var blockSize: Int = 0
    package init() {}
}

package struct GatherOptions: Sendable, Equatable {
    package var axis: Int = 0
    package var batchDims: Int = 0
    package init() {}
}

/// Options of SPLIT and SPLIT_V.
package struct SplitOptions: Sendable, Equatable {
    package var numSplits: Int = 0
    package init() {}
}

package struct PackOptions: Sendable, Equatable {
    package var valuesCount: Int = 0
    package var axis: Int = 0
    package init() {}
}

package struct UnpackOptions: Sendable, Equatable {
    package var num: Int = 0
    package var axis: Int = 0
    package init() {}
}

package struct LeakyReluOptions: Sendable, Equatable {
    package var alpha: Float = 0
    package init() {}
}

package struct CastOptions: Sendable, Equatable {
    /// Raw `TensorType` values (0 = FLOAT32, also the default when absent).
    package var inDataType: Int8 = 0
    package var outDataType: Int8 = 0
    package init() {}
}

/// Options of ARG_MAX, ARG_MIN and SHAPE: the output type (raw `TensorType`).
package struct OutputTypeOptions: Sendable, Equatable {
    package var outputType: Int8 = 0
    package init() {}
}

package struct TransposeConvOptions: Sendable, Equatable {
    package var padding: TFLitePadding = .same
    package var strideWidth: Int = 0
    package var strideHeight: Int = 0
    package var activation: TFLiteActivation = .none
    package var quantizedBiasType: Int8 = 0
    package init() {}
}

package struct MirrorPadOptions: Sendable, Equatable {
    /// 0 = REFLECT, 1 = SYMMETRIC.
    package var mode: UInt8 = 0
    package init() {}
}

package struct BatchMatMulOptions: Sendable, Equatable {
    package var adjointX: Bool = false
    package var adjointY: Bool = false
    package var asymmetricQuantizeInputs: Bool = false
    package init() {}
}

package struct LocalResponseNormalizationOptions: Sendable, Equatable {
    package var radius: Int = 0
    package var bias: Float = 0
    package var alpha: Float = 0
    package var beta: Float = 0
    package init() {}
}

package struct GeluOptions: Sendable, Equatable {
    package var approximate: Bool = false
    package init(approximate: Bool = false) { self.approximate = approximate }
}

/// The decoded `builtin_options` union of an operator. Option tables this reader does not model
/// (or that have no fields) are kept as `.other(unionType:)`.
package enum BuiltinOptions: Sendable, Equatable {
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
package enum BuiltinOptionsType {
    package static let conv2D: UInt8 = 1
    package static let depthwiseConv2D: UInt8 = 2
    package static let pool2D: UInt8 = 5
    package static let fullyConnected: UInt8 = 8
    package static let softmax: UInt8 = 9
    package static let concatenation: UInt8 = 10
    package static let add: UInt8 = 11
    package static let l2Norm: UInt8 = 12
    package static let localResponseNormalization: UInt8 = 13
    package static let resizeBilinear: UInt8 = 15
    package static let reshape: UInt8 = 17
    package static let spaceToDepth: UInt8 = 19
    package static let mul: UInt8 = 21
    package static let pad: UInt8 = 22
    package static let gather: UInt8 = 23
    package static let transpose: UInt8 = 26
    package static let reducer: UInt8 = 27
    package static let sub: UInt8 = 28
    package static let div: UInt8 = 29
    package static let squeeze: UInt8 = 30
    package static let stridedSlice: UInt8 = 32
    package static let split: UInt8 = 35
    package static let cast: UInt8 = 37
    package static let argMax: UInt8 = 40
    package static let transposeConv: UInt8 = 49
    package static let shape: UInt8 = 55
    package static let argMin: UInt8 = 57
    package static let pack: UInt8 = 59
    package static let unpack: UInt8 = 64
    package static let resizeNearestNeighbor: UInt8 = 74
    package static let leakyRelu: UInt8 = 75
    package static let mirrorPad: UInt8 = 77
    package static let splitV: UInt8 = 79
    package static let depthToSpace: UInt8 = 94
    package static let batchMatMul: UInt8 = 101
    package static let gelu: UInt8 = 116
}
