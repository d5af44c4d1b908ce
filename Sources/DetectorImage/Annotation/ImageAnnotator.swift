import DetectorZlib
import DetectorPlatform
/// One thing to draw: a box with a label, its colour (by class) and keypoints, in image pixels.
public struct ImageAnnotation: Sendable, Equatable {
    public var rect: ImageRect
    /// Text of the label box ("cat 0.91"); empty for none.
    public var label: String
    /// Picks the colour from `RGBColor.forClass` unless `color` is set.
    public var classIndex: Int
    public var color: RGBColor?
    public var keypoints: [ImagePoint]

    public init(rect: ImageRect, label: String = "", classIndex: Int = 0, color: RGBColor? = nil,
                keypoints: [ImagePoint] = []) {
        self.rect = rect
        self.label = label
        self.classIndex = classIndex
        self.color = color
        self.keypoints = keypoints
    }
}

/// Sizes used by `ImageAnnotator`; nil picks a size from the image (readable on small and large photos).
public struct AnnotationStyle: Sendable, Equatable {
    public var lineThickness: Int?
    public var textScale: Int?
    public var keypointRadius: Int?

    public init(lineThickness: Int? = nil, textScale: Int? = nil, keypointRadius: Int? = nil) {
        self.lineThickness = lineThickness
        self.textScale = textScale
        self.keypointRadius = keypointRadius
    }
}

/// Draws detection results onto a copy of an image: box outlines in a per-class colour and
/// keypoints as dots, then a filled label tag per box with its text in black or white. Tags are
/// drawn after every box and keypoint, so no outline crosses one, and are placed so each is whole:
/// inside the image (above the box, or inside / below it when there is no room above; moved left
/// at the right edge) and clear of the other tags (moved to a free row when its place is taken;
/// `LabelPlacement` has the exact rule). A label wider than the image is shortened to fit, ending
/// in "..". Boxes are drawn in order, so the last one is on top; tags are placed from the last
/// annotation to the first, so the last one gets the place it prefers.
///
/// ```swift
/// let picture = ImageAnnotator.draw([ImageAnnotation(rect: box, label: "dog 0.87", classIndex: 17)], on: image)
/// let png = try PNGEncoder.encode(picture, compression: .fast)
/// ```
public enum ImageAnnotator {
    public static func draw(_ annotations: [ImageAnnotation], on image: ImageBuffer,
                            style: AnnotationStyle = AnnotationStyle()) -> ImageBuffer {
        var canvas = ImageCanvas(image)
        let side = min(canvas.width, canvas.height)
        let thickness = max(style.lineThickness ?? max(1, side / 300), 1)
        let scale = min(max(style.textScale ?? max(1, (side + 200) / 400), 1), 100)
        let radius = max(style.keypointRadius ?? (thickness + 1), 0)
        var boxes: [(x0: Int, y0: Int, y1: Int, label: String, color: RGBColor)] = []
        for a in annotations {
            let color = a.color ?? RGBColor.forClass(a.classIndex)
            guard let x0 = pixel(a.rect.minX), let y0 = pixel(a.rect.minY),
                  let x1 = pixel(a.rect.maxX), let y1 = pixel(a.rect.maxY) else { continue }
            canvas.strokeRect(x: x0, y: y0, width: max(x1 - x0, 1), height: max(y1 - y0, 1),
                              thickness: thickness, color: color)
            for p in a.keypoints {
                guard let px = pixel(p.x - 0.5), let py = pixel(p.y - 0.5) else { continue }
                canvas.fillCircle(centerX: px, centerY: py, radius: radius, color: color)
            }
            if !a.label.isEmpty { boxes.append((x0, y0, y1, a.label, color)) }
        }
        let pad = scale
        var placement = LabelPlacement(imageWidth: canvas.width, imageHeight: canvas.height,
                                       tagHeight: BitmapFont.glyphHeight * scale + 2 * pad)
        for box in boxes.reversed() {
            let text = fitted(box.label, width: canvas.width - 2 * pad, scale: scale)
            let tag = placement.place(width: BitmapFont.size(of: text, scale: scale).width + 2 * pad,
                                      boxMinX: box.x0, boxMinY: box.y0, boxMaxY: box.y1)
            canvas.fillRect(x: tag.x, y: tag.y, width: tag.width, height: tag.height, color: box.color)
            canvas.drawText(text, x: tag.x + pad, y: tag.y + pad, scale: scale, color: box.color.contrastingText)
        }
        return canvas.image
    }

    /// `text`, or as many of its first characters as fit in `width` pixels followed by "..".
    static func fitted(_ text: String, width: Int, scale: Int) -> String {
        if BitmapFont.size(of: text, scale: scale).width <= width { return text }
        let fits = max((width / scale + 1) / BitmapFont.advance, 0)   // (n·advance − 1)·scale ≤ width
        return fits <= 2 ? String(text.prefix(fits)) : String(text.prefix(fits - 2)) + ".."
    }

    /// Rounds a coordinate to an integer pixel; nil for NaN or values beyond ±1e9 (never drawable).
    package static func pixel(_ v: Double) -> Int? {
        guard v.isFinite, abs(v) < 1e9 else { return nil }
        return Int(v.rounded())
    }
}
