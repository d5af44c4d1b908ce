import DetectorZlib
/// TFLite model metadata (`tflite.ModelMetadata`, the FlatBuffer with identifier `M001` stored in
/// the model's `TFLITE_METADATA` buffer): human-readable information plus what a task library
/// needs to run the model (normalization, box layout, label files, score thresholds/calibration).
///
/// ```swift
/// let model = try TFLiteModel(contentsOfFile: "detect.tflite")
/// if let metadata = try ModelMetadata(model: model) {
///     print(metadata.name ?? "", metadata.inputNormalization?.mean ?? [])
/// }
/// ```
public struct ModelMetadata: Sendable, Equatable {
    public var name: String?
    public var description: String?
    public var version: String?
    public var author: String?
    public var license: String?
    public var subgraphs: [SubGraphMetadata]
    public var associatedFiles: [AssociatedFileInfo]
    public var minParserVersion: String?

    public init(name: String? = nil, description: String? = nil, version: String? = nil, author: String? = nil,
                license: String? = nil, subgraphs: [SubGraphMetadata] = [], associatedFiles: [AssociatedFileInfo] = [],
                minParserVersion: String? = nil) {
        self.name = name
        self.description = description
        self.version = version
        self.author = author
        self.license = license
        self.subgraphs = subgraphs
        self.associatedFiles = associatedFiles
        self.minParserVersion = minParserVersion
    }

    /// Metadata of the first input tensor of subgraph 0 (the image, for vision models).
    public var imageInput: TensorMetadata? { subgraphs.first?.inputTensors.first }

    /// The normalization of the first input (mean/std per channel), if the metadata gives one.
    public var inputNormalization: NormalizationOptions? {
        for unit in imageInput?.processUnits ?? [] {
            if case let .normalization(n) = unit { return n }
        }
        return nil
    }
}

public struct SubGraphMetadata: Sendable, Equatable {
    public var name: String?
    public var description: String?
    /// One entry per `SubGraph.inputs`, in the same order.
    public var inputTensors: [TensorMetadata]
    /// One entry per `SubGraph.outputs`, in the same order.
    public var outputTensors: [TensorMetadata]
    public var associatedFiles: [AssociatedFileInfo]
    public var inputProcessUnits: [ProcessUnit]
    public var outputProcessUnits: [ProcessUnit]
    public var inputTensorGroups: [TensorGroup]
    public var outputTensorGroups: [TensorGroup]

    public init(name: String? = nil, description: String? = nil, inputTensors: [TensorMetadata] = [],
                outputTensors: [TensorMetadata] = [], associatedFiles: [AssociatedFileInfo] = [],
                inputProcessUnits: [ProcessUnit] = [], outputProcessUnits: [ProcessUnit] = [],
                inputTensorGroups: [TensorGroup] = [], outputTensorGroups: [TensorGroup] = []) {
        self.name = name
        self.description = description
        self.inputTensors = inputTensors
        self.outputTensors = outputTensors
        self.associatedFiles = associatedFiles
        self.inputProcessUnits = inputProcessUnits
        self.outputProcessUnits = outputProcessUnits
        self.inputTensorGroups = inputTensorGroups
        self.outputTensorGroups = outputTensorGroups
    }
}

/// A named group of output tensors (e.g. `detection_result`).
public struct TensorGroup: Sendable, Equatable {
    public var name: String?
    public var tensorNames: [String]
    public init(name: String?, tensorNames: [String]) {
        self.name = name
        self.tensorNames = tensorNames
    }
}

public struct TensorMetadata: Sendable, Equatable {
    public var name: String?
    public var description: String?
    public var dimensionNames: [String]
    public var content: ContentMetadata?
    public var processUnits: [ProcessUnit]
    public var stats: TensorStats?
    public var associatedFiles: [AssociatedFileInfo]

    public init(name: String? = nil, description: String? = nil, dimensionNames: [String] = [],
                content: ContentMetadata? = nil, processUnits: [ProcessUnit] = [], stats: TensorStats? = nil,
                associatedFiles: [AssociatedFileInfo] = []) {
        self.name = name
        self.description = description
        self.dimensionNames = dimensionNames
        self.content = content
        self.processUnits = processUnits
        self.stats = stats
        self.associatedFiles = associatedFiles
    }

    /// The score threshold recommended by a `ScoreThresholdingOptions` unit, if any.
    public var scoreThreshold: Float? {
        for unit in processUnits { if case let .scoreThresholding(t) = unit { return t } }
        return nil
    }

    /// The `ScoreCalibrationOptions` unit, if any.
    public var scoreCalibration: ScoreCalibrationOptions? {
        for unit in processUnits { if case let .scoreCalibration(c) = unit { return c } }
        return nil
    }

    /// Box layout, when the content is `BoundingBoxProperties`.
    public var boundingBox: BoundingBoxProperties? {
        if case let .boundingBox(b)? = content?.properties { return b }
        return nil
    }
}

/// Per-channel statistics of a tensor.
public struct TensorStats: Sendable, Equatable {
    public var max: [Float]
    public var min: [Float]
    public init(max: [Float], min: [Float]) {
        self.max = max
        self.min = min
    }
}

/// What a tensor holds, and which of its dimensions hold it.
public struct ContentMetadata: Sendable, Equatable {
    public var properties: ContentProperties
    /// `Content.range` (min, max dimension), when given.
    public var range: ClosedRange<Int>?
    public init(properties: ContentProperties, range: ClosedRange<Int>?) {
        self.properties = properties
        self.range = range
    }
}

public enum ContentProperties: Sendable, Equatable {
    case none
    case feature
    case image(ImageProperties)
    case boundingBox(BoundingBoxProperties)
    case audio(sampleRate: Int, channels: Int)
    case other(unionType: UInt8)
}

/// `tflite.ColorSpaceType`.
public enum ColorSpaceType: Int8, Sendable, Equatable {
    case unknown = 0
    case rgb = 1
    case grayscale = 2
}

public struct ImageProperties: Sendable, Equatable {
    public var colorSpace: ColorSpaceType
    /// `default_size` (width, height) for dynamic-size inputs.
    public var defaultWidth: Int?
    public var defaultHeight: Int?
    public init(colorSpace: ColorSpaceType, defaultWidth: Int? = nil, defaultHeight: Int? = nil) {
        self.colorSpace = colorSpace
        self.defaultWidth = defaultWidth
        self.defaultHeight = defaultHeight
    }
}

/// `tflite.BoundingBoxType`.
public enum BoundingBoxType: Int8, Sendable, Equatable {
    case unknown = 0
    /// left, top, right, bottom (default order).
    case boundaries = 1
    /// upper-left x, y, width, height.
    case upperLeft = 2
    /// center x, y, width, height.
    case center = 3
}

/// `tflite.CoordinateType`.
public enum CoordinateType: Int8, Sendable, Equatable {
    /// Coordinates in 0...1.
    case ratio = 0
    /// Coordinates in pixels.
    case pixel = 1
}

public struct BoundingBoxProperties: Sendable, Equatable {
    /// Where each element of the box type's default order is stored (e.g. `[1, 0, 3, 2]`: the
    /// tensor holds top, left, bottom, right for BOUNDARIES). Empty = default order.
    public var index: [Int]
    public var type: BoundingBoxType
    public var coordinateType: CoordinateType
    public init(index: [Int], type: BoundingBoxType, coordinateType: CoordinateType) {
        self.index = index
        self.type = type
        self.coordinateType = coordinateType
    }
}

/// `(x - mean) / std`, per channel (one value applies to all channels).
public struct NormalizationOptions: Sendable, Equatable {
    public var mean: [Float]
    public var std: [Float]
    public init(mean: [Float], std: [Float]) {
        self.mean = mean
        self.std = std
    }
}

/// `tflite.ScoreTransformationType`: g(x) applied before sigmoid calibration.
public enum ScoreTransformationType: Int8, Sendable, Equatable {
    case identity = 0
    case log = 1
    case inverseLogistic = 2
}

public struct ScoreCalibrationOptions: Sendable, Equatable {
    public var transformation: ScoreTransformationType
    public var defaultScore: Float
    public init(transformation: ScoreTransformationType, defaultScore: Float) {
        self.transformation = transformation
        self.defaultScore = defaultScore
    }
}

/// An out-of-graph processing step (`tflite.ProcessUnit`).
public enum ProcessUnit: Sendable, Equatable {
    case normalization(NormalizationOptions)
    case scoreCalibration(ScoreCalibrationOptions)
    case scoreThresholding(globalScoreThreshold: Float)
    case bertTokenizer
    case sentencePieceTokenizer
    case regexTokenizer
    case other(unionType: UInt8)
}

/// `tflite.AssociatedFileType`.
public enum AssociatedFileType: Int8, Sendable, Equatable {
    case unknown = 0
    case descriptions = 1
    case tensorAxisLabels = 2
    case tensorValueLabels = 3
    case tensorAxisScoreCalibration = 4
    case vocabulary = 5
    case scannIndexFile = 6
}

/// A file the metadata refers to, packed in the model's appended ZIP archive.
public struct AssociatedFileInfo: Sendable, Equatable {
    public var name: String
    public var description: String?
    public var type: AssociatedFileType
    public var locale: String?
    public var version: String?
    public init(name: String, description: String? = nil, type: AssociatedFileType, locale: String? = nil, version: String? = nil) {
        self.name = name
        self.description = description
        self.type = type
        self.locale = locale
        self.version = version
    }
}
