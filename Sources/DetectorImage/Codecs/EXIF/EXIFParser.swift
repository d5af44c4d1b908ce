import DetectorZlib
import DetectorPlatform
/// Why a TIFF/EXIF block could not be read.
package enum EXIFError: Error, Equatable, CustomStringConvertible {
    /// The block is shorter than the 8-byte TIFF header.
    case truncatedHeader(length: Int)
    /// The first two bytes are neither `II` nor `MM`.
    case badByteOrder
    /// The number after the byte order is not 42.
    case badMagic(Int)
    /// An offset or an IFD entry lies outside the block.
    case outOfBounds(offset: Int, length: Int)

    package var description: String {
        switch self {
        case let .truncatedHeader(length):
            return "EXIF block of \(length) bytes is too short to hold the 8-byte TIFF header"
        case .badByteOrder:
            return "EXIF block does not start with the TIFF byte order mark II or MM"
        case let .badMagic(value):
            return "EXIF TIFF header holds \(value) where the number 42 must be"
        case let .outOfBounds(offset, length):
            return "EXIF IFD data at byte offset \(offset) lies outside the \(length)-byte TIFF block"
        }
    }
}

/// Reads the EXIF `Orientation` tag (0x0112) from IFD0 of a TIFF block, as stored in a JPEG
/// APP1 `Exif\0\0` segment (after those 6 bytes) or a PNG `eXIf` chunk.
///
/// Both byte orders are read; every offset is bounds-checked, so any byte string is safe input.
///
/// ```swift
/// let orientation = EXIFParser.orientation(fromTIFF: tiffBytes[...])   // e.g. .right for 6
/// ```
package enum EXIFParser {
    /// The EXIF orientation tag number.
    package static let orientationTag = 0x0112

    /// The orientation recorded in IFD0, or nil when the block is malformed, has no
    /// Orientation tag, or holds a value outside 1...8.
    package static func orientation(fromTIFF bytes: ArraySlice<UInt8>) -> ImageOrientation? {
        guard let raw = try? rawOrientation(fromTIFF: bytes) else { return nil }
        return ImageOrientation(exif: raw)
    }

    /// The stored Orientation value (any number, not checked against 1...8), nil when IFD0 has
    /// no Orientation tag of type SHORT or LONG with count 1. Throws when the TIFF header or
    /// IFD0 is malformed.
    package static func rawOrientation(fromTIFF bytes: ArraySlice<UInt8>) throws -> Int? {
        let reader = TIFFReader(bytes: bytes)
        guard bytes.count >= 8 else { throw EXIFError.truncatedHeader(length: bytes.count) }
        let b0 = reader.byte(0), b1 = reader.byte(1)
        let littleEndian: Bool
        if b0 == 0x49 && b1 == 0x49 { littleEndian = true }
        else if b0 == 0x4D && b1 == 0x4D { littleEndian = false }
        else { throw EXIFError.badByteOrder }
        let magic = reader.uint16(at: 2, littleEndian: littleEndian)
        guard magic == 42 else { throw EXIFError.badMagic(magic) }
        let ifd0 = reader.uint32(at: 4, littleEndian: littleEndian)
        // IFD0: 2-byte entry count, then 12-byte entries.
        guard ifd0 >= 0, ifd0 <= bytes.count - 2 else {
            throw EXIFError.outOfBounds(offset: ifd0, length: bytes.count)
        }
        let count = reader.uint16(at: ifd0, littleEndian: littleEndian)
        for index in 0..<count {
            let entry = ifd0 + 2 + index * 12
            guard entry <= bytes.count - 12 else {
                throw EXIFError.outOfBounds(offset: entry, length: bytes.count)
            }
            let tag = reader.uint16(at: entry, littleEndian: littleEndian)
            guard tag == orientationTag else { continue }
            let type = reader.uint16(at: entry + 2, littleEndian: littleEndian)
            let valueCount = reader.uint32(at: entry + 4, littleEndian: littleEndian)
            guard valueCount == 1 else { return nil }
            switch type {
            case 3: return reader.uint16(at: entry + 8, littleEndian: littleEndian)   // SHORT
            case 4: return reader.uint32(at: entry + 8, littleEndian: littleEndian)   // LONG
            default: return nil
            }
        }
        return nil
    }
}

/// Bounds-trusting little helpers over a slice; callers check offsets first.
private struct TIFFReader {
    let bytes: ArraySlice<UInt8>

    func byte(_ offset: Int) -> Int { Int(bytes[bytes.startIndex + offset]) }

    func uint16(at offset: Int, littleEndian: Bool) -> Int {
        let a = byte(offset), b = byte(offset + 1)
        return littleEndian ? a | (b << 8) : (a << 8) | b
    }

    func uint32(at offset: Int, littleEndian: Bool) -> Int {
        let a = byte(offset), b = byte(offset + 1), c = byte(offset + 2), d = byte(offset + 3)
        return littleEndian ? a | (b << 8) | (c << 16) | (d << 24) : (a << 24) | (b << 16) | (c << 8) | d
    }
}
