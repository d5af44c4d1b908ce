/// The zlib container (RFC 1950): a two-byte header, a DEFLATE stream, and the Adler-32 of
/// the uncompressed data. PNG's image data is one zlib stream.
///
/// ```swift
/// let packed = Zlib.compress(Array("hello hello hello".utf8), level: 6)
/// let unpacked = try Zlib.decompress(packed, maxOutputSize: 1 << 20)
/// ```
package enum Zlib {
    /// Decompresses a zlib stream and verifies its Adler-32. Bytes after the checksum are ignored.
    /// - Parameter maxOutputSize: the largest output accepted.
    package static func decompress(_ bytes: [UInt8], maxOutputSize: Int) throws(InflateError) -> [UInt8] {
        try decompress(bytes, maxOutputSize: maxOutputSize, expectedSize: nil)
    }

    /// Decompresses a zlib stream; `expectedSize` (when known, as in PNG) sizes the output buffer once.
    package static func decompress(_ bytes: [UInt8], maxOutputSize: Int, expectedSize: Int?) throws(InflateError) -> [UInt8] {
        guard bytes.count >= 2 else { throw .invalidZlibHeader(reason: "the stream has \(bytes.count) bytes, fewer than the 2-byte header") }
        let cmf = Int(bytes[0]), flg = Int(bytes[1])
        guard cmf & 0x0F == 8 else { throw .invalidZlibHeader(reason: "compression method \(cmf & 0x0F), only 8 (deflate) exists") }
        guard cmf >> 4 <= 7 else { throw .invalidZlibHeader(reason: "window size code \(cmf >> 4) is above 7") }
        guard (cmf << 8 | flg) % 31 == 0 else { throw .invalidZlibHeader(reason: "header check bits are wrong (CMF*256+FLG is not a multiple of 31)") }
        guard flg & 0x20 == 0 else { throw .invalidZlibHeader(reason: "a preset dictionary is required, which this decoder does not have") }
        var result: Result<(output: [UInt8], consumed: Int), InflateError> = .failure(.truncated(byteOffset: 0))
        bytes.withUnsafeBytes { raw in
            let body = UnsafeRawBufferPointer(rebasing: raw[2...])
            result = Result { () throws(InflateError) in
                try Inflate.decompressRaw(body, maxOutputSize: maxOutputSize, expectedSize: expectedSize)
            }
        }
        let (output, consumed) = try result.get()
        let trailer = 2 + consumed
        guard trailer + 4 <= bytes.count else { throw .truncated(byteOffset: bytes.count) }
        let stored = UInt32(bytes[trailer]) << 24 | UInt32(bytes[trailer + 1]) << 16
            | UInt32(bytes[trailer + 2]) << 8 | UInt32(bytes[trailer + 3])
        let actual = Adler32.checksum(output)
        guard stored == actual else { throw .adlerMismatch(expected: stored, actual: actual) }
        return output
    }

    /// Compresses `bytes` into a zlib stream. `level` 0 stores; 1...9 trade speed for size (6 is the usual default).
    package static func compress(_ bytes: [UInt8], level: Int = 6) -> [UInt8] {
        let flg: UInt8
        switch level {
        case ...1: flg = 0x01
        case 2...5: flg = 0x5E
        case 6: flg = 0x9C
        default: flg = 0xDA
        }
        return wrap(Deflate.compressRaw(bytes, level: level), flg: flg, checksumOf: bytes)
    }

    /// Compresses `bytes` into a zlib stream with `Deflate.compressRuns` (runs only, no other
    /// matches: fast, and close to level 6 on filtered image rows).
    package static func compressRuns(_ bytes: [UInt8]) -> [UInt8] {
        wrap(Deflate.compressRuns(bytes), flg: 0x01, checksumOf: bytes)   // FLEVEL 0: the fastest algorithm
    }

    /// Header (deflate, 32 KiB window; `(0x78 << 8 | flg) % 31 == 0`), the DEFLATE data, the Adler-32 of the input.
    private static func wrap(_ deflated: [UInt8], flg: UInt8, checksumOf bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, flg]
        out.reserveCapacity(deflated.count + 6)
        out += deflated
        let adler = Adler32.checksum(bytes)
        out += [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)]
        return out
    }
}
