import DetectorZlib
/// Inflates deflated ZIP entries with the project's raw-DEFLATE decoder (`Inflate`, Codecs/Zlib).
enum ZipInflater {
    static func inflate(_ raw: UnsafeRawBufferPointer, expectedSize: Int, entry: String) throws -> [UInt8] {
        let out: [UInt8]
        do {
            // The claimed size sizes the first buffer (as far as the input could reach it).
            out = try Inflate.decompressRaw(raw, maxOutputSize: expectedSize, expectedSize: expectedSize).output
        } catch {
            throw ZipArchiveError.inflateFailed(entry: entry, reason: error.description)
        }
        guard out.count == expectedSize else {
            throw ZipArchiveError.inflateFailed(entry: entry, reason: "produced \(out.count) bytes, directory says \(expectedSize)")
        }
        return out
    }
}
