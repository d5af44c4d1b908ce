import DetectorZlib
import DetectorPlatform
/// Pixel format conversion and cropping.
///
/// Conversion rules:
/// - gray → RGB/RGBA: the gray value is replicated into R, G and B; alpha is opaque.
/// - RGB/RGBA → gray: BT.601 luma, `(299 R + 587 G + 114 B + 500) / 1000`.
/// - RGBA → RGB or gray: **alpha is dropped** (the colour samples are kept as stored, not
///   composited over any background). Composite first yourself if transparent areas matter.
/// - 8-bit → RGBA16: `v * 257` (bit replication, so 255 → 65535); RGBA16 → 8-bit: the high byte.
extension ImageBuffer {
    /// Wraps pixels whose count is already known to match (internal, no checks beyond debug).
    package init(uncheckedWidth width: Int, height: Int, format: PixelFormat, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.format = format
        self.pixels = pixels
    }

    /// The image in another pixel format (see the rules above). Returns `self` when the format already matches.
    ///
    /// ```swift
    /// let rgba = decoded.image.converted(to: .rgba8)    // canonical RGBA8
    /// ```
    public func converted(to target: PixelFormat) -> ImageBuffer {
        if target == format { return self }
        let n = width * height
        let src = pixels
        var out = [UInt8](repeating: 0, count: n * target.bytesPerPixel)
        let wide = target == .rgba16 && format != .rgba16 ? converted(to: .rgba8).pixels : []
        src.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { o in
                ImageBuffer.convert(s, o, n, format, target, wide)
            }
        }
        return ImageBuffer(uncheckedWidth: width, height: height, format: target, pixels: out)
    }


    private static func convert(_ s: UnsafeBufferPointer<UInt8>, _ o: UnsafeMutableBufferPointer<UInt8>, _ n: Int,
                                _ format: PixelFormat, _ target: PixelFormat, _ wide: [UInt8]) {
        switch (format, target) {
        case (.gray8, .rgb8):
            for p in 0..<n { let g = s[p]; o[3 * p] = g; o[3 * p + 1] = g; o[3 * p + 2] = g }
        case (.gray8, .rgba8):
            for p in 0..<n { let g = s[p]; o[4 * p] = g; o[4 * p + 1] = g; o[4 * p + 2] = g; o[4 * p + 3] = 255 }
        case (.rgb8, .rgba8):
            for p in 0..<n { o[4 * p] = s[3 * p]; o[4 * p + 1] = s[3 * p + 1]; o[4 * p + 2] = s[3 * p + 2]; o[4 * p + 3] = 255 }
        case (.rgba8, .rgb8):
            for p in 0..<n { o[3 * p] = s[4 * p]; o[3 * p + 1] = s[4 * p + 1]; o[3 * p + 2] = s[4 * p + 2] }
        case (.rgb8, .gray8):
            for p in 0..<n { o[p] = ImageBuffer.luma(s[3 * p], s[3 * p + 1], s[3 * p + 2]) }
        case (.rgba8, .gray8):
            for p in 0..<n { o[p] = ImageBuffer.luma(s[4 * p], s[4 * p + 1], s[4 * p + 2]) }
        case (.rgba16, .rgba8):
            for k in 0..<(n * 4) { o[k] = s[2 * k] }
        case (.rgba16, .rgb8):
            for p in 0..<n { o[3 * p] = s[8 * p]; o[3 * p + 1] = s[8 * p + 2]; o[3 * p + 2] = s[8 * p + 4] }
        case (.rgba16, .gray8):
            for p in 0..<n { o[p] = ImageBuffer.luma(s[8 * p], s[8 * p + 2], s[8 * p + 4]) }
        case (_, .rgba16):
            // Via RGBA8 (`wide`), then each byte v becomes the 16-bit v * 257 (bytes v, v).
            for k in 0..<(n * 4) { o[2 * k] = wide[k]; o[2 * k + 1] = wide[k] }
        default:
            break  // every pair is covered above; same-format returned early
        }
    }

    @inline(__always)
    static func luma(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let weighted: Int = 299 * Int(r) + 587 * Int(g) + 114 * Int(b)
        return UInt8((weighted + 500) / 1000)
    }

    /// A copy of the rectangle `x..<x+width`, `y..<y+height`, which must lie inside the image.
    ///
    /// ```swift
    /// let face = try image.cropped(x: 10, y: 20, width: 64, height: 64)
    /// ```
    public func cropped(x: Int, y: Int, width cropWidth: Int, height cropHeight: Int) throws -> ImageBuffer {
        guard x >= 0, y >= 0, cropWidth >= 1, cropHeight >= 1,
              x <= width - cropWidth, y <= height - cropHeight else {
            throw ImageBufferError.invalidRegion(x: x, y: y, width: cropWidth, height: cropHeight)
        }
        let bpp = format.bytesPerPixel
        let rowBytes = cropWidth * bpp
        var out = [UInt8](repeating: 0, count: rowBytes * cropHeight)
        pixels.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { o in
                guard let sBase = s.baseAddress, let oBase = o.baseAddress else { return }
                for row in 0..<cropHeight {
                    (oBase + row * rowBytes).update(from: sBase + ((y + row) * width + x) * bpp, count: rowBytes)
                }
            }
        }
        return ImageBuffer(uncheckedWidth: cropWidth, height: cropHeight, format: format, pixels: out)
    }
}
