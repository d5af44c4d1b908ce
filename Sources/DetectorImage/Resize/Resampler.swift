import DetectorZlib
import DetectorPlatform
/// The resamplers `ImageBuffer.resized(width:height:method:)` and the image→tensor step offer.
///
/// `.mediaPipe` and `.pillowBilinear` reproduce their reference bit for bit (tested against the
/// goldens' input hashes), so a model sees the same input tensor as with the runtime it was
/// validated with; `.bilinear` and `.area` follow their conventions in floating point:
///
/// | method | reproduces | sample grid | filter |
/// |---|---|---|---|
/// | `.bilinear` | TFLite's float reference `RESIZE_BILINEAR(half_pixel_centers=true)` formula (+0.5, truncate, as its uint8 template does); OpenCV `INTER_LINEAR` on float input differs by ±1 on ≤ 1.6 % of values | half-pixel centres | 2 x 2 taps, float weights |
/// | `.area` | OpenCV `INTER_AREA`'s idea (exact pixel coverage) for downscaling; OpenCV's uint8 code differs by ±1 on some values | pixel areas | box filter, exact coverage |
/// | `.mediaPipe` | MediaPipe's CPU image→tensor (OpenCV 4.11 `warpPerspective`, `INTER_LINEAR`) | corner-aligned, 1/32 pixel | 2 x 2 taps, fixed point |
/// | `.pillowBilinear` | Pillow 13 `Image.resize(size, BILINEAR)` | half-pixel centres | triangle widened by the downscale factor, fixed point |
/// The name this type had before 0.7; `Resampler` says what it is (the filter), apart from
/// `ResizeMode` (how the image is fitted to the tensor).
@available(*, deprecated, renamed: "Resampler")
public typealias ResizeMethod = Resampler

public enum Resampler: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Bilinear interpolation with half-pixel centres: output pixel `x` samples the source at
    /// `(x + 0.5) · in/out − 0.5`, clamped to the image; weights in `Float`, result rounded to nearest.
    case bilinear
    /// Area (box) filter: each output pixel is the average of the source area it covers, each
    /// source pixel weighted by its exact overlap. Meant for downscaling; when an axis is
    /// upscaled each output pixel mostly lies inside one source pixel (nearest-like).
    case area
    /// MediaPipe's resampler: corner-aligned sample positions (`x · in/out`, no half-pixel
    /// offset) rounded to 1/32 pixel, fixed-point bilinear weights, `(acc + 512) >> 10`,
    /// edge pixels repeated (stretch) or zero/fill outside the image (letterbox).
    case mediaPipe
    /// Pillow's antialiased `BILINEAR`: separable triangle filter with support scaled by the
    /// downscale factor, 22-bit fixed-point coefficients, two passes with a uint8 intermediate
    /// (vertical first when the height shrinks by more than twice the width's shrink, as Pillow 13 does).
    case pillowBilinear

    /// Parses the CLI names `bilinear`, `area`, `mediapipe`, `pillow` (case-insensitive).
    public init?(name: String) {
        switch name.lowercased() {
        case "bilinear", "half-pixel", "halfpixel": self = .bilinear
        case "area", "box": self = .area
        case "mediapipe", "media-pipe": self = .mediaPipe
        case "pillow", "pillowbilinear", "pil": self = .pillowBilinear
        default: return nil
        }
    }

    /// The CLI name.
    public var description: String {
        switch self {
        case .bilinear: return "bilinear"
        case .area: return "area"
        case .mediaPipe: return "mediapipe"
        case .pillowBilinear: return "pillow"
        }
    }
}

/// Why a resize or image→tensor conversion could not be done.
public enum ImageResizeError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidOutputSize(width: Int, height: Int)
    case outputTooLarge(width: Int, height: Int, limit: Int)
    case inconsistentBuffer(width: Int, height: Int, format: PixelFormat, byteCount: Int)
    case invalidRegion(ImageRect)

    public var description: String {
        switch self {
        case let .invalidRegion(r):
            return "region of interest \(r) is empty, not finite, or lies outside the image"
        case let .inconsistentBuffer(w, h, f, n):
            return "image buffer of \(w)x\(h) \(f) holds \(n) bytes, which does not match its size"
        case let .invalidOutputSize(w, h):
            return "resize target \(w)x\(h) is invalid: width and height must be at least 1"
        case let .outputTooLarge(w, h, limit):
            return "resize target \(w)x\(h) exceeds the limit of \(limit) pixels"
        }
    }
}

extension ImageBuffer {
    /// Resizes (stretches) the whole image to `width x height` with `method`.
    ///
    /// Input may be gray8, rgb8, rgba8 or rgba16. The output is gray8 for gray8 input and rgb8
    /// otherwise: alpha is dropped (not composited, as MediaPipe and the goldens do) and
    /// 16-bit samples are reduced to their high byte before resampling.
    ///
    /// ```swift
    /// let input = try photo.resized(width: 640, height: 640, method: .pillowBilinear)
    /// ```
    public func resized(width outWidth: Int, height outHeight: Int, method: Resampler,
                        maxPixels: Int = ImageLimits.defaultMaxPixels) throws -> ImageBuffer {
        try ResizeSupport.checkOutputSize(width: outWidth, height: outHeight, maxPixels: maxPixels)
        try ResizeSupport.checkConsistent(self)
        let src = PackedPixels(self)
        let out: [UInt8]
        switch method {
        case .bilinear:
            out = HalfPixelBilinear.resize(src, width: outWidth, height: outHeight)
        case .area:
            out = AreaResize.resize(src, width: outWidth, height: outHeight)
        case .mediaPipe:
            let grid = MediaPipeResampler.SampleGrid.stretch(sourceWidth: src.width, sourceHeight: src.height,
                                                              outputWidth: outWidth, outputHeight: outHeight)
            out = MediaPipeResampler.warp(src, grid: grid, border: .replicate)
        case .pillowBilinear:
            out = PillowBilinear.resize(src, width: outWidth, height: outHeight)
        }
        return ImageBuffer(uncheckedWidth: outWidth, height: outHeight,
                           format: src.channels == 1 ? .gray8 : .rgb8, pixels: out)
    }
}

enum ResizeSupport {
    /// `pixels` is a public `var`: make sure it still matches the declared size before any
    /// unchecked pointer arithmetic.
    static func checkConsistent(_ image: ImageBuffer) throws {
        guard image.width >= 1, image.height >= 1,
              image.pixels.count == image.width * image.height * image.format.bytesPerPixel else {
            throw ImageResizeError.inconsistentBuffer(width: image.width, height: image.height,
                                                      format: image.format, byteCount: image.pixels.count)
        }
    }

    static func checkOutputSize(width: Int, height: Int, maxPixels: Int) throws {
        guard width >= 1, height >= 1 else { throw ImageResizeError.invalidOutputSize(width: width, height: height) }
        let (n, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, n <= maxPixels else {
            throw ImageResizeError.outputTooLarge(width: width, height: height, limit: maxPixels)
        }
    }
}
