import DetectorZlib
import DetectorPlatform
/// Parses one Netpbm frame (P1–P6) starting at an index of a byte buffer. Used by
/// `PPMDecoder` (a whole file) and `PPMStreamReader` (a buffer that grows as chunks arrive):
/// when the buffer ends early and more data may come, it asks for more instead of failing.
struct PPMFrameParser {
    enum Stop: Error {
        /// The buffer ended inside the frame and the source is not exhausted yet.
        case needMore
        case failed(PPMError)
    }

    struct Header {
        var magic: UInt8          // ASCII '1'...'6'
        var width: Int
        var height: Int
        var maxval: Int
        var rasterStart: Int      // index in the buffer
        var isPlain: Bool { magic <= UInt8(ascii: "3") }
        var isBitmap: Bool { magic == UInt8(ascii: "1") || magic == UInt8(ascii: "4") }
        var channels: Int { (magic == UInt8(ascii: "3") || magic == UInt8(ascii: "6")) ? 3 : 1 }
    }

    let bytes: [UInt8]
    let start: Int
    /// True when no more data will arrive after `bytes`.
    let atEnd: Bool
    let maxPixels: Int
    let wants16Bit: Bool
    /// A frame whose header says it takes more bytes is refused before its raster is buffered.
    var maxFrameBytes: Int = .max

    private func isSpace(_ b: UInt8) -> Bool { b == 32 || b == 9 || b == 10 || b == 13 || b == 11 || b == 12 }

    private func shortage(_ failure: PPMError) -> Stop { atEnd ? .failed(failure) : .needMore }

    /// Skips whitespace and `#` comments (to the next CR or LF).
    private func skipSeparators(_ i: inout Int) throws(Stop) {
        while i < bytes.count {
            let b = bytes[i]
            if isSpace(b) { i += 1; continue }
            if b == UInt8(ascii: "#") {
                while i < bytes.count && bytes[i] != 10 && bytes[i] != 13 { i += 1 }
                continue
            }
            return
        }
        throw shortage(.truncatedHeader(offset: i - start))
    }

    /// Reads an unsigned decimal header field (at most 10 digits' worth).
    private func number(_ i: inout Int, field: String) throws(Stop) -> Int {
        try skipSeparators(&i)
        let begin = i
        var value = 0
        while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 {
            value = value * 10 + Int(bytes[i] - 48)
            if value > 0xFFFF_FFFF { throw .failed(.invalidNumber(offset: begin - start, field: field)) }
            i += 1
        }
        if i == bytes.count { throw shortage(.truncatedHeader(offset: i - start)) }
        if i == begin { throw .failed(.invalidNumber(offset: begin - start, field: field)) }
        let next = bytes[i]
        guard isSpace(next) || next == UInt8(ascii: "#") else {
            throw .failed(.invalidNumber(offset: begin - start, field: field))
        }
        return value
    }

    func header() throws(Stop) -> Header {
        guard bytes.count - start >= 2 else {
            if bytes.count == start { throw shortage(.empty) }
            throw shortage(.badMagic(found: Array(bytes[start...])))
        }
        let m = bytes[start + 1]
        guard bytes[start] == UInt8(ascii: "P"), m >= UInt8(ascii: "1"), m <= UInt8(ascii: "6") else {
            throw .failed(.badMagic(found: Array(bytes[start..<(start + 2)])))
        }
        var i = start + 2
        guard i < bytes.count else { throw shortage(.truncatedHeader(offset: 2)) }
        guard isSpace(bytes[i]) || bytes[i] == UInt8(ascii: "#") else {
            throw .failed(.badMagic(found: Array(bytes[start..<(start + 3)])))
        }
        let width = try number(&i, field: "width")
        let height = try number(&i, field: "height")
        guard width >= 1, height >= 1, width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else {
            throw .failed(.invalidDimensions(width: width, height: height))
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixels else {
            throw .failed(.tooManyPixels(width: width, height: height, limit: maxPixels))
        }
        var maxval = 1
        let bitmap = m == UInt8(ascii: "1") || m == UInt8(ascii: "4")
        if !bitmap {
            maxval = try number(&i, field: "maxval")
            guard maxval >= 1, maxval <= 65535 else { throw .failed(.invalidMaxval(maxval)) }
        }
        // `number` stopped on whitespace or '#'. Raw formats need exactly one whitespace byte here.
        guard isSpace(bytes[i]) else { throw .failed(.missingWhitespaceAfterMaxval(offset: i - start)) }
        i += 1
        return Header(magic: m, width: width, height: height, maxval: maxval, rasterStart: i)
    }

    /// The length from `start` of a raw frame (header and raster) once its header is complete,
    /// so that a reader can pull until it holds the whole frame and parse the header once more,
    /// not once per chunk (a long comment in the header would otherwise be re-read per chunk).
    /// Nil for a plain (ASCII) frame or a header not complete yet: their parse starts over
    /// after each pull and repeats work in proportion to the bytes so far, so the reader
    /// doubles what it holds instead. Also nil when the length overflows or is above
    /// `maxFrameBytes` (`frame()` refuses those).
    var rawFrameLength: Int? {
        guard let h = try? header(), !h.isPlain, let raster = Self.rawRasterBytes(h) else { return nil }
        let (total, overflow) = (h.rasterStart - start).addingReportingOverflow(raster)
        guard !overflow, total <= maxFrameBytes else { return nil }
        return total
    }

    /// The raster size of a raw frame (P4: rows of `ceil(width / 8)` bytes; P5/P6: 1 or 2 bytes
    /// a sample), or nil when it overflows.
    static func rawRasterBytes(_ h: Header) -> Int? {
        if h.isBitmap {
            let (bytes, overflow) = ((h.width + 7) / 8).multipliedReportingOverflow(by: h.height)
            return overflow ? nil : bytes
        }
        let (samples, o1) = (h.width * h.height).multipliedReportingOverflow(by: h.channels)
        let (bytes, o2) = samples.multipliedReportingOverflow(by: h.maxval > 255 ? 2 : 1)
        return o1 || o2 ? nil : bytes
    }

    /// Parses the whole frame; returns it and the index just past its raster.
    func frame() throws(Stop) -> (DecodedImage, end: Int) {
        let h = try header()
        let pixelCount = h.width * h.height  // checked in header()
        let (sampleCount, o1) = pixelCount.multipliedReportingOverflow(by: h.channels)
        guard !o1 else { throw .failed(.tooManyPixels(width: h.width, height: h.height, limit: maxPixels)) }
        let sixteen = h.maxval > 255
        let out16 = wants16Bit && sixteen
        let format: PixelFormat = out16 ? .rgba16 : (h.channels == 3 ? .rgb8 : .gray8)
        let (outBytes, o) = pixelCount.multipliedReportingOverflow(by: format.bytesPerPixel)
        guard !o else { throw .failed(.tooManyPixels(width: h.width, height: h.height, limit: maxPixels)) }

        var samples: [UInt16]? = nil   // 16-bit samples (out16) are gathered first
        var pixels = [UInt8]()
        let end: Int
        if h.isBitmap {
            (pixels, end) = try bitmapRaster(h)
        } else if h.isPlain {
            let (values, e) = try plainSamples(h, count: sampleCount)
            end = e
            if out16 { samples = values.map { UInt16(Self.scale16($0, h.maxval)) } }
            else { pixels = values.map { UInt8(Self.scale8($0, h.maxval)) } }
        } else {
            guard let need = Self.rawRasterBytes(h) else { throw .failed(.tooManyPixels(width: h.width, height: h.height, limit: maxPixels)) }
            try checkFrameSize(h, rasterBytes: need)
            let available = bytes.count - h.rasterStart
            guard available >= need else { throw shortage(.truncatedRaster(expected: need, available: available)) }
            end = h.rasterStart + need
            if sixteen {
                let r = try raw16(h, count: sampleCount, scaleTo16: out16)
                if out16 { samples = r.wide } else { pixels = r.narrow }
            } else {
                pixels = try raw8(h, count: sampleCount)
            }
        }
        if let samples {
            // RGBA16, big-endian, alpha 65535.
            var wide = [UInt8](repeating: 0xFF, count: outBytes)
            for p in 0..<pixelCount {
                for c in 0..<3 {
                    let v = samples[h.channels == 3 ? 3 * p + c : p]
                    wide[8 * p + 2 * c] = UInt8(v >> 8)
                    wide[8 * p + 2 * c + 1] = UInt8(v & 0xFF)
                }
            }
            pixels = wide
        }
        let image: ImageBuffer
        do {
            image = try ImageBuffer(width: h.width, height: h.height, format: format, pixels: pixels, maxPixels: maxPixels)
        } catch {
            throw .failed(.tooManyPixels(width: h.width, height: h.height, limit: maxPixels))
        }
        var depth = 1
        while (1 << depth) - 1 < h.maxval { depth += 1 }
        let decoded = DecodedImage(image: image, format: .ppm, bitDepth: depth,
                                   colorType: h.channels == 3 ? "rgb" : "gray")
        return (decoded, end)
    }

    /// Refuses a frame whose header and raster together are above `maxFrameBytes`.
    private func checkFrameSize(_ h: Header, rasterBytes: Int) throws(Stop) {
        let (total, overflow) = (h.rasterStart - start).addingReportingOverflow(rasterBytes)
        guard !overflow, total <= maxFrameBytes else {
            throw .failed(.frameTooLarge(bytes: overflow ? Int.max : total, limit: maxFrameBytes))
        }
    }

    /// round(v * 255 / maxval), halves up, in integers.
    static func scale8(_ v: Int, _ maxval: Int) -> Int { (v * 510 + maxval) / (2 * maxval) }
    /// round(v * 65535 / maxval), halves up, in integers.
    static func scale16(_ v: Int, _ maxval: Int) -> Int { (v * 131_070 + maxval) / (2 * maxval) }

    private func raw8(_ h: Header, count: Int) throws(Stop) -> [UInt8] {
        let src = h.rasterStart
        if h.maxval == 255 { return Array(bytes[src..<(src + count)]) }
        var table = [UInt8](repeating: 0, count: 256)
        for v in 0...h.maxval { table[v] = UInt8(Self.scale8(v, h.maxval)) }
        var bad = -1
        let out = bytes.withUnsafeBufferPointer { b in
            table.withUnsafeBufferPointer { t in
                [UInt8](unsafeUninitializedCapacity: count) { o, n in
                    for k in 0..<count {
                        let v = Int(b[src + k])
                        if v > h.maxval && bad < 0 { bad = k }
                        o[k] = t[v]
                    }
                    n = count
                }
            }
        }
        if bad >= 0 {
            throw .failed(.sampleOutOfRange(offset: src - start + bad, value: Int(bytes[src + bad]), maxval: h.maxval))
        }
        return out
    }

    private func raw16(_ h: Header, count: Int, scaleTo16: Bool) throws(Stop) -> (narrow: [UInt8], wide: [UInt16]) {
        let src = h.rasterStart
        var narrow = [UInt8](), wide = [UInt16]()
        if scaleTo16 { wide.reserveCapacity(count) } else { narrow.reserveCapacity(count) }
        for k in 0..<count {
            let v = Int(bytes[src + 2 * k]) << 8 | Int(bytes[src + 2 * k + 1])
            guard v <= h.maxval else {
                throw .failed(.sampleOutOfRange(offset: src - start + 2 * k, value: v, maxval: h.maxval))
            }
            if scaleTo16 { wide.append(UInt16(Self.scale16(v, h.maxval))) } else { narrow.append(UInt8(Self.scale8(v, h.maxval))) }
        }
        return (narrow, wide)
    }

    /// Decimal samples separated by whitespace (comments tolerated). The last sample must be
    /// followed by whitespace or the end of the data.
    private func plainSamples(_ h: Header, count: Int) throws(Stop) -> ([Int], Int) {
        // Each plain sample takes at least 2 bytes (digit + separator), so a raster that
        // cannot fit is refused before allocating, unless more data may still come.
        var values = [Int]()
        values.reserveCapacity(min(count, max(0, bytes.count - h.rasterStart)))
        var i = h.rasterStart
        let single = h.magic == UInt8(ascii: "1")
        while values.count < count {
            while i < bytes.count && (isSpace(bytes[i]) || bytes[i] == UInt8(ascii: "#")) {
                if bytes[i] == UInt8(ascii: "#") {
                    while i < bytes.count && bytes[i] != 10 && bytes[i] != 13 { i += 1 }
                } else { i += 1 }
            }
            guard i < bytes.count else {
                throw shortage(.truncatedRaster(expected: count, available: values.count))
            }
            let begin = i
            var v = 0
            if single {
                // P1 digits need no separators.
                guard bytes[i] == 48 || bytes[i] == 49 else { throw .failed(.invalidPlainSample(offset: i - start)) }
                v = Int(bytes[i] - 48)
                i += 1
            } else {
                while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 {
                    v = v * 10 + Int(bytes[i] - 48)
                    if v > 65535 { throw .failed(.sampleOutOfRange(offset: begin - start, value: v, maxval: h.maxval)) }
                    i += 1
                }
                if i == begin { throw .failed(.invalidPlainSample(offset: i - start)) }
                if i == bytes.count && !atEnd { throw .needMore }
                if i < bytes.count && !isSpace(bytes[i]) && bytes[i] != UInt8(ascii: "#") {
                    throw .failed(.invalidPlainSample(offset: i - start))
                }
            }
            guard v <= h.maxval else { throw .failed(.sampleOutOfRange(offset: begin - start, value: v, maxval: h.maxval)) }
            values.append(single ? (1 - v) : v)   // PBM: 1 is black
        }
        return (values, i)
    }

    /// P1 (plain) and P4 (packed) bitmaps to gray8: 1 is black (0), 0 is white (255).
    private func bitmapRaster(_ h: Header) throws(Stop) -> ([UInt8], Int) {
        if h.magic == UInt8(ascii: "1") {
            let (values, end) = try plainSamples(h, count: h.width * h.height)
            return (values.map { $0 == 1 ? 255 : 0 }, end)
        }
        let rowBytes = (h.width + 7) / 8
        guard let need = Self.rawRasterBytes(h) else { throw .failed(.tooManyPixels(width: h.width, height: h.height, limit: maxPixels)) }
        try checkFrameSize(h, rasterBytes: need)
        let available = bytes.count - h.rasterStart
        guard available >= need else { throw shortage(.truncatedRaster(expected: need, available: available)) }
        var out = [UInt8](repeating: 0, count: h.width * h.height)
        for y in 0..<h.height {
            for x in 0..<h.width {
                let byte = bytes[h.rasterStart + y * rowBytes + x / 8]
                out[y * h.width + x] = (byte >> (7 - UInt8(x % 8))) & 1 == 1 ? 0 : 255
            }
        }
        return (out, h.rasterStart + need)
    }
}
