import DetectorZlib
import DetectorPlatform
/// How the image is fitted to the tensor (and to a detector's input: `ObjectDetectorOptions.resizeMode`,
/// a decoder config's `"resize"`, the CLI's `--resize`).
///
/// ```swift
/// var options = ImageToTensorOptions(width: 640, height: 640, resizeMode: .letterbox, letterboxFill: 114,
///                                    inputType: .float32(.range(min: 0, max: 1)))
/// ```
public enum ResizeMode: String, Sendable, Equatable, Codable {
    /// The whole image is stretched to the tensor size (aspect ratio not kept). MediaPipe's
    /// object detector and classifier, and the YOLO goldens.
    case stretch
    /// Aspect ratio kept, image centred, the rest filled with a grey level (0 for MediaPipe's
    /// face and palm detectors, 114 as YOLO users expect).
    case letterbox
    /// Aspect ratio kept, image in the top-left corner, the rest filled (YOLOX's `preproc`):
    /// `r = min(width / W, height / H)`, resized to `(Int(W · r), Int(H · r))` (truncated).
    case letterboxTopLeft = "letterbox-top-left"

    /// Whether the aspect ratio is kept (either letterbox).
    public var isLetterbox: Bool { self != .stretch }
}

/// The order of the colour channels in the input tensor.
public enum ChannelOrder: String, Sendable, Equatable, Codable, CaseIterable {
    /// Red, green, blue (MediaPipe, ultralytics and most TFLite models).
    case rgb
    /// Blue, green, red (models trained on OpenCV's `imread` images, such as YOLOX).
    case bgr
}

/// How uint8 pixels become float values.
public enum TensorNormalization: Sendable, Equatable {
    /// `x · ((max − min) / 255) + min` in `Float` — MediaPipe's conversion to a value range,
    /// e.g. `[-1, 1]` gives `x · 0.007843138 − 1`.
    case range(min: Float, max: Float)
    /// `(x − mean[c]) / std[c]` in `Float`, per channel (one value applies to all channels).
    /// `mean: [0], std: [255]` gives the YOLO convention `x / 255`.
    case meanStd(mean: [Float], std: [Float])

    /// MediaPipe's treatment of metadata mean/std: converted to a range
    /// `lo = (0 − mean) / std`, `hi = (255 − mean) / std` in `Float`, then `.range(lo, hi)`.
    /// It can differ from `.meanStd` by 1 ulp; this is what MediaPipe's classifier computes.
    public static func mediaPipe(mean: Float, std: Float) -> TensorNormalization {
        let lo = (0 - mean) / std, hi = (255 - mean) / std
        return .range(min: lo, max: hi)
    }

    /// Float value of pixel `x` in channel `c`.
    @inline(__always)
    func floatValue(_ x: UInt8, channel c: Int) -> Float {
        switch self {
        case let .range(lo, hi):
            let scale = (hi - lo) / 255
            return Float(x) * scale + lo
        case let .meanStd(mean, std):
            let m = mean.isEmpty ? 0 : mean[min(c, mean.count - 1)]
            let s = std.isEmpty ? 1 : std[min(c, std.count - 1)]
            return (Float(x) - m) / s
        }
    }

    /// The same value in `Double` (used before quantizing, as the YOLO reference does).
    package func doubleValue(_ x: UInt8, channel c: Int) -> Double {
        switch self {
        case let .range(lo, hi):
            return Double(x) * (Double(hi) - Double(lo)) / 255 + Double(lo)
        case let .meanStd(mean, std):
            let m = mean.isEmpty ? 0 : Double(mean[min(c, mean.count - 1)])
            let s = std.isEmpty ? 1 : Double(std[min(c, std.count - 1)])
            return (Double(x) - m) / s
        }
    }
}

/// The element type and value mapping of the model's input tensor.
public enum TensorInputType: Sendable, Equatable {
    /// Float32 values from the normalization.
    case float32(TensorNormalization)
    /// The resized pixels unchanged (MediaPipe ignores metadata normalization for uint8 inputs).
    case uint8
    /// Quantized int8: `q = clamp(roundHalfEven(real / scale + zeroPoint), −128, 127)` with
    /// `real` from the normalization, computed in `Double` (the YOLO reference's formula).
    case int8(scale: Float, zeroPoint: Int, normalization: TensorNormalization)
    /// Quantized uint8 with the same formula, clamped to 0…255 (for uint8 inputs that expect
    /// normalized values instead of raw pixels).
    case uint8Quantized(scale: Float, zeroPoint: Int, normalization: TensorNormalization)
}

/// Options of `ImageToTensor.convert`.
///
/// ```swift
/// // MediaPipe SSD: stretch, MediaPipe resampler, raw uint8.
/// let ssd = ImageToTensorOptions(width: 300, height: 300, inputType: .uint8)
/// // Face detector: letterbox with zero fill, values in [-1, 1].
/// let face = ImageToTensorOptions(width: 128, height: 128, resizeMode: .letterbox,
///                                 inputType: .float32(.range(min: -1, max: 1)))
/// ```
public struct ImageToTensorOptions: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var resizeMode: ResizeMode
    /// Grey level of the letterbox padding (`resizeMode == .letterbox`).
    public var letterboxFill: UInt8
    public var resampler: Resampler
    public var inputType: TensorInputType
    /// The part of the image to convert, in image pixels (nil = the whole image), e.g. a detected
    /// object to classify. The MediaPipe resampler samples it at sub-pixel precision (neighbours
    /// outside the image: edge repeated for stretch, fill for letterbox, as MediaPipe does); the
    /// other resamplers crop the whole pixels it covers first. The transform still maps to
    /// coordinates of the whole image.
    public var region: ImageRect?
    /// The channel order of the tensor (the `resized` picture stays RGB).
    public var channelOrder: ChannelOrder

    public init(width: Int, height: Int, resizeMode: ResizeMode = .stretch, letterboxFill: UInt8 = 0,
                resampler: Resampler = .mediaPipe, inputType: TensorInputType, region: ImageRect? = nil,
                channelOrder: ChannelOrder = .rgb) {
        self.width = width
        self.height = height
        self.resizeMode = resizeMode
        self.letterboxFill = letterboxFill
        self.resampler = resampler
        self.inputType = inputType
        self.region = region
        self.channelOrder = channelOrder
    }
}
