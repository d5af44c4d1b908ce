import DetectorModelFile
import DetectorPlatform
/// Every builtin option an interpreter kernel may read, flattened into one value type.
///
/// The graph builder copies the operator's typed builtin options from the model into the
/// fields that apply; the others keep their TFLite schema defaults. Kernels read only the
/// fields of their own op (e.g. `CONV_2D` reads `padding`, `strideWidth`, `strideHeight`,
/// `dilationWidthFactor`, `dilationHeightFactor`, `activation`).
package struct OperatorParameters: Sendable, Equatable {
    /// TFLite `Padding`.
    package enum Padding: Sendable, Equatable { case same, valid }

    /// TFLite `ActivationFunctionType` (fused activation applied to an op's output).
    package enum Activation: Int, Sendable, Equatable {
        case none = 0, relu = 1, reluN1To1 = 2, relu6 = 3, tanh = 4, signBit = 5
    }

    package var padding: Padding = .same
    package var strideWidth: Int = 1
    package var strideHeight: Int = 1
    package var dilationWidthFactor: Int = 1
    package var dilationHeightFactor: Int = 1
    package var depthMultiplier: Int = 1
    package var filterWidth: Int = 1
    package var filterHeight: Int = 1
    package var activation: Activation = .none

    /// FULLY_CONNECTED: keep the input's leading dimensions in the output.
    package var keepNumDims: Bool = false
    /// FULLY_CONNECTED / CONV_2D / DEPTHWISE_CONV_2D hybrid: quantize the float input asymmetrically.
    package var asymmetricQuantizeInputs: Bool = false
    /// FULLY_CONNECTED weights format (0 = DEFAULT; others unsupported).
    package var weightsFormat: Int = 0

    /// CONCATENATION / GATHER / PACK / UNPACK / SPLIT axis.
    package var axis: Int = 0
    /// GATHER batch_dims.
    package var batchDims: Int = 0
    /// PACK values_count / UNPACK num.
    package var valuesCount: Int = 0
    /// SPLIT num_splits.
    package var numSplits: Int = 0
    /// SOFTMAX beta.
    package var beta: Float = 1
    /// LEAKY_RELU alpha.
    package var alpha: Float = 0
    /// MEAN and other reducers.
    package var keepDims: Bool = false
    /// RESHAPE new_shape option (used when there is no shape tensor input); nil when absent.
    package var newShape: [Int]? = nil
    /// SQUEEZE squeeze_dims (empty = every dimension of size 1).
    package var squeezeDims: [Int] = []
    /// RESIZE_* options.
    package var alignCorners: Bool = false
    package var halfPixelCenters: Bool = false
    /// STRIDED_SLICE masks.
    package var beginMask: Int = 0
    package var endMask: Int = 0
    package var ellipsisMask: Int = 0
    package var newAxisMask: Int = 0
    package var shrinkAxisMask: Int = 0
    /// STRIDED_SLICE `offset`: end is relative to begin.
    package var offset: Bool = false
    /// DEPTH_TO_SPACE / SPACE_TO_DEPTH block size.
    package var blockSize: Int = 0
    /// CAST in/out types (informative; the tensors' types are used).
    package var castInType: TensorDataType? = nil
    package var castOutType: TensorDataType? = nil

    package init() {}
}
