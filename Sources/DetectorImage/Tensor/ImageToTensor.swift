import DetectorZlib
import DetectorPlatform
/// The values of a converted input tensor (NHWC, batch 1, `height x width x channels`).
public enum TensorValues: Sendable, Equatable {
    case float32([Float])
    case uint8([UInt8])
    case int8([Int8])

    /// Number of elements.
    public var count: Int {
        switch self {
        case let .float32(v): return v.count
        case let .uint8(v): return v.count
        case let .int8(v): return v.count
        }
    }
}

/// The result of `ImageToTensor.convert`: tensor values, the resized picture they came from,
/// and the transform back to image coordinates.
public struct ImageTensor: Sendable {
    public var values: TensorValues
    public var width: Int
    public var height: Int
    /// Always 3 (RGB).
    public var channels: Int
    /// The rgb8 picture at tensor size, before the element conversion (its SHA-256 is what the
    /// goldens call `input_rgb_sha256` / `input_sha256`).
    public var resized: ImageBuffer
    /// Tensor coordinates → original image coordinates.
    public var transform: TensorToImageTransform
}

/// Turns an image into a model's input tensor: fit (stretch or letterbox), resample, convert.
///
/// Input may be gray8 (replicated to R = G = B), rgb8, rgba8 (alpha dropped) or rgba16 (high
/// byte). The tensor is always 3-channel RGB.
///
/// ```swift
/// let options = ImageToTensorOptions(width: 640, height: 640, resampler: .pillowBilinear,
///                                    inputType: .float32(.meanStd(mean: [0], std: [255])))
/// let tensor = try ImageToTensor.convert(image, options: options)
/// let box = tensor.transform.imageRect(fromNormalized: ImageRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4))
/// ```
public enum ImageToTensor {
    public static func convert(_ image: ImageBuffer, options: ImageToTensorOptions) throws -> ImageTensor {
        let (resized, transform) = try fit(image, options: options)
        let values = convertValues(resized, inputType: options.inputType, channelOrder: options.channelOrder)
        return ImageTensor(values: values, width: options.width, height: options.height, channels: 3,
                           resized: resized, transform: transform)
    }

    /// Converts a raw buffer stored with `orientation`: the upright picture is rendered first,
    /// so the tensor is upright and `transform` maps to **upright** image coordinates (use
    /// `OrientationMapping(rawWidth:rawHeight:orientation:)` to go on to raw-buffer coordinates).
    /// A `region` in the options is in upright coordinates too.
    public static func convert(_ image: ImageBuffer, orientation: ImageOrientation,
                               options: ImageToTensorOptions) throws -> ImageTensor {
        try convert(image.applyingOrientation(orientation), options: options)
    }

    /// The fitting step alone: the rgb8 picture at tensor size and its transform.
    public static func fit(_ image: ImageBuffer, options: ImageToTensorOptions) throws -> (ImageBuffer, TensorToImageTransform) {
        let n = options.width, m = options.height
        try ResizeSupport.checkOutputSize(width: n, height: m, maxPixels: ImageLimits.defaultMaxPixels)
        try ResizeSupport.checkConsistent(image)
        let rgb = image.format == .rgb8 ? image : image.converted(to: .rgb8)
        let W = rgb.width, H = rgb.height
        let region = options.region ?? ImageRect(x: 0, y: 0, width: Double(W), height: Double(H))
        guard region.x.isFinite, region.y.isFinite, region.width.isFinite, region.height.isFinite,
              region.width > 0, region.height > 0,
              region.maxX > 0, region.maxY > 0, region.minX < Double(W), region.minY < Double(H) else {
            throw ImageResizeError.invalidRegion(region)
        }
        if options.resampler == .mediaPipe && options.resizeMode != .letterboxTopLeft {
            // MediaPipe samples the region directly (sub-pixel position, no crop).
            switch options.resizeMode {
            case .stretch:
                let grid = MediaPipeResampler.SampleGrid(outputWidth: n, outputHeight: m,
                                                         scaleX: region.width / Double(n), scaleY: region.height / Double(m),
                                                         offsetX: region.x, offsetY: region.y)
                let out = MediaPipeResampler.warp(PackedPixels(rgb), grid: grid, border: .replicate)
                let t = TensorToImageTransform(imageWidth: W, imageHeight: H, tensorWidth: n, tensorHeight: m,
                                               scaleX: grid.scaleX, scaleY: grid.scaleY,
                                               offsetX: grid.offsetX, offsetY: grid.offsetY, padding: .zero)
                return (ImageBuffer(uncheckedWidth: n, height: m, format: .rgb8, pixels: out), t)
            case .letterbox, .letterboxTopLeft:
                return mediaPipeLetterbox(rgb, region: region, width: n, height: m, fill: options.letterboxFill)
            }
        }
        // Other resamplers work on whole pixels: crop the covering pixel rectangle first.
        var source = rgb
        var originX = 0, originY = 0
        if options.region != nil {
            let x0 = max(Int(region.minX.rounded(.down)), 0), y0 = max(Int(region.minY.rounded(.down)), 0)
            let x1 = min(Int(min(region.maxX, Double(W)).rounded(.up)), W)
            let y1 = min(Int(min(region.maxY, Double(H)).rounded(.up)), H)
            guard x1 > x0, y1 > y0 else { throw ImageResizeError.invalidRegion(region) }
            if x0 != 0 || y0 != 0 || x1 != W || y1 != H {
                source = try rgb.cropped(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            }
            originX = x0
            originY = y0
        }
        let (out, t): (ImageBuffer, TensorToImageTransform)
        switch options.resizeMode {
        case .stretch:
            let resized = try source.resized(width: n, height: m, method: options.resampler)
            out = resized
            t = TensorToImageTransform(imageWidth: source.width, imageHeight: source.height, tensorWidth: n, tensorHeight: m,
                                       scaleX: Double(source.width) / Double(n), scaleY: Double(source.height) / Double(m),
                                       offsetX: 0, offsetY: 0, padding: .zero)
        case .letterbox:
            (out, t) = try pasteLetterbox(source, width: n, height: m, fill: options.letterboxFill, method: options.resampler)
        case .letterboxTopLeft:
            (out, t) = try pasteLetterboxTopLeft(source, width: n, height: m, fill: options.letterboxFill, method: options.resampler)
        }
        // Back to the coordinates of the whole image.
        let whole = TensorToImageTransform(imageWidth: W, imageHeight: H, tensorWidth: n, tensorHeight: m,
                                           scaleX: t.scaleX, scaleY: t.scaleY,
                                           offsetX: t.offsetX + Double(originX), offsetY: t.offsetY + Double(originY),
                                           padding: t.padding)
        return (out, whole)
    }

    /// MediaPipe's letterbox: the region of interest is grown (about its centre) to the tensor's
    /// aspect ratio, and the warp samples it directly; outside the image the fill value is read.
    static func mediaPipeLetterbox(_ rgb: ImageBuffer, region: ImageRect, width n: Int, height m: Int,
                                   fill: UInt8) -> (ImageBuffer, TensorToImageTransform) {
        let W = rgb.width, H = rgb.height
        // MediaPipe computes the padding in float32.
        let tensorAspect = Float(m) / Float(n)
        let roiAspect = Float(region.height) / Float(region.width)
        var roiW = region.width, roiH = region.height
        var hPad: Float = 0, vPad: Float = 0
        if tensorAspect > roiAspect {
            roiH = region.width * Double(m) / Double(n)
            vPad = (1 - roiAspect / tensorAspect) / 2
        } else {
            roiW = region.height * Double(n) / Double(m)
            hPad = (1 - tensorAspect / roiAspect) / 2
        }
        let cx = region.x + region.width / 2, cy = region.y + region.height / 2
        let grid = MediaPipeResampler.SampleGrid(outputWidth: n, outputHeight: m,
                                                 scaleX: roiW / Double(n), scaleY: roiH / Double(m),
                                                 offsetX: cx - roiW / 2, offsetY: cy - roiH / 2)
        let out = MediaPipeResampler.warp(PackedPixels(rgb), grid: grid, border: .constant(fill))
        let t = TensorToImageTransform(imageWidth: W, imageHeight: H, tensorWidth: n, tensorHeight: m,
                                       scaleX: grid.scaleX, scaleY: grid.scaleY,
                                       offsetX: grid.offsetX, offsetY: grid.offsetY,
                                       padding: TensorPadding(left: hPad, top: vPad, right: hPad, bottom: vPad))
        return (ImageBuffer(uncheckedWidth: n, height: m, format: .rgb8, pixels: out), t)
    }

    /// YOLO-style letterbox: resize to fit (`round(W · r)`, `r = min(n/W, m/H)`), paste centred
    /// (left = floor of half the spare width) onto a canvas of `fill`.
    static func pasteLetterbox(_ rgb: ImageBuffer, width n: Int, height m: Int, fill: UInt8,
                               method: Resampler) throws -> (ImageBuffer, TensorToImageTransform) {
        let W = rgb.width, H = rgb.height
        let r = min(Double(n) / Double(W), Double(m) / Double(H))
        let newW = min(max(Int((Double(W) * r).rounded()), 1), n)
        let newH = min(max(Int((Double(H) * r).rounded()), 1), m)
        let left = (n - newW) / 2, top = (m - newH) / 2
        let scaled = try rgb.resized(width: newW, height: newH, method: method)
        var canvas = [UInt8](repeating: fill, count: n * m * 3)
        scaled.pixels.withUnsafeBufferPointer { s in
            canvas.withUnsafeMutableBufferPointer { d in
                guard let sp = s.baseAddress, let dp = d.baseAddress else { return }
                for y in 0..<newH {
                    (dp + ((top + y) * n + left) * 3).update(from: sp + y * newW * 3, count: newW * 3)
                }
            }
        }
        let t = TensorToImageTransform(
            imageWidth: W, imageHeight: H, tensorWidth: n, tensorHeight: m,
            scaleX: Double(W) / Double(newW), scaleY: Double(H) / Double(newH),
            offsetX: -Double(left) * Double(W) / Double(newW), offsetY: -Double(top) * Double(H) / Double(newH),
            padding: TensorPadding(left: Float(left) / Float(n), top: Float(top) / Float(m),
                                      right: Float(n - newW - left) / Float(n), bottom: Float(m - newH - top) / Float(m)))
        return (ImageBuffer(uncheckedWidth: n, height: m, format: .rgb8, pixels: canvas), t)
    }

    /// YOLOX's letterbox (`preproc`): `r = min(n/W, m/H)` in `Double`, resized to
    /// `(Int(W · r), Int(H · r))` (truncated, at least 1), pasted at the top-left corner of a
    /// canvas of `fill`. Tensor pixels map back to the image as `x / r` (YOLOX divides its boxes by r).
    static func pasteLetterboxTopLeft(_ rgb: ImageBuffer, width n: Int, height m: Int, fill: UInt8,
                                      method: Resampler) throws -> (ImageBuffer, TensorToImageTransform) {
        let W = rgb.width, H = rgb.height
        let r = min(Double(m) / Double(H), Double(n) / Double(W))
        let newW = min(max(Int(Double(W) * r), 1), n)
        let newH = min(max(Int(Double(H) * r), 1), m)
        let scaled = try rgb.resized(width: newW, height: newH, method: method)
        var canvas = [UInt8](repeating: fill, count: n * m * 3)
        scaled.pixels.withUnsafeBufferPointer { s in
            canvas.withUnsafeMutableBufferPointer { d in
                guard let sp = s.baseAddress, let dp = d.baseAddress, s.count >= newW * newH * 3 else { return }
                for y in 0..<newH {
                    (dp + y * n * 3).update(from: sp + y * newW * 3, count: newW * 3)
                }
            }
        }
        let t = TensorToImageTransform(
            imageWidth: W, imageHeight: H, tensorWidth: n, tensorHeight: m,
            scaleX: 1 / r, scaleY: 1 / r, offsetX: 0, offsetY: 0,
            padding: TensorPadding(left: 0, top: 0, right: Float(n - newW) / Float(n), bottom: Float(m - newH) / Float(m)))
        return (ImageBuffer(uncheckedWidth: n, height: m, format: .rgb8, pixels: canvas), t)
    }

    /// Element conversion of an rgb8 picture, in `channelOrder` (BGR swaps red and blue).
    /// A buffer whose byte count does not match its size (its `pixels` were replaced) gives no values.
    public static func convertValues(_ rgb: ImageBuffer, inputType: TensorInputType, channelOrder: ChannelOrder = .rgb) -> TensorValues {
        let consistent = rgb.pixels.count == rgb.width * rgb.height * rgb.format.bytesPerPixel
        var px = !consistent ? [] : (rgb.format == .rgb8 ? rgb.pixels : rgb.converted(to: .rgb8).pixels)
        if channelOrder == .bgr {
            var i = 0
            while i + 2 < px.count {
                px.swapAt(i, i + 2)
                i += 3
            }
        }
        switch inputType {
        case .uint8:
            return .uint8(px)
        case let .float32(norm):
            let tables = (0..<3).map { c in (0...255).map { norm.floatValue(UInt8($0), channel: c) } }
            let out = mapThroughTables(px, tables)
            return .float32(out)
        case let .int8(scale, zp, norm):
            let tables = (0..<3).map { c in (0...255).map { Int8(quantize(norm.doubleValue(UInt8($0), channel: c), scale: scale, zeroPoint: zp, min: -128, max: 127)) } }
            return .int8(mapThroughTables(px, tables))
        case let .uint8Quantized(scale, zp, norm):
            let tables = (0..<3).map { c in (0...255).map { UInt8(quantize(norm.doubleValue(UInt8($0), channel: c), scale: scale, zeroPoint: zp, min: 0, max: 255)) } }
            return .uint8(mapThroughTables(px, tables))
        }
    }

    /// Interleaved RGB bytes through one 256-entry table per channel.
    static func mapThroughTables<T>(_ px: [UInt8], _ tables: [[T]]) -> [T] {
        guard let first = tables.first?.first, tables.count == 3, tables.allSatisfy({ $0.count == 256 }) else { return [] }
        var out = [T](repeating: first, count: px.count)
        px.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                tables[0].withUnsafeBufferPointer { t0 in
                    tables[1].withUnsafeBufferPointer { t1 in
                        tables[2].withUnsafeBufferPointer { t2 in
                            var i = 0
                            while i + 2 < s.count {
                                d[i] = t0[Int(s[i])]
                                d[i + 1] = t1[Int(s[i + 1])]
                                d[i + 2] = t2[Int(s[i + 2])]
                                i += 3
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// `clamp(roundHalfEven(real / scale + zeroPoint), min, max)` in `Double`; a zero or
    /// non-finite scale gives the zero point.
    package static func quantize(_ real: Double, scale: Float, zeroPoint: Int, min lo: Int, max hi: Int) -> Int {
        let s = Double(scale)
        guard s != 0, s.isFinite else { return Swift.min(Swift.max(zeroPoint, lo), hi) }
        let q = (real / s + Double(zeroPoint)).rounded(.toNearestOrEven)
        guard q.isFinite else { return q > 0 ? hi : lo }
        if q <= Double(lo) { return lo }
        if q >= Double(hi) { return hi }
        return Int(q)
    }
}
