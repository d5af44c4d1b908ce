import DetectorZlib
import DetectorPlatform
/// The pixel layouts an `ImageBuffer` can hold.
///
/// Samples are interleaved, row-major, top row first, with no padding between rows.
/// `rgba16` keeps two bytes per sample in big-endian order (PNG's order), so a
/// decoder asked for 16-bit output can hand its samples over unchanged.
public enum PixelFormat: Sendable, Equatable, CustomStringConvertible {
    case gray8
    case rgb8
    case rgba8
    case rgba16

    /// Number of samples (channels) per pixel.
    public var channelCount: Int {
        switch self {
        case .gray8: return 1
        case .rgb8: return 3
        case .rgba8, .rgba16: return 4
        }
    }

    /// Number of bytes per pixel.
    public var bytesPerPixel: Int {
        switch self {
        case .gray8: return 1
        case .rgb8: return 3
        case .rgba8: return 4
        case .rgba16: return 8
        }
    }

    public var description: String {
        switch self {
        case .gray8: return "gray8"
        case .rgb8: return "rgb8"
        case .rgba8: return "rgba8"
        case .rgba16: return "rgba16"
        }
    }
}

/// Limits checked before any image memory is allocated.
public enum ImageLimits {
    /// The default largest image, in pixels, that decoders and `ImageBuffer` accept (100 megapixels).
    public static let defaultMaxPixels = 100_000_000
    /// The default largest frame, in bytes, that a frame-stream reader (`ImageStreamReader`,
    /// `PPMStreamReader`) buffers (256 MiB: an 8K RGB PPM frame is 100 MB). A frame whose
    /// header says it is larger is refused before its bytes are read.
    public static let defaultMaxFrameBytes = 256 << 20
}

/// Why an image buffer could not be made.
public enum ImageBufferError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidDimensions(width: Int, height: Int)
    case tooManyPixels(width: Int, height: Int, limit: Int)
    case sizeMismatch(expected: Int, actual: Int)
    case invalidRegion(x: Int, y: Int, width: Int, height: Int)

    public var description: String {
        switch self {
        case let .invalidDimensions(w, h):
            return "image dimensions \(w)x\(h) are invalid: width and height must be at least 1"
        case let .tooManyPixels(w, h, limit):
            return "image of \(w)x\(h) pixels exceeds the limit of \(limit) pixels"
        case let .sizeMismatch(expected, actual):
            return "pixel data holds \(actual) bytes but the image needs \(expected)"
        case let .invalidRegion(x, y, w, h):
            return "region (\(x), \(y), \(w)x\(h)) does not lie inside the image"
        }
    }
}

/// An image in memory: width, height, pixel format and contiguous row-major pixels.
///
/// ```swift
/// let image = try ImageBuffer(width: 2, height: 1, format: .rgb8, pixels: [255, 0, 0, 0, 255, 0])
/// print(image.width, image.height, image.format)   // 2 1 rgb8
/// ```
public struct ImageBuffer: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    /// Row-major pixels, `width * format.bytesPerPixel` bytes per row, no padding. Set only by the
    /// validated initialisers, so the count always matches the size; edit the bytes in place
    /// with `withMutablePixels`.
    public internal(set) var pixels: [UInt8]

    /// Edits the pixel bytes in place; their count (and so the size) cannot change.
    ///
    /// ```swift
    /// var image = try ImageBuffer(width: 2, height: 2, format: .gray8)
    /// image.withMutablePixels { $0[0] = 255 }   // top-left pixel white
    /// ```
    public mutating func withMutablePixels<R>(_ body: (UnsafeMutableBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try pixels.withUnsafeMutableBufferPointer { try body($0) }
    }

    /// Bytes in one row.
    public var bytesPerRow: Int { width * format.bytesPerPixel }

    /// Checks that `width x height` is a legal size within `maxPixels` and returns the byte count.
    public static func byteCount(width: Int, height: Int, format: PixelFormat,
                                 maxPixels: Int = ImageLimits.defaultMaxPixels) throws -> Int {
        guard width >= 1, height >= 1 else { throw ImageBufferError.invalidDimensions(width: width, height: height) }
        let (pixelCount, o1) = width.multipliedReportingOverflow(by: height)
        guard !o1, pixelCount <= maxPixels else {
            throw ImageBufferError.tooManyPixels(width: width, height: height, limit: maxPixels)
        }
        let (bytes, o2) = pixelCount.multipliedReportingOverflow(by: format.bytesPerPixel)
        guard !o2 else { throw ImageBufferError.tooManyPixels(width: width, height: height, limit: maxPixels) }
        return bytes
    }

    /// Wraps existing pixels; their count must equal `width * height * bytesPerPixel`.
    public init(width: Int, height: Int, format: PixelFormat, pixels: [UInt8],
                maxPixels: Int = ImageLimits.defaultMaxPixels) throws {
        let expected = try ImageBuffer.byteCount(width: width, height: height, format: format, maxPixels: maxPixels)
        guard pixels.count == expected else { throw ImageBufferError.sizeMismatch(expected: expected, actual: pixels.count) }
        self.width = width
        self.height = height
        self.format = format
        self.pixels = pixels
    }

    /// A zero-filled image (black, and transparent where there is alpha).
    public init(width: Int, height: Int, format: PixelFormat,
                maxPixels: Int = ImageLimits.defaultMaxPixels) throws {
        let count = try ImageBuffer.byteCount(width: width, height: height, format: format, maxPixels: maxPixels)
        self.width = width
        self.height = height
        self.format = format
        self.pixels = [UInt8](repeating: 0, count: count)
    }
}
