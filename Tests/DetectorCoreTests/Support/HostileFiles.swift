import Foundation
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Builders for small files whose headers lie about their size: PNG chunks, ZIP archives and
/// deflate bombs, made byte by byte so each test states exactly what the file claims.
enum HostileFiles {
    static func bigEndian32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    static func littleEndian16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
    static func littleEndian32(_ v: Int) -> [UInt8] { littleEndian16(v & 0xFFFF) + littleEndian16((v >> 16) & 0xFFFF) }

    /// One PNG chunk: length, type, body, CRC-32 of type and body.
    static func pngChunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        return bigEndian32(UInt32(body.count)) + typed + bigEndian32(CRC32.checksum(typed))
    }

    /// The IHDR body of a `width` x `height` image (8-bit samples, `colorType` 0 gray, 2 RGB, 6 RGBA).
    static func ihdr(width: UInt32, height: UInt32, colorType: UInt8 = 0) -> [UInt8] {
        bigEndian32(width) + bigEndian32(height) + [8, colorType, 0, 0, 0]
    }

    /// A whole PNG: signature, IHDR, the extra chunks, one IDAT, IEND.
    static func png(width: UInt32, height: UInt32, colorType: UInt8 = 0, idat: [UInt8],
                    before: [[UInt8]] = []) -> [UInt8] {
        PNGDecoder.signature + pngChunk("IHDR", ihdr(width: width, height: height, colorType: colorType))
            + before.joined() + pngChunk("IDAT", idat) + pngChunk("IEND", [])
    }

    /// `count` zero bytes, deflated (raw DEFLATE, no zlib wrapper): about 1,000 times smaller.
    static func deflatedZeros(_ count: Int) -> [UInt8] {
        Deflate.compressRaw([UInt8](repeating: 0, count: count), level: 9)
    }

    /// One member of `zip(_:)`: `payload` is stored as is; `claimedSize` and `crc` go in both headers.
    struct ZipMember {
        var name: String
        var method: Int
        var payload: [UInt8]
        var claimedSize: Int
        var crc: UInt32
    }

    /// A ZIP archive (local headers, central directory, end record) holding `members`.
    static func zip(_ members: [ZipMember], prefix: [UInt8] = []) -> [UInt8] {
        var out = prefix
        var central: [UInt8] = []
        for m in members {
            let offset = out.count
            let name = Array(m.name.utf8)
            let sizes = littleEndian32(Int(m.crc)) + littleEndian32(m.payload.count) + littleEndian32(m.claimedSize)
            out += littleEndian32(0x0403_4B50) + littleEndian16(20) + littleEndian16(0) + littleEndian16(m.method)
                + littleEndian32(0) + sizes + littleEndian16(name.count) + littleEndian16(0) + name + m.payload
            central += littleEndian32(0x0201_4B50) + littleEndian16(20) + littleEndian16(20) + littleEndian16(0)
                + littleEndian16(m.method) + littleEndian32(0) + sizes + littleEndian16(name.count)
                + littleEndian16(0) + littleEndian16(0) + littleEndian16(0) + littleEndian16(0) + littleEndian32(0)
                + littleEndian32(offset) + name
        }
        let directoryOffset = out.count
        out += central
        out += littleEndian32(0x0605_4B50) + littleEndian16(0) + littleEndian16(0) + littleEndian16(members.count)
            + littleEndian16(members.count) + littleEndian32(central.count) + littleEndian32(directoryOffset) + littleEndian16(0)
        return out
    }
}
