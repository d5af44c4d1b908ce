import DetectorZlib
import DetectorPlatform
/// Finds where one PNG or JPEG file ends inside a buffer that holds several back to back (what
/// `ffmpeg -f image2pipe -c:v png` or `-c:v mjpeg` writes), without decoding it. Used by
/// `ImageStreamReader`.
///
/// ```swift
/// let files = pngA + pngB
/// if case let .end(split) = FrameBoundary.pngEnd(files, from: 0) { print(split == pngA.count) }
/// ```
enum FrameBoundary {
    /// The result of looking for a frame's end.
    enum Scan: Equatable {
        /// The frame occupies `start..<index`.
        case end(Int)
        /// The buffer ends inside the frame.
        case needMore
        /// The bytes cannot be a frame of this format (the reason says where and why).
        case invalid(String)
        /// The frame's own structure says it takes at least this many bytes, above the caller's
        /// `maxBytes`: known before those bytes are buffered.
        case tooLarge(bytes: Int)
    }

    /// The end of the PNG starting at `start`: after the CRC of its `IEND` chunk. Chunks are
    /// skipped by their length field, so nothing inside them is mistaken for an end. A chunk
    /// length that takes the frame past `maxBytes`, or an `IHDR` above `maxPixels`, is refused
    /// as soon as its 8-byte chunk header (or the IHDR body) is in, before the rest is buffered.
    static func pngEnd(_ bytes: [UInt8], from start: Int, maxBytes: Int = .max, maxPixels: Int = .max) -> Scan {
        var resume: Int?
        return pngEnd(bytes, from: start, resume: &resume, maxBytes: maxBytes, maxPixels: maxPixels)
    }

    /// `pngEnd`, going on from the chunk at offset `resume` from `start` when it is set; on
    /// `.needMore` it is set to the chunk the scan stopped at. A frame arriving in small pieces
    /// is then scanned once, not from its signature at every piece (a PNG of 5,000 empty chunks
    /// read in 1-byte pieces took 13 s in the fuzzer's build).
    static func pngEnd(_ bytes: [UInt8], from start: Int, resume: inout Int?, maxBytes: Int = .max, maxPixels: Int = .max) -> Scan {
        let signature = PNGDecoder.signature
        let available = min(bytes.count - start, signature.count)
        guard available >= 0, bytes[start..<(start + available)].elementsEqual(signature.prefix(available)) else {
            return .invalid("it does not start with the PNG signature")
        }
        guard available == signature.count else { return .needMore }
        var i = start + max(signature.count, resume ?? 0)
        while true {
            guard bytes.count - i >= 8 else { resume = i - start; return .needMore }
            let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length <= 0x7FFF_FFFF else {
                return .invalid("the chunk at byte \(i - start) has length \(length), above the PNG limit 2^31-1")
            }
            let isEnd = bytes[i + 4] == 0x49 && bytes[i + 5] == 0x45 && bytes[i + 6] == 0x4E && bytes[i + 7] == 0x44   // "IEND"
            // length + type + CRC: at most 2^31 + 11, no overflow on 64-bit Int.
            let next = i + 12 + length
            guard next - start <= maxBytes else { return .tooLarge(bytes: next - start) }
            if i == start + signature.count, length >= 8, bytes.count - i >= 16,
               bytes[i + 4] == 0x49, bytes[i + 5] == 0x48, bytes[i + 6] == 0x44, bytes[i + 7] == 0x52 {   // "IHDR"
                let width = Int(bytes[i + 8]) << 24 | Int(bytes[i + 9]) << 16 | Int(bytes[i + 10]) << 8 | Int(bytes[i + 11])
                let height = Int(bytes[i + 12]) << 24 | Int(bytes[i + 13]) << 16 | Int(bytes[i + 14]) << 8 | Int(bytes[i + 15])
                if let refusal = pixelRefusal(width: width, height: height, maxPixels: maxPixels) { return .invalid(refusal) }
            }
            guard next <= bytes.count else { resume = i - start; return .needMore }
            if isEnd { return .end(next) }
            i = next
        }
    }

    /// Where a JPEG scan that ran out of bytes can go on once more arrive, as an offset from the
    /// frame's start (so it survives the reader dropping earlier frames), and whether that point
    /// is inside entropy-coded data. Lets a large frame arriving in pipe-sized chunks be scanned
    /// once instead of from its start at every chunk.
    struct JPEGResume: Equatable {
        var offset: Int
        var inEntropyData: Bool
    }

    /// The end of the JPEG starting at `start`: after its EOI marker (FF D9). Marker segments are
    /// skipped by their length (so an EXIF thumbnail's own SOI/EOI inside APP1 is passed over);
    /// inside entropy-coded data only a 0xFF followed by a byte other than 0x00 (stuffing),
    /// 0xFF (fill) or D0–D7 (restart markers) ends the scan. Progressive files have several scans.
    /// A start-of-frame segment above `maxPixels` is refused as soon as it is in.
    static func jpegEnd(_ bytes: [UInt8], from start: Int, maxPixels: Int = .max) -> Scan {
        var resume: JPEGResume?
        return jpegEnd(bytes, from: start, resume: &resume, maxPixels: maxPixels)
    }

    /// `jpegEnd`, going on from `resume` when it is set; on `.needMore` it is set to where the
    /// next call on the same frame (with more bytes) can go on.
    static func jpegEnd(_ bytes: [UInt8], from start: Int, resume: inout JPEGResume?, maxPixels: Int = .max) -> Scan {
        var i: Int
        var inEntropyData = false
        if let r = resume, r.offset >= 2, start + r.offset <= bytes.count {
            i = start + r.offset
            inEntropyData = r.inEntropyData
        } else {
            guard bytes.count - start >= 2 else {
                return bytes.count > start && bytes[start] != 0xFF ? .invalid("it does not start with the JPEG SOI marker") : .needMore
            }
            guard bytes[start] == 0xFF, bytes[start + 1] == 0xD8 else { return .invalid("it does not start with the JPEG SOI marker") }
            i = start + 2
        }
        func pause(at index: Int, entropy: Bool) -> Scan {
            resume = JPEGResume(offset: index - start, inEntropyData: entropy)
            return .needMore
        }
        while true {
            if inEntropyData {
                switch entropyDataEnd(bytes, from: i) {
                case let .markerAt(index):
                    i = index
                    inEntropyData = false
                case let .needMore(safe):
                    return pause(at: safe, entropy: true)
                }
            }
            let markerStart = i
            guard i < bytes.count else { return pause(at: markerStart, entropy: false) }
            guard bytes[i] == 0xFF else {
                return .invalid("byte \(i - start) is \(hex(bytes[i])) where a marker (FF xx) should start")
            }
            while i < bytes.count, bytes[i] == 0xFF { i += 1 }   // fill bytes before a marker
            guard i < bytes.count else { return pause(at: markerStart, entropy: false) }
            let marker = bytes[i]
            i += 1
            switch marker {
            case 0xD9:
                return .end(i)
            case 0xD0...0xD7, 0x01:
                continue   // restart markers and TEM stand alone
            case 0x00, 0xD8:
                return .invalid("marker FF \(hex(marker)) at byte \(i - 2 - start) cannot appear between segments")
            default:
                guard bytes.count - i >= 2 else { return pause(at: markerStart, entropy: false) }
                let length = Int(bytes[i]) << 8 | Int(bytes[i + 1])
                guard length >= 2 else {
                    return .invalid("segment FF \(hex(marker)) at byte \(i - 2 - start) has length \(length), below 2")
                }
                guard bytes.count - i >= length else { return pause(at: markerStart, entropy: false) }
                // SOF0–SOF15 (not DHT C4, JPG C8, DAC CC): precision, height, width.
                if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC, length >= 7 {
                    let height = Int(bytes[i + 3]) << 8 | Int(bytes[i + 4])
                    let width = Int(bytes[i + 5]) << 8 | Int(bytes[i + 6])
                    if let refusal = pixelRefusal(width: width, height: height, maxPixels: maxPixels) { return .invalid(refusal) }
                }
                i += length
                if marker == 0xDA { inEntropyData = true }
            }
        }
    }

    private enum EntropyScan {
        /// The marker that ends the entropy-coded data starts here.
        case markerAt(Int)
        /// The bytes end first; everything before `safe` is known to be entropy data.
        case needMore(safe: Int)
    }

    private static func entropyDataEnd(_ bytes: [UInt8], from start: Int) -> EntropyScan {
        var i = start
        while true {
            guard let ff = bytes[i...].firstIndex(of: 0xFF) else { return .needMore(safe: bytes.count) }
            guard ff + 1 < bytes.count else { return .needMore(safe: ff) }
            let next = bytes[ff + 1]
            if next == 0x00 || (0xD0...0xD7).contains(next) {
                i = ff + 2
            } else if next == 0xFF {
                i = ff + 1
            } else {
                return .markerAt(ff)
            }
        }
    }

    /// Why a header's size is refused (above the pixel limit), or nil. A zero side is left to
    /// the decoder (a JPEG height of 0 is defined later by a DNL marker).
    private static func pixelRefusal(width: Int, height: Int, maxPixels: Int) -> String? {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard overflow || pixels > maxPixels else { return nil }
        return "its header claims \(width)x\(height) pixels, above the limit of \(maxPixels) pixels"
    }

    private static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
    }
}
