import DetectorZlib
import DetectorPlatform
/// Reads Netpbm images: P1/P4 (bitmap), P2/P5 (gray), P3/P6 (RGB), plain or raw, maxval
/// 1...65535. Samples are scaled to 8 bits by round(v * 255 / maxval), halves up.
///
/// The result is `.rgb8` (P3, P6) or `.gray8` (P1, P2, P4, P5); with `wants16Bit` and
/// maxval > 255 it is `.rgba16` (samples scaled to 0...65535, alpha 65535). Use
/// `ImageBuffer.converted(to: .rgba8)` for the canonical RGBA8 buffer.
///
/// ```swift
/// let frame = try PPMDecoder.decode(bytes)     // the first frame of the data
/// print(frame.image.format)                    // rgb8
/// ```
public enum PPMDecoder {
    /// Decodes the first frame in `bytes` (any following frames are ignored; see `PPMStreamReader`).
    public static func decode(_ bytes: [UInt8], wants16Bit: Bool = false,
                              maxPixels: Int = ImageLimits.defaultMaxPixels) throws(PPMError) -> DecodedImage {
        try decodeFrame(bytes, at: 0, wants16Bit: wants16Bit, maxPixels: maxPixels).image
    }

    /// Decodes every frame of a complete in-memory stream (frames back to back).
    public static func decodeAll(_ bytes: [UInt8], wants16Bit: Bool = false,
                                 maxPixels: Int = ImageLimits.defaultMaxPixels) throws(PPMError) -> [DecodedImage] {
        var frames: [DecodedImage] = []
        var offset = 0
        repeat {
            let (image, end) = try decodeFrame(bytes, at: offset, wants16Bit: wants16Bit, maxPixels: maxPixels)
            frames.append(image)
            offset = PPMStreamReader.skipWhitespace(bytes, from: end)
        } while offset < bytes.count
        return frames
    }

    static func decodeFrame(_ bytes: [UInt8], at offset: Int, wants16Bit: Bool,
                            maxPixels: Int) throws(PPMError) -> (image: DecodedImage, end: Int) {
        let parser = PPMFrameParser(bytes: bytes, start: offset, atEnd: true, maxPixels: maxPixels, wants16Bit: wants16Bit)
        do {
            return try parser.frame()
        } catch {
            switch error {
            case .failed(let e): throw e
            case .needMore: throw .truncatedHeader(offset: bytes.count - offset)  // cannot happen with atEnd
            }
        }
    }
}
