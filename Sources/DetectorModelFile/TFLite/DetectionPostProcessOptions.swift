import DetectorZlib
/// The custom options of a `TFLite_Detection_PostProcess` operator (stored as a FlexBuffers map).
/// Absent keys take the values the TFLite kernel uses: 0, except `detections_per_class` = 100
/// and `use_regular_nms` = false.
///
/// ```swift
/// if let op = model.mainSubgraph.operators.first(where: { $0.code.customCode == DetectionPostProcessOptions.customCode }) {
///     let options = try DetectionPostProcessOptions(model: model, operator: op)
///     print(options.maxDetections, options.nmsIOUThreshold)
/// }
/// ```
package struct DetectionPostProcessOptions: Sendable, Equatable {
    package static let customCode = "TFLite_Detection_PostProcess"

    package var maxDetections: Int
    package var maxClassesPerDetection: Int
    package var detectionsPerClass: Int
    package var useRegularNMS: Bool
    package var nmsScoreThreshold: Float
    package var nmsIOUThreshold: Float
    package var numClasses: Int
    package var yScale: Float
    package var xScale: Float
    package var hScale: Float
    package var wScale: Float
    /// `_output_quantized` (informational; outputs are float in practice).
    package var outputQuantized: Bool

    package init(maxDetections: Int = 0, maxClassesPerDetection: Int = 0, detectionsPerClass: Int = 100,
                useRegularNMS: Bool = false, nmsScoreThreshold: Float = 0, nmsIOUThreshold: Float = 0,
                numClasses: Int = 0, yScale: Float = 0, xScale: Float = 0, hScale: Float = 0, wScale: Float = 0,
                outputQuantized: Bool = false) {
        self.maxDetections = maxDetections
        self.maxClassesPerDetection = maxClassesPerDetection
        self.detectionsPerClass = detectionsPerClass
        self.useRegularNMS = useRegularNMS
        self.nmsScoreThreshold = nmsScoreThreshold
        self.nmsIOUThreshold = nmsIOUThreshold
        self.numClasses = numClasses
        self.yScale = yScale
        self.xScale = xScale
        self.hScale = hScale
        self.wScale = wScale
        self.outputQuantized = outputQuantized
    }

    /// Reads the options from a decoded FlexBuffers map.
    package init(flex: FlexValue) throws {
        guard case .map = flex else {
            throw TFLiteModelError.invalidValue(what: "TFLite_Detection_PostProcess options", location: "custom options", reason: "are not a FlexBuffers map")
        }
        func int(_ key: String, _ fallback: Int) -> Int {
            guard let v = flex[key], !v.isNull, let i = v.intValue else { return fallback }
            return Int(clamping: i)
        }
        func float(_ key: String) -> Float {
            guard let v = flex[key]?.doubleValue else { return 0 }
            return Float(v)
        }
        self.init(maxDetections: int("max_detections", 0),
                  maxClassesPerDetection: int("max_classes_per_detection", 0),
                  detectionsPerClass: int("detections_per_class", 100),
                  useRegularNMS: flex["use_regular_nms"]?.boolValue ?? false,
                  nmsScoreThreshold: float("nms_score_threshold"),
                  nmsIOUThreshold: float("nms_iou_threshold"),
                  numClasses: int("num_classes", 0),
                  yScale: float("y_scale"), xScale: float("x_scale"),
                  hScale: float("h_scale"), wScale: float("w_scale"),
                  outputQuantized: flex["_output_quantized"]?.boolValue ?? false)
    }

    /// Reads the options of `op` (which must be a `TFLite_Detection_PostProcess` operator of `model`).
    package init(model: TFLiteModel, operator op: TFLiteOperator) throws {
        guard op.code.isCustom, op.code.customCode == Self.customCode else {
            throw TFLiteModelError.invalidValue(what: "operator \(op.index)", location: "custom options", reason: "is \(op.opName), not \(Self.customCode)")
        }
        let flex: FlexValue
        do {
            flex = try model.withExtendedLifetimeBytes(of: op) { try FlexBuffers.decode($0) }
        } catch let e as FlatBufferError {
            throw TFLiteModelError.malformed(location: "operator \(op.index) custom options", e)
        }
        try self.init(flex: flex)
    }
}

extension TFLiteModel {
    /// Calls `body` with the custom options bytes of `op` while keeping the model alive.
    func withExtendedLifetimeBytes<R>(of op: TFLiteOperator, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(customOptionsBytes(of: op)) }
    }
}
