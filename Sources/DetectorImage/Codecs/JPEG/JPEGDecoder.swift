import DetectorZlib
import DetectorPlatform
/// Decodes baseline, extended-sequential and progressive Huffman JPEG (8-bit; gray, YCbCr,
/// RGB, CMYK, YCCK) pixel-exactly as libjpeg-turbo does with its defaults (islow IDCT,
/// fancy upsampling), which is what Pillow returns.
///
/// The pixels are returned as stored (EXIF orientation not applied): `gray8` for one
/// component, `rgb8` otherwise (CMYK/YCCK converted with Pillow's rule). `orientation` and
/// `exif` come from the first APP1 `Exif` segment.
///
/// Damaged files decode as Pillow decodes them where Pillow does not raise: a progressive
/// file closed with EOI after any scan (or inside one) shows libjpeg's interblock smoothing of
/// the missing AC terms; data that runs into a marker leaves the rest of the scan as it is;
/// wrong or missing restart markers are resynchronised as libjpeg does. A file without EOI is
/// rejected as `.truncated`, as Pillow does by default; what Pillow shows for it with
/// `ImageFile.LOAD_TRUNCATED_IMAGES = True` is the decode of the same bytes plus `FF D9`.
///
/// ```swift
/// let decoded = try JPEGDecoder.decode(Array(fileData))
/// print(decoded.image.width, decoded.image.height, decoded.colorType, decoded.orientation ?? .up)
/// ```
public enum JPEGDecoder {
    /// Decodes a whole JPEG file. Throws `JPEGError` (unsupported features are
    /// `.unsupported`); the image size is checked against `maxPixels` before any pixel memory
    /// is allocated.
    public static func decode(_ bytes: [UInt8], maxPixels: Int = ImageLimits.defaultMaxPixels) throws(JPEGError) -> DecodedImage {
        do {
            return try decodeBuffer(bytes, maxPixels: maxPixels)
        } catch let error as JPEGError {
            throw error
        } catch {
            // Every stage throws JPEGError; anything else would be a bug, reported as malformed data.
            throw .malformed(offset: 0, reason: String(describing: error))
        }
    }

    private static func decodeBuffer(_ bytes: [UInt8], maxPixels: Int) throws -> DecodedImage {
        try bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                throw JPEGError.truncated(offset: 0, context: "before the SOI marker: the file is empty")
            }
            var parser = JPEGStreamParser(data: base, count: buffer.count, maxPixels: maxPixels)
            do {
                try parser.run()
            } catch is JPEGStreamParser.ScanAfterStreamedScan {
                parser = JPEGStreamParser(data: base, count: buffer.count, maxPixels: maxPixels, allowsStreaming: false)
                try parser.run()
            }
            let (image, model) = try JPEGPixelAssembler.assemble(parser)
            let orientation = parser.exif.flatMap { EXIFParser.orientation(fromTIFF: $0[...]) }
            return DecodedImage(image: image, format: .jpeg, bitDepth: 8, colorType: model.rawValue,
                                orientation: orientation, exif: parser.exif)
        }
    }
}
