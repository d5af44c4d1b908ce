import DetectorZlib
import DetectorPlatform
/// A PNG decoder: every colour type and bit depth, Adam7, all five filters, PLTE + tRNS,
/// any number of IDAT chunks, every chunk CRC and the zlib Adler-32 verified.
///
/// The result is the canonical buffer of `shared/goldens/README-images.md`: RGBA8, or RGBA16
/// (big-endian) when `wants16Bit` is set. No gamma, colour management or EXIF rotation is
/// applied; an `eXIf` chunk's payload is kept in `DecodedImage.exif`.
///
/// ```swift
/// let decoded = try PNGDecoder.decode(Array(try Data(contentsOf: url)))
/// print(decoded.image.width, decoded.image.format)   // e.g. 640 rgba8
/// ```
public enum PNGDecoder {
    /// The 8 bytes every PNG file starts with.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Decodes a whole PNG file held in memory.
    /// - Parameters:
    ///   - wants16Bit: return `.rgba16` (big-endian samples) instead of `.rgba8`.
    ///   - maxPixels: the largest `width * height` accepted; checked before any pixel memory is allocated.
    public static func decode(_ bytes: [UInt8], wants16Bit: Bool = false,
                              maxPixels: Int = ImageLimits.defaultMaxPixels) throws(PNGError) -> DecodedImage {
        let file = try PNGChunks(bytes, maxPixels: maxPixels)
        let header = file.header
        let passes = header.passes()
        var expected = 0
        for pass in passes {
            let (rowTotal, o1) = (pass.rowBytes + 1).multipliedReportingOverflow(by: pass.height)
            let (sum, o2) = expected.addingReportingOverflow(rowTotal)
            guard !o1, !o2 else { throw .tooManyPixels(width: header.width, height: header.height, limit: maxPixels) }
            expected = sum
        }
        let bytesPerPixel = wants16Bit ? 8 : 4
        let (pixelBytes, o3) = (header.width * header.height).multipliedReportingOverflow(by: bytesPerPixel)
        guard !o3 else { throw .tooManyPixels(width: header.width, height: header.height, limit: maxPixels) }

        var raw: [UInt8]
        do {
            // Data beyond what the image needs is ignored (libpng's benign "too much image
            // data"), within a bounded allowance so the Adler-32 can still be checked.
            let allowance = min(expected / 4 + 4096, Int.max - expected)
            raw = try Zlib.decompress(file.imageData, maxOutputSize: expected + allowance, expectedSize: expected)
        } catch {
            throw .compression(error)
        }
        guard raw.count >= expected else { throw .imageDataTooShort(expected: expected, actual: raw.count) }

        let expander = PNGPixelExpander(header: header, palette: file.palette ?? [],
                                        transparency: file.transparency, sixteenBit: wants16Bit)
        var failure: PNGError? = nil
        let pixels = [UInt8](unsafeUninitializedCapacity: pixelBytes) { buffer, initialized in
            initialized = pixelBytes
            guard let out = buffer.baseAddress else { return }
            raw.withUnsafeMutableBufferPointer { rawBuffer in
                guard let base = rawBuffer.baseAddress else { return }
                var start = 0
                for pass in passes {
                    let passData = base + start
                    if let problem = unfilter(pass: pass, data: passData, stride: header.filterStride) {
                        failure = problem
                        return
                    }
                    do throws(PNGError) {
                        try expander.expand(pass: pass, data: passData, into: out)
                    } catch {
                        failure = error
                        return
                    }
                    start += (pass.rowBytes + 1) * pass.height
                }
            }
        }
        if let failure { throw failure }
        let image: ImageBuffer
        do {
            image = try ImageBuffer(width: header.width, height: header.height,
                                    format: wants16Bit ? .rgba16 : .rgba8, pixels: pixels, maxPixels: maxPixels)
        } catch {
            throw .tooManyPixels(width: header.width, height: header.height, limit: maxPixels)
        }
        return DecodedImage(image: image, format: .png, bitDepth: header.bitDepth,
                            colorType: header.colorTypeName, orientation: nil, exif: file.exif)
    }

    /// Unfilters one pass in place; returns the problem for a bad filter byte.
    private static func unfilter(pass: PNGHeader.Pass, data: UnsafeMutablePointer<UInt8>, stride: Int) -> PNGError? {
        let zeros = [UInt8](repeating: 0, count: pass.rowBytes + 8)
        return zeros.withUnsafeBufferPointer { zeroBuffer -> PNGError? in
            guard let zeroRow = zeroBuffer.baseAddress else { return nil }
            for y in 0..<pass.height {
                let rowStart = data + y * (pass.rowBytes + 1)
                let prior: UnsafePointer<UInt8> = y == 0 ? zeroRow : UnsafePointer(rowStart - pass.rowBytes)
                guard PNGUnfilter.unfilterRow(filter: rowStart[0], row: rowStart + 1, prior: prior,
                                              count: pass.rowBytes, stride: stride) else {
                    return .invalidFilterType(pass: pass.index, row: y, filter: Int(rowStart[0]))
                }
            }
            return nil
        }
    }
}

/// The chunk layer of a PNG file: signature, CRCs, chunk order, and the chunks the decoder uses.
struct PNGChunks {
    var header: PNGHeader
    var palette: [UInt8]?
    var transparency: [UInt8]?
    var exif: [UInt8]?
    /// All IDAT bodies, concatenated: one zlib stream.
    var imageData: [UInt8]

    init(_ bytes: [UInt8], maxPixels: Int) throws(PNGError) {
        guard bytes.count >= 8, Array(bytes[0..<8]) == PNGDecoder.signature else {
            throw .badSignature(bytes: Array(bytes.prefix(8)))
        }
        var header: PNGHeader? = nil
        var palette: [UInt8]? = nil
        var transparency: [UInt8]? = nil
        var exif: [UInt8]? = nil
        var idatRanges: [Range<Int>] = []
        var idatTotal = 0
        var idatEnded = false
        var p = 8
        while p < bytes.count {
            guard bytes.count - p >= 8 else { throw .truncatedChunk(offset: p, type: "") }
            let length32 = UInt32(bytes[p]) << 24 | UInt32(bytes[p + 1]) << 16 | UInt32(bytes[p + 2]) << 8 | UInt32(bytes[p + 3])
            guard length32 <= 0x7FFF_FFFF else { throw .chunkTooLong(offset: p, length: length32) }
            let length = Int(length32)
            let typeBytes = bytes[(p + 4)..<(p + 8)]
            guard typeBytes.allSatisfy({ ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) }) else {
                throw .invalidChunkType(offset: p)
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard length <= bytes.count - p - 12 else { throw .truncatedChunk(offset: p, type: type) }
            let bodyStart = p + 8, bodyEnd = p + 8 + length
            let stored = UInt32(bytes[bodyEnd]) << 24 | UInt32(bytes[bodyEnd + 1]) << 16
                | UInt32(bytes[bodyEnd + 2]) << 8 | UInt32(bytes[bodyEnd + 3])
            let computed = bytes.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[(p + 4)..<bodyEnd])) }
            guard stored == computed else { throw .crcMismatch(offset: p, type: type, stored: stored, computed: computed) }
            let body = bytes[bodyStart..<bodyEnd]
            let critical = typeBytes.first.map { $0 & 0x20 == 0 } ?? false

            if header == nil && type != "IHDR" { throw .missingHeader }
            if !idatRanges.isEmpty && type != "IDAT" { idatEnded = true }
            switch type {
            case "IHDR":
                guard header == nil else { throw .misplacedChunk(offset: p, type: type, reason: "a second IHDR") }
                let h = try PNGHeader(body)
                let (pixels, overflow) = h.width.multipliedReportingOverflow(by: h.height)
                guard !overflow, pixels <= maxPixels else { throw .tooManyPixels(width: h.width, height: h.height, limit: maxPixels) }
                header = h
            case "PLTE":
                guard palette == nil else { throw .misplacedChunk(offset: p, type: type, reason: "a second PLTE") }
                guard idatRanges.isEmpty else { throw .misplacedChunk(offset: p, type: type, reason: "PLTE after IDAT") }
                guard transparency == nil else { throw .misplacedChunk(offset: p, type: type, reason: "PLTE after tRNS") }
                guard length % 3 == 0, length >= 3, length <= 768 else {
                    throw .invalidPalette(reason: "PLTE is \(length) bytes, not 1 to 256 RGB entries")
                }
                // A palette in a gray image is meaningless; it is ignored.
                if let h = header, h.colorType != 0, h.colorType != 4 { palette = Array(body) }
            case "tRNS":
                guard let h = header else { throw .missingHeader }
                guard idatRanges.isEmpty else { throw .misplacedChunk(offset: p, type: type, reason: "tRNS after IDAT") }
                guard transparency == nil else { throw .misplacedChunk(offset: p, type: type, reason: "a second tRNS") }
                switch h.colorType {
                case 0:
                    guard length == 2 else { throw .invalidTransparency(reason: "a gray image needs 2 bytes, the chunk has \(length)") }
                    transparency = Array(body)
                case 2:
                    guard length == 6 else { throw .invalidTransparency(reason: "an RGB image needs 6 bytes, the chunk has \(length)") }
                    transparency = Array(body)
                case 3:
                    guard let palette else { throw .invalidTransparency(reason: "tRNS comes before PLTE") }
                    guard length <= palette.count / 3 else {
                        throw .invalidTransparency(reason: "\(length) alpha values for \(palette.count / 3) palette entries")
                    }
                    transparency = Array(body)
                default:
                    break  // images with an alpha channel do not use tRNS; ignored
                }
            case "IDAT":
                guard !idatEnded else { throw .misplacedChunk(offset: p, type: type, reason: "IDAT chunks are not consecutive") }
                idatRanges.append(bodyStart..<bodyEnd)
                idatTotal += length
            case "eXIf":
                if exif == nil { exif = Array(body) }
            case "IEND":
                p = bytes.count
                continue
            default:
                if critical { throw .unknownCriticalChunk(offset: p, type: type) }
            }
            p = bodyEnd + 4
        }
        guard let header else { throw .missingHeader }
        guard !idatRanges.isEmpty else { throw .missingImageData }
        if header.colorType == 3 && palette == nil { throw .invalidPalette(reason: "a palette image has no PLTE chunk") }
        var data = [UInt8]()
        data.reserveCapacity(idatTotal)
        for r in idatRanges { data.append(contentsOf: bytes[r]) }
        self.header = header
        self.palette = palette
        self.transparency = transparency
        self.exif = exif
        self.imageData = data
    }
}
