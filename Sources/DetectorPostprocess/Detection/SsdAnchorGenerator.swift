import DetectorModelFile
import DetectorImage
import Foundation

/// One SSD anchor in normalized input coordinates (MediaPipe's `Anchor` proto).
public struct Anchor: Sendable, Equatable, Codable {
    public var xCenter: Float
    public var yCenter: Float
    public var width: Float
    public var height: Float

    public init(xCenter: Float, yCenter: Float, width: Float, height: Float) {
        self.xCenter = xCenter
        self.yCenter = yCenter
        self.width = width
        self.height = height
    }
}

/// The options of MediaPipe's `SsdAnchorsCalculator` (non-multiscale path), with the
/// proto's defaults. JSON keys are the camelCase field names; missing optional keys
/// take the defaults below.
public struct SsdAnchorOptions: Sendable, Equatable, Codable {
    /// Model input width in pixels (required).
    public var inputSizeWidth: Int
    /// Model input height in pixels (required).
    public var inputSizeHeight: Int
    /// Smallest anchor scale (required).
    public var minScale: Float
    /// Largest anchor scale (required).
    public var maxScale: Float
    /// Anchor centre offset within a cell, in cells (default 0.5).
    public var anchorOffsetX: Float
    public var anchorOffsetY: Float
    /// Number of output layers (required; must equal `strides.count` or the feature map count).
    public var numLayers: Int
    /// Explicit feature map sizes; when given, strides are ignored for sizes.
    public var featureMapWidth: [Int]
    public var featureMapHeight: [Int]
    /// Stride of each layer in pixels.
    public var strides: [Int]
    /// Aspect ratios of the anchors of each layer.
    public var aspectRatios: [Float]
    /// Use MediaPipe's fixed 3 boxes (ratios 1, 2, 0.5; scales 0.1, s, s) in layer 0.
    public var reduceBoxesInLowestLayer: Bool
    /// Aspect ratio of an extra anchor with a scale between this layer's and the next
    /// (1.0 for the last layer); 0 disables it. Default 1.0.
    public var interpolatedScaleAspectRatio: Float
    /// All anchors get width = height = 1 (the model predicts sizes in pixels).
    public var fixedAnchorSize: Bool

    public init(inputSizeWidth: Int, inputSizeHeight: Int, minScale: Float, maxScale: Float,
                anchorOffsetX: Float = 0.5, anchorOffsetY: Float = 0.5, numLayers: Int,
                featureMapWidth: [Int] = [], featureMapHeight: [Int] = [], strides: [Int] = [],
                aspectRatios: [Float] = [], reduceBoxesInLowestLayer: Bool = false,
                interpolatedScaleAspectRatio: Float = 1.0, fixedAnchorSize: Bool = false) {
        self.inputSizeWidth = inputSizeWidth
        self.inputSizeHeight = inputSizeHeight
        self.minScale = minScale
        self.maxScale = maxScale
        self.anchorOffsetX = anchorOffsetX
        self.anchorOffsetY = anchorOffsetY
        self.numLayers = numLayers
        self.featureMapWidth = featureMapWidth
        self.featureMapHeight = featureMapHeight
        self.strides = strides
        self.aspectRatios = aspectRatios
        self.reduceBoxesInLowestLayer = reduceBoxesInLowestLayer
        self.interpolatedScaleAspectRatio = interpolatedScaleAspectRatio
        self.fixedAnchorSize = fixedAnchorSize
    }

    enum CodingKeys: String, CodingKey {
        case inputSizeWidth, inputSizeHeight, minScale, maxScale, anchorOffsetX, anchorOffsetY
        case numLayers, featureMapWidth, featureMapHeight, strides, aspectRatios
        case reduceBoxesInLowestLayer, interpolatedScaleAspectRatio, fixedAnchorSize
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        inputSizeWidth = try c.decode(Int.self, forKey: .inputSizeWidth)
        inputSizeHeight = try c.decode(Int.self, forKey: .inputSizeHeight)
        minScale = try c.decode(Float.self, forKey: .minScale)
        maxScale = try c.decode(Float.self, forKey: .maxScale)
        anchorOffsetX = try c.decodeIfPresent(Float.self, forKey: .anchorOffsetX) ?? 0.5
        anchorOffsetY = try c.decodeIfPresent(Float.self, forKey: .anchorOffsetY) ?? 0.5
        numLayers = try c.decode(Int.self, forKey: .numLayers)
        featureMapWidth = try c.decodeIfPresent([Int].self, forKey: .featureMapWidth) ?? []
        featureMapHeight = try c.decodeIfPresent([Int].self, forKey: .featureMapHeight) ?? []
        strides = try c.decodeIfPresent([Int].self, forKey: .strides) ?? []
        aspectRatios = try c.decodeIfPresent([Float].self, forKey: .aspectRatios) ?? []
        reduceBoxesInLowestLayer = try c.decodeIfPresent(Bool.self, forKey: .reduceBoxesInLowestLayer) ?? false
        interpolatedScaleAspectRatio = try c.decodeIfPresent(Float.self, forKey: .interpolatedScaleAspectRatio) ?? 1.0
        fixedAnchorSize = try c.decodeIfPresent(Bool.self, forKey: .fixedAnchorSize) ?? false
    }
}

/// Generates SSD anchors exactly as MediaPipe's `SsdAnchorsCalculator` does.
///
/// Layers with equal consecutive strides are merged (their anchors interleave per
/// cell); each cell gets, per aspect ratio, an anchor of the layer's scale, plus an
/// optional interpolated-scale anchor; centres are `(x + offset) / featureMapWidth`
/// in `Float`. Scales follow `CalculateScale`: `(min + max) / 2` for a single stride,
/// else `min + (max − min) · i / (n − 1)` computed in double as MediaPipe does.
///
/// ```swift
/// let anchors = try SsdAnchorGenerator.generate(DetectorDecoderConfig.faceShortRange.anchors!)
/// anchors.count   // 896
/// ```
public enum SsdAnchorGenerator {
    /// The anchors for `options`, in MediaPipe's order.
    /// - Throws: `DetectionError.invalidOption` for inconsistent options,
    ///   `DetectionError.tooLarge` when more than `DetectionLimits.maxBoxes` anchors would result.
    public static func generate(_ options: SsdAnchorOptions) throws -> [Anchor] {
        let layers = options.numLayers
        guard layers > 0 else {
            throw DetectionError.invalidOption(name: "numLayers", reason: "must be at least 1, got \(layers)")
        }
        let useFeatureMaps = !options.featureMapHeight.isEmpty || !options.featureMapWidth.isEmpty
        if useFeatureMaps {
            guard options.featureMapHeight.count == layers, options.featureMapWidth.count == layers else {
                throw DetectionError.invalidOption(
                    name: "featureMapWidth/featureMapHeight",
                    reason: "need \(layers) entries each (numLayers), got \(options.featureMapWidth.count) and \(options.featureMapHeight.count)")
            }
        }
        // MediaPipe merges layers by comparing strides even when feature map sizes are
        // given (and loops forever without them), so one stride per layer is required.
        guard options.strides.count == layers else {
            throw DetectionError.invalidOption(name: "strides", reason: "need \(layers) entries (numLayers), got \(options.strides.count)")
        }
        if !useFeatureMaps {
            guard options.inputSizeWidth > 0, options.inputSizeHeight > 0 else {
                throw DetectionError.invalidOption(name: "inputSizeWidth/inputSizeHeight",
                                                   reason: "must be positive, got \(options.inputSizeWidth)x\(options.inputSizeHeight)")
            }
        }
        for s in options.strides where s <= 0 {
            throw DetectionError.invalidOption(name: "strides", reason: "every stride must be positive, got \(s)")
        }
        for v in options.featureMapWidth + options.featureMapHeight where v < 0 {
            throw DetectionError.invalidOption(name: "featureMapWidth/featureMapHeight", reason: "sizes must not be negative, got \(v)")
        }
        for r in options.aspectRatios where !(r > 0) || !r.isFinite {
            throw DetectionError.invalidOption(name: "aspectRatios", reason: "every aspect ratio must be positive and finite, got \(r)")
        }
        guard options.minScale.isFinite, options.maxScale.isFinite else {
            throw DetectionError.invalidOption(name: "minScale/maxScale", reason: "must be finite")
        }
        guard options.aspectRatios.count <= DetectionLimits.maxValuesPerBox,
              options.strides.count <= DetectionLimits.maxValuesPerBox else {
            throw DetectionError.tooLarge(what: "anchor aspect ratios or strides",
                                          count: max(options.aspectRatios.count, options.strides.count),
                                          limit: DetectionLimits.maxValuesPerBox)
        }

        // First pass: count anchors with checked arithmetic before allocating.
        let plan = try layerPlan(options, useFeatureMaps: useFeatureMaps)
        var total = 0
        for layer in plan {
            guard let cells = checkedProduct(layer.mapHeight, layer.mapWidth),
                  let n = checkedProduct(cells, layer.widths.count),
                  case let (t, o) = total.addingReportingOverflow(n), !o, t <= DetectionLimits.maxBoxes else {
                throw DetectionError.tooLarge(what: "the number of anchors", count: Int.max, limit: DetectionLimits.maxBoxes)
            }
            total = t
        }

        var anchors: [Anchor] = []
        anchors.reserveCapacity(total)
        for layer in plan {
            let fw = Float(layer.mapWidth), fh = Float(layer.mapHeight)
            for y in 0..<layer.mapHeight {
                for x in 0..<layer.mapWidth {
                    let xCenter = (Float(x) + options.anchorOffsetX) * 1.0 / fw
                    let yCenter = (Float(y) + options.anchorOffsetY) * 1.0 / fh
                    for k in 0..<layer.widths.count {
                        if options.fixedAnchorSize {
                            anchors.append(Anchor(xCenter: xCenter, yCenter: yCenter, width: 1, height: 1))
                        } else {
                            anchors.append(Anchor(xCenter: xCenter, yCenter: yCenter,
                                                  width: layer.widths[k], height: layer.heights[k]))
                        }
                    }
                }
            }
        }
        return anchors
    }

    struct LayerPlan {
        var mapWidth: Int
        var mapHeight: Int
        var widths: [Float]
        var heights: [Float]
    }

    /// MediaPipe's `CalculateScale`: the `* 1.0` promotes to double.
    package static func scale(min minScale: Float, max maxScale: Float, strideIndex: Int, numStrides: Int) -> Float {
        if numStrides == 1 { return (minScale + maxScale) * 0.5 }
        let span = Double(maxScale - minScale) * 1.0 * Double(strideIndex)
        return Float(Double(minScale) + span / Double(Float(numStrides) - 1.0))
    }

    static func layerPlan(_ o: SsdAnchorOptions, useFeatureMaps: Bool) throws -> [LayerPlan] {
        var plans: [LayerPlan] = []
        var layerID = 0
        let strideCount = o.strides.count
        while layerID < o.numLayers {
            var ratios: [Float] = []
            var scales: [Float] = []
            var last = layerID
            // Merge the following layers that have the same stride.
            repeat {
                let s = scale(min: o.minScale, max: o.maxScale, strideIndex: last, numStrides: strideCount)
                if last == 0 && o.reduceBoxesInLowestLayer {
                    ratios += [1.0, 2.0, 0.5]
                    scales += [0.1, s, s]
                } else {
                    for r in o.aspectRatios {
                        ratios.append(r)
                        scales.append(s)
                    }
                    if o.interpolatedScaleAspectRatio > 0 {
                        let next: Float = last == strideCount - 1
                            ? 1.0
                            : scale(min: o.minScale, max: o.maxScale, strideIndex: last + 1, numStrides: strideCount)
                        scales.append((s * next).squareRoot())
                        ratios.append(o.interpolatedScaleAspectRatio)
                    }
                }
                last += 1
            } while last < strideCount && o.strides[last] == o.strides[layerID]

            var widths: [Float] = [], heights: [Float] = []
            for (r, s) in zip(ratios, scales) {
                let root = r.squareRoot()
                heights.append(s / root)
                widths.append(s * root)
            }
            let mapW: Int, mapH: Int
            if useFeatureMaps {
                mapW = o.featureMapWidth[layerID]
                mapH = o.featureMapHeight[layerID]
                guard mapW <= DetectionLimits.maxBoxes, mapH <= DetectionLimits.maxBoxes else {
                    throw DetectionError.tooLarge(what: "a feature map side", count: max(mapW, mapH), limit: DetectionLimits.maxBoxes)
                }
            } else {
                let stride = Float(o.strides[layerID])
                let h = (1.0 * Float(o.inputSizeHeight) / stride).rounded(.up)
                let w = (1.0 * Float(o.inputSizeWidth) / stride).rounded(.up)
                guard h < Float(DetectionLimits.maxBoxes), w < Float(DetectionLimits.maxBoxes) else {
                    throw DetectionError.tooLarge(what: "a feature map side", count: Int.max, limit: DetectionLimits.maxBoxes)
                }
                mapH = Int(h)
                mapW = Int(w)
            }
            plans.append(LayerPlan(mapWidth: mapW, mapHeight: mapH, widths: widths, heights: heights))
            layerID = last
        }
        return plans
    }
}
