/// Every builtin option an interpreter kernel may read, flattened into one value type.
///
/// The graph builder copies the operator's typed builtin options from the model into the
/// fields that apply; the others keep their TFLite schema defaults. Kernels read only the
/// fields of their own op (e.g. `CONV_2D` reads `padding`, `strideWidth`, `strideHeight`,
/// `dilationWidthFactor`, `dilationHeightFactor`, `activation`).
public struct OperatorParameters: Sendable, Equatable {
    /// TFLite `Padding`.
    public enum Padding: Sendable, Equatable { case same, valid }

    /// TFLite `ActivationFunctionType` (fused activation applied to an op's output).
    public enum Activation: Int, Sendable, Equatable {
        case none = 0, relu = 1, reluN1To1 = 2, relu6 = 3, tanh = 4, signBit = 5
    }

    public var padding: Padding = .same
    public var strideWidth: Int = 1
    public var strideHeight: Int = 1
    public var dilationWidthFactor: Int = 1
    public var dilationHeightFactor: Int = 1
    public var depthMultiplier: Int = 1
    public var filterWidth: Int = 1
    public var filterHeight: Int = 1
    public var activation: Activation = .none

    /// FULLY_CONNECTED: keep the input's leading dimensions in the output.
    public var keepNumDims: Bool = false
    /// FULLY_CONNECTED / CONV_2D / DEPTHWISE_CONV_2D hybrid: quantize the float input asymmetrically.
    public var asymmetricQuantizeInputs: Bool = false
    /// FULLY_CONNECTED weights format (0 = DEFAULT; others unsupported).
    public var weightsFormat: Int = 0

    /// CONCATENATION / GATHER / PACK / UNPACK / SPLIT axis.
    public var axis: Int = 0
    /// GATHER batch_dims.
    public var batchDims: Int = 0
    /// PACK values_count / UNPACK num.
    public var valuesCount: Int = 0
    /// SPLIT num_splits.
    public var numSplits: Int = 0
    /// SOFTMAX beta.
    public var beta: Float = 1
    /// LEAKY_RELU alpha.
    public var alpha: Float = 0
    /// MEAN and other reducers.
    public var keepDims: Bool = false
    /// RESHAPE new_shape option (used when there is no shape tensor input); nil when absent.
    public var newShape: [Int]? = nil
    /// SQUEEZE squeeze_dims (empty = every dimension of size 1).
    public var squeezeDims: [Int] = []
    /// RESIZE_* options.
    public var alignCorners: Bool = false
    public var halfPixelCenters: Bool = false
    /// STRIDED_SLICE masks.
    public var beginMask: Int = 0
    public var endMask: Int = 0
    public var ellipsisMask: Int = 0
    public var newAxisMask: Int = 0
    public var shrinkAxisMask: Int = 0
    /// STRIDED_SLICE `offset`: end is relative to begin.
    public var offset: Bool = false
    /// DEPTH_TO_SPACE / SPACE_TO_DEPTH block size.
    public var blockSize: Int = 0
    /// CAST in/out types (informative; the tensors' types are used).
    public var castInType: TensorDataType? = nil
    public var castOutType: TensorDataType? = nil

    public init() {}
}
