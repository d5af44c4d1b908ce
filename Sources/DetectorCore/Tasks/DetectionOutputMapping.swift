import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
/// The post-processing every detector family shares, after its decoder: boxes (and keypoints)
/// mapped from the model input to upright-image pixels through the input's transform
/// (stretch or letterbox), clamped to the image where the family's reference clamps, then
/// filtered — category allow/deny list, score threshold, max results — in MediaPipe's order.
///
/// Decoders give boxes in one of two conventions, each as its reference defines it:
/// - normalized to the input tensor (MediaPipe's SSD and raw-anchor graphs): the letterbox is
///   removed as `DetectionLetterboxRemovalCalculator` does, in `Float`, then the box is scaled
///   to pixels (SSD: origin and size truncated separately, as MediaPipe Tasks does);
/// - in input-tensor pixels (YOLO): ultralytics' `scale_boxes`, through the transform's
///   scale and offset in `Double`.
struct DetectionOutputMapping: Sendable, Equatable {
    enum BoxRounding: Sendable, Equatable {
        /// Pixels as `Double`.
        case none
        /// MediaPipe Tasks' SSD results: origin and size each truncated to integers and clamped.
        case mediaPipeTruncation
    }

    var boxRounding: BoxRounding
    /// Whether boxes are clipped to the image (ultralytics and MediaPipe's SSD output do; the
    /// face and palm graphs report boxes that reach outside the image as they are).
    var clampsToImage: Bool
    var filter: DetectionFilter

    /// Maps detections normalized to the input tensor into objects in upright-image pixels.
    func objects(fromNormalized detections: [Detection], transform: TensorToImageTransform,
                 labels: LabelMap) throws -> [DetectedObject] {
        let inImage = try LetterboxRemoval.apply(detections, padding: transform.padding)
        let width = Double(transform.imageWidth), height = Double(transform.imageHeight)
        let objects = inImage.map { d -> DetectedObject in
            let frame: ImageRect
            switch boxRounding {
            case .mediaPipeTruncation:
                let r = PixelRect(truncating: d.box, imageWidth: transform.imageWidth, imageHeight: transform.imageHeight)
                frame = ImageRect(x: Double(r.x), y: Double(r.y), width: Double(r.width), height: Double(r.height))
            case .none:
                let r = ImageRect(x: Double(d.box.xmin) * width, y: Double(d.box.ymin) * height,
                                  width: Double(d.box.width) * width, height: Double(d.box.height) * height)
                frame = clampsToImage ? DetectionOutputMapping.clamp(r, width: width, height: height) : r
            }
            return DetectedObject(frame: frame, category: DetectionOutputMapping.category(d.classIndex, score: d.score, labels: labels, label: d.label, displayName: d.displayName),
                                  keypoints: d.keypoints.map { ImagePoint(x: Double($0.x) * width, y: Double($0.y) * height) })
        }
        return filter.apply(objects, score: \.score, classIndex: \.category.index)
    }

    /// Maps YOLO detections in input-tensor pixels into objects in upright-image pixels.
    func objects(fromTensorPixels detections: [YoloDetection], transform: TensorToImageTransform,
                 labels: LabelMap) -> [DetectedObject] {
        let width = Double(transform.imageWidth), height = Double(transform.imageHeight)
        let objects = detections.map { y -> DetectedObject in
            let r = transform.imageRect(fromTensorPixel: ImageRect(x: y.x1, y: y.y1, width: y.x2 - y.x1, height: y.y2 - y.y1))
            return DetectedObject(frame: clampsToImage ? DetectionOutputMapping.clamp(r, width: width, height: height) : r,
                                  category: DetectionOutputMapping.category(y.classIndex, score: Float(y.score), labels: labels))
        }
        return filter.apply(objects, score: \.score, classIndex: \.category.index)
    }

    static func clamp(_ r: ImageRect, width: Double, height: Double) -> ImageRect {
        let x1 = min(max(r.minX, 0), width), y1 = min(max(r.minY, 0), height)
        let x2 = min(max(r.maxX, 0), width), y2 = min(max(r.maxY, 0), height)
        return ImageRect(x: x1, y: y1, width: x2 - x1, height: y2 - y1)
    }

    static func category(_ index: Int, score: Float, labels: LabelMap, label: String? = nil, displayName: String? = nil) -> Category {
        Category(text: label ?? labels.name(at: index) ?? "", index: index, confidence: score,
              displayName: displayName ?? labels.displayName(at: index))
    }
}
