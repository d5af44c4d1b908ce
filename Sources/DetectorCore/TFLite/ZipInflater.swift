/// Inflates deflated ZIP entries. The project's raw-DEFLATE decoder lives with the PNG codec
/// (branch `codecs-png`); until it is merged, deflated entries are reported as unsupported.
enum ZipInflater {
    static func inflate(_ raw: UnsafeRawBufferPointer, expectedSize: Int, entry: String) throws -> [UInt8] {
        throw ZipArchiveError.unsupported(entry: entry, reason: "deflated entries need the project's inflate (not yet merged)")
    }
}
