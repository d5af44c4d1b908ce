/// Decodes baseline, extended-sequential and progressive Huffman JPEG (8-bit; gray, YCbCr,
/// RGB, CMYK, YCCK) pixel-exactly as libjpeg-turbo does with its defaults (islow IDCT,
/// fancy upsampling), which is what Pillow returns.
///
/// The pixels are returned as stored (EXIF orientation not applied): `gray8` for one
/// component, `rgb8` otherwise (CMYK/YCCK converted with Pillow's rule). `orientation` and
/// `exif` come from the first APP1 `Exif` segment.
///
/// ```swift
/// let decoded = try JPEGDecoder.decode(Array(fileData))
/// print(decoded.image.width, decoded.image.height, decoded.colorType, decoded.orientation ?? .up)
/// ```
public enum JPEGDecoder {
    /// Decodes a whole JPEG file. Throws `JPEGError` (unsupported features are
    /// `.unsupported`); the image size is checked against `maxPixels` before any pixel memory
    /// is allocated.
    public static func decode(_ bytes: [UInt8], maxPixels: Int = ImageLimits.defaultMaxPixels) throws -> DecodedImage {
        try bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                throw JPEGError.truncated(offset: 0, context: "before the SOI marker: the file is empty")
            }
            let parser = JPEGStreamParser(data: base, count: buffer.count, maxPixels: maxPixels)
            try parser.run()
            let (image, model) = try JPEGPixelAssembler.assemble(parser)
            let orientation = parser.exif.flatMap { EXIFParser.orientation(fromTIFF: $0[...]) }
            return DecodedImage(image: image, format: .jpeg, bitDepth: 8, colorType: model.rawValue,
                                orientation: orientation, exif: parser.exif)
        }
    }
}
