import DetectorZlib
import DetectorPlatform
extension ImageBuffer {
    /// Renders the upright picture of a raw buffer stored with `orientation` (EXIF semantics:
    /// orientation 6 / `.right` turns the stored pixels 90° clockwise).
    ///
    /// Works for every pixel format (pixels are moved, never resampled). The result is
    /// `height x width` for the four orientations that swap axes. To go back from an upright
    /// picture to the raw buffer, apply `orientation.inverse`.
    ///
    /// ```swift
    /// let upright = raw.applyingOrientation(.right)
    /// let back = upright.applyingOrientation(ImageOrientation.right.inverse)   // == raw
    /// ```
    public func applyingOrientation(_ orientation: ImageOrientation) -> ImageBuffer {
        // `pixels` is a public var; a buffer whose byte count no longer matches is returned as is.
        if orientation == .up || pixels.count != width * height * format.bytesPerPixel { return self }
        let map = OrientationMapping(rawWidth: width, rawHeight: height, orientation: orientation)
        let size = map.uprightSize
        let bpp = format.bytesPerPixel
        // Source position of upright (0, 0) and the source steps (in pixels) per upright x and y.
        let origin = map.rawPixel(fromUprightX: 0, y: 0)
        let m = orientation.matrix
        // raw = Mᵀ · upright: d(raw x)/d(ux) = a, d(raw y)/d(ux) = b, d(raw x)/d(uy) = c, d(raw y)/d(uy) = d.
        let stepX = (m.a + m.b * width) * bpp
        let stepY = (m.c + m.d * width) * bpp
        let start = (origin.y * width + origin.x) * bpp
        var out = [UInt8](repeating: 0, count: pixels.count)
        let outWidth = size.width, outHeight = size.height
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                var o = 0
                for uy in 0..<outHeight {
                    var p = start + uy * stepY
                    switch bpp {
                    case 1:
                        for _ in 0..<outWidth { d[o] = s[p]; o += 1; p += stepX }
                    case 3:
                        for _ in 0..<outWidth {
                            d[o] = s[p]; d[o + 1] = s[p + 1]; d[o + 2] = s[p + 2]
                            o += 3; p += stepX
                        }
                    case 4:
                        let s32 = UnsafeRawPointer(s), d32 = UnsafeMutableRawPointer(d)
                        for _ in 0..<outWidth {
                            d32.storeBytes(of: s32.loadUnaligned(fromByteOffset: p, as: UInt32.self),
                                           toByteOffset: o, as: UInt32.self)
                            o += 4; p += stepX
                        }
                    default:
                        for _ in 0..<outWidth {
                            for k in 0..<bpp { d[o + k] = s[p + k] }
                            o += bpp; p += stepX
                        }
                    }
                }
            }
        }
        // Same byte count and a legal size (the dimensions are only exchanged), so this cannot fail.
        return ImageBuffer(uncheckedWidth: outWidth, height: outHeight, format: format, pixels: out)
    }
}
