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

/// Draws detection results onto a copy of an image: box outlines in a per-class colour, a filled
/// label box above each box (inside it when there is no room above, always inside the image)
/// with the label text in black or white, and keypoints as dots. Annotations are drawn in order,
/// so the last one is on top.
///
/// ```swift
/// let picture = ImageAnnotator.draw([ImageAnnotation(rect: box, label: "dog 0.87", classIndex: 17)], on: image)
/// let png = try PNGEncoder.encode(picture)
/// ```
public enum ImageAnnotator {
    public static func draw(_ annotations: [ImageAnnotation], on image: ImageBuffer,
                            style: AnnotationStyle = AnnotationStyle()) -> ImageBuffer {
        var canvas = ImageCanvas(image)
        let side = min(canvas.width, canvas.height)
        let thickness = max(style.lineThickness ?? max(1, side / 300), 1)
        let scale = max(style.textScale ?? max(1, (side + 200) / 400), 1)
        let radius = max(style.keypointRadius ?? (thickness + 1), 0)
        for a in annotations {
            let color = a.color ?? RGBColor.forClass(a.classIndex)
            guard let x0 = pixel(a.rect.minX), let y0 = pixel(a.rect.minY),
                  let x1 = pixel(a.rect.maxX), let y1 = pixel(a.rect.maxY) else { continue }
            canvas.strokeRect(x: x0, y: y0, width: max(x1 - x0, 1), height: max(y1 - y0, 1),
                              thickness: thickness, color: color)
            if !a.label.isEmpty {
                let pad = scale
                let text = BitmapFont.size(of: a.label, scale: scale)
                let boxW = text.width + 2 * pad, boxH = text.height + 2 * pad
                // Above the box if it fits, else inside its top edge; kept inside the image both ways.
                let top = max(min(y0 - boxH >= 0 ? y0 - boxH : y0, canvas.height - boxH), 0)
                let left = max(min(x0, canvas.width - boxW), 0)
                canvas.fillRect(x: left, y: top, width: boxW, height: boxH, color: color)
                canvas.drawText(a.label, x: left + pad, y: top + pad, scale: scale, color: color.contrastingText)
            }
            for p in a.keypoints {
                guard let px = pixel(p.x - 0.5), let py = pixel(p.y - 0.5) else { continue }
                canvas.fillCircle(centerX: px, centerY: py, radius: radius, color: color)
            }
        }
        return canvas.image
    }

    /// Rounds a coordinate to an integer pixel; nil for NaN or values beyond ±1e9 (never drawable).
    static func pixel(_ v: Double) -> Int? {
        guard v.isFinite, abs(v) < 1e9 else { return nil }
        return Int(v.rounded())
    }
}
