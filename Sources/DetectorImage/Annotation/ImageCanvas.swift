import DetectorZlib
import DetectorPlatform
/// An 8-bit RGB colour.
public struct RGBColor: Sendable, Equatable, Hashable {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8

    public init(r: UInt8, g: UInt8, b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }

    public static let black = RGBColor(r: 0, g: 0, b: 0)
    public static let white = RGBColor(r: 255, g: 255, b: 255)

    /// A distinct, saturated colour per class index (a fixed 20-colour palette, repeating every
    /// 20). Neighbouring indices (cat 15 and dog 16 in COCO) are 7 palette steps apart, so
    /// consecutive classes differ by at least 269 in summed |ΔR|+|ΔG|+|ΔB| (1 step: as little as 68).
    public static func forClass(_ index: Int) -> RGBColor {
        let palette = RGBColor.palette
        let i = index % palette.count
        return palette[((i < 0 ? i + palette.count : i) * 7) % palette.count]
    }

    /// Black or white, whichever reads better on this colour (BT.601 luma threshold).
    public var contrastingText: RGBColor {
        let luma = 299 * Int(r) + 587 * Int(g) + 114 * Int(b)
        return luma > 150_000 ? .black : .white
    }

    static let palette: [RGBColor] = [
        RGBColor(r: 255, g: 56, b: 56), RGBColor(r: 255, g: 157, b: 151), RGBColor(r: 255, g: 112, b: 31),
        RGBColor(r: 255, g: 178, b: 29), RGBColor(r: 207, g: 210, b: 49), RGBColor(r: 72, g: 249, b: 10),
        RGBColor(r: 146, g: 204, b: 23), RGBColor(r: 61, g: 219, b: 134), RGBColor(r: 26, g: 147, b: 52),
        RGBColor(r: 0, g: 212, b: 187), RGBColor(r: 44, g: 153, b: 168), RGBColor(r: 0, g: 194, b: 255),
        RGBColor(r: 52, g: 69, b: 147), RGBColor(r: 100, g: 115, b: 255), RGBColor(r: 0, g: 24, b: 236),
        RGBColor(r: 132, g: 56, b: 255), RGBColor(r: 82, g: 0, b: 133), RGBColor(r: 203, g: 56, b: 255),
        RGBColor(r: 255, g: 149, b: 200), RGBColor(r: 255, g: 55, b: 199),
    ]
}

/// A drawing surface over an rgb8 or rgba8 image. Every operation is clipped to the image:
/// coordinates may be negative or far outside (any `Int`), nothing is written out of bounds.
/// Drawn pixels of an rgba8 image become opaque.
///
/// ```swift
/// var canvas = ImageCanvas(image)
/// canvas.strokeRect(x: 10, y: 10, width: 100, height: 50, thickness: 2, color: .forClass(0))
/// canvas.drawText("cat 0.91", x: 12, y: 12, scale: 2, color: .white)
/// let out = canvas.image
/// ```
public struct ImageCanvas: Sendable {
    /// The image drawn on (rgb8 or rgba8).
    public private(set) var image: ImageBuffer

    /// Wraps `image`; gray8 and rgba16 images are converted to rgb8 / rgba8 first.
    public init(_ image: ImageBuffer) {
        switch image.format {
        case .rgb8, .rgba8: self.image = image
        case .gray8: self.image = image.converted(to: .rgb8)
        case .rgba16: self.image = image.converted(to: .rgba8)
        }
    }

    public var width: Int { image.width }
    public var height: Int { image.height }

    /// The half-open index range `start ..< start + length` clipped to `0 ..< limit`, or nil if empty.
    /// Overflow-safe for any `Int` inputs.
    package static func clip(_ start: Int, _ length: Int, _ limit: Int) -> Range<Int>? {
        guard length > 0, limit > 0 else { return nil }
        let (end, overflow) = start.addingReportingOverflow(length)
        let hi = overflow ? limit : min(end, limit)
        let lo = max(start, 0)
        return lo < hi ? lo..<hi : nil
    }

    /// Fills the rectangle `x ..< x + width`, `y ..< y + height`.
    public mutating func fillRect(x: Int, y: Int, width w: Int, height h: Int, color: RGBColor) {
        guard let xs = ImageCanvas.clip(x, w, width), let ys = ImageCanvas.clip(y, h, height) else { return }
        let bpp = image.format.bytesPerPixel
        // `pixels` is a public var: never write past a buffer that no longer matches its size.
        guard image.pixels.count >= width * height * bpp else { return }
        let rowBytes = image.width * bpp
        let alpha = bpp == 4
        image.pixels.withUnsafeMutableBufferPointer { p in
            for yy in ys {
                var o = yy * rowBytes + xs.lowerBound * bpp
                for _ in xs {
                    p[o] = color.r; p[o + 1] = color.g; p[o + 2] = color.b
                    if alpha { p[o + 3] = 255 }
                    o += bpp
                }
            }
        }
    }

    /// Sets one pixel if it lies inside the image.
    public mutating func setPixel(x: Int, y: Int, color: RGBColor) {
        fillRect(x: x, y: y, width: 1, height: 1, color: color)
    }

    /// Outlines the rectangle with lines `thickness` pixels wide, drawn inside its edges
    /// (a thickness larger than half the rectangle fills it).
    public mutating func strokeRect(x: Int, y: Int, width w: Int, height h: Int, thickness: Int, color: RGBColor) {
        guard w > 0, h > 0, thickness > 0 else { return }
        let t = min(thickness, w, h)
        fillRect(x: x, y: y, width: w, height: t, color: color)                                   // top
        let (bottom, o1) = y.addingReportingOverflow(h - t)
        if !o1 { fillRect(x: x, y: bottom, width: w, height: t, color: color) }                 // bottom
        fillRect(x: x, y: y, width: t, height: h, color: color)                                   // left
        let (right, o2) = x.addingReportingOverflow(w - t)
        if !o2 { fillRect(x: right, y: y, width: t, height: h, color: color) }                  // right
    }

    /// Fills a disc of `radius` pixels around (`centerX`, `centerY`) (radius 0 = one pixel).
    public mutating func fillCircle(centerX cx: Int, centerY cy: Int, radius: Int, color: RGBColor) {
        guard radius >= 0, radius <= 10_000 else { return }
        let r2 = radius * radius + radius   // a slightly rounder disc than r² for small radii
        for dy in -radius...radius {
            let (y, o) = cy.addingReportingOverflow(dy)
            guard !o, y >= 0, y < height else { continue }
            var half = 0
            while (half + 1) * (half + 1) + dy * dy <= r2 { half += 1 }
            let (x0, o2) = cx.subtractingReportingOverflow(half)
            guard !o2 else { continue }
            fillRect(x: x0, y: y, width: 2 * half + 1, height: 1, color: color)
        }
    }

    /// Draws `text` with the built-in `BitmapFont` (5 × 9 cells), top-left corner at (`x`, `y`), each font pixel
    /// a `scale x scale` block. Only the glyph pixels are drawn (no background).
    public mutating func drawText(_ text: String, x: Int, y: Int, scale: Int = 1, color: RGBColor) {
        let s = min(max(scale, 1), 100)
        var penX = x
        for ch in text {
            let rows = BitmapFont.glyph(ch)
            for (ry, bits) in rows.enumerated() where bits != 0 {
                for cx in 0..<BitmapFont.glyphWidth where bits & (0x10 >> UInt8(cx)) != 0 {
                    let (px, o1) = penX.addingReportingOverflow(cx * s)
                    let (py, o2) = y.addingReportingOverflow(ry * s)
                    if !o1 && !o2 { fillRect(x: px, y: py, width: s, height: s, color: color) }
                }
            }
            let (next, o) = penX.addingReportingOverflow(BitmapFont.advance * s)
            if o { return }
            penX = next
        }
    }
}
