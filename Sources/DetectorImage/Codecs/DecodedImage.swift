import DetectorZlib
import DetectorPlatform
/// The file formats the decoders read.
public enum ImageFileFormat: String, Sendable, Equatable {
    case png
    case ppm   // P1–P6: PBM, PGM, PPM
    case jpeg
}

/// What a decoder returns: the pixels as stored (orientation not applied), plus the facts
/// `objdetect image-info` reports.
///
/// ```swift
/// let decoded = try PNGDecoder.decode(bytes)       // or PPMDecoder / JPEGDecoder
/// print(decoded.image.width, decoded.orientation ?? .up)
/// ```
public struct DecodedImage: Sendable {
    /// The decoded pixels (orientation not applied).
    public var image: ImageBuffer
    public var format: ImageFileFormat
    /// Bits per sample in the file (1, 2, 4, 8, 16; 8 for JPEG; for PPM the bits needed for maxval).
    public var bitDepth: Int
    /// A short description of the stored colour layout, e.g. "rgb", "gray", "palette", "gray+alpha", "rgba", "ycbcr".
    public var colorType: String
    /// The orientation recorded in the file (EXIF in JPEG APP1 or PNG eXIf), if any.
    public var orientation: ImageOrientation?
    /// The raw EXIF (TIFF) payload, if the file carries one.
    public var exif: [UInt8]?

    public init(image: ImageBuffer, format: ImageFileFormat, bitDepth: Int, colorType: String,
                orientation: ImageOrientation? = nil, exif: [UInt8]? = nil) {
        self.image = image
        self.format = format
        self.bitDepth = bitDepth
        self.colorType = colorType
        self.orientation = orientation
        self.exif = exif
    }
}
