import DetectorZlib
/// One file of a ZIP archive (from its central directory entry).
package struct ZipEntry: Sendable, Equatable {
    package var name: String
    /// 0 = stored, 8 = deflated (others are not supported).
    package var method: UInt16
    /// Where the (possibly compressed) bytes lie in the storage.
    package var dataRange: ByteRange
    package var uncompressedSize: Int
    package var crc32: UInt32
}

/// Why an associated file could not be read from the appended ZIP archive.
package enum ZipArchiveError: Error, CustomStringConvertible, Equatable, Sendable {
    case malformed(offset: Int, reason: String)
    case unsupported(entry: String, reason: String)
    case checksumMismatch(entry: String, expected: UInt32, found: UInt32)
    case inflateFailed(entry: String, reason: String)

    package var description: String {
        switch self {
        case let .malformed(offset, reason): return "malformed ZIP archive at byte offset \(offset): \(reason)"
        case let .unsupported(entry, reason): return "ZIP entry '\(entry)' cannot be read: \(reason)"
        case let .checksumMismatch(entry, expected, found):
            return "ZIP entry '\(entry)' is corrupt: CRC-32 is \(String(found, radix: 16)), expected \(String(expected, radix: 16))"
        case let .inflateFailed(entry, reason): return "ZIP entry '\(entry)' could not be inflated: \(reason)"
        }
    }
}

/// The ZIP archive appended to a `.tflite` file by the metadata populator (label files, score
/// calibration files…). Only the central directory is read at init; contents are read on demand.
/// Offsets are corrected for bytes before the archive (the model), as ZIP readers do for
/// self-extracting files.
///
/// ```swift
/// if let archive = try ZipArchive(storage: model.storage) {
///     let labels = try archive.contents(named: "labelmap.txt")
/// }
/// ```
package struct ZipArchive: Sendable {
    package let storage: ByteStorage
    package let entries: [ZipEntry]
    /// Largest uncompressed entry this reader will produce.
    package static let maxEntrySize = 64 << 20

    /// Reads the archive at the end of `storage`; nil when there is no end-of-central-directory record.
    package init?(storage: ByteStorage) throws {
        let bytes = storage.bytes
        let size = bytes.count
        guard size >= 22 else { return nil }
        func u16(_ p: Int) -> Int { Int(bytes[p]) | Int(bytes[p + 1]) << 8 }
        func u32(_ p: Int) -> Int { u16(p) | u16(p + 2) << 16 }
        // Find the end record: signature PK\5\6 whose comment runs exactly to the end of the file.
        var eocd: Int?
        var p = size - 22
        let lowest = max(0, size - 22 - 0xFFFF)
        while p >= lowest {
            if bytes[p] == 0x50, bytes[p + 1] == 0x4B, bytes[p + 2] == 0x05, bytes[p + 3] == 0x06,
               p + 22 + u16(p + 20) == size {
                eocd = p
                break
            }
            p -= 1
        }
        guard let end = eocd else { return nil }
        let entryCount = u16(end + 10)
        let directorySize = u32(end + 12)
        let directoryOffset = u32(end + 16)
        if directoryOffset == 0xFFFF_FFFF || entryCount == 0xFFFF {
            throw ZipArchiveError.malformed(offset: end, reason: "ZIP64 archives are not supported")
        }
        // Bytes before the archive (the model) shift every offset.
        let bias = end - directorySize - directoryOffset
        guard directorySize <= end, bias >= 0 else {
            throw ZipArchiveError.malformed(offset: end, reason: "central directory (\(directorySize) bytes at \(directoryOffset)) does not end at the end record")
        }
        guard entryCount <= directorySize / 46 else {
            throw ZipArchiveError.malformed(offset: end, reason: "\(entryCount) entries cannot fit in a \(directorySize)-byte directory")
        }
        var entries: [ZipEntry] = []
        var q = directoryOffset + bias
        for _ in 0..<entryCount {
            guard q + 46 <= end, u32(q) == 0x0201_4B50 else {
                throw ZipArchiveError.malformed(offset: q, reason: "expected a central directory entry")
            }
            let method = UInt16(u16(q + 10))
            let crc = UInt32(u32(q + 16))
            let compressed = u32(q + 20)
            let uncompressed = u32(q + 24)
            let nameLength = u16(q + 28), extraLength = u16(q + 30), commentLength = u16(q + 32)
            let local = u32(q + 42) + bias
            guard q + 46 + nameLength + extraLength + commentLength <= end else {
                throw ZipArchiveError.malformed(offset: q, reason: "entry name runs past the directory")
            }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(q + 46)..<(q + 46 + nameLength)]), as: UTF8.self)
            guard local + 30 <= size, u32(local) == 0x0403_4B50 else {
                throw ZipArchiveError.malformed(offset: local, reason: "entry '\(name)' has no local header here")
            }
            // Without a data descriptor (flag bit 3) the local header repeats the sizes; a
            // member whose two headers disagree is refused rather than trusted either way.
            if u16(local + 6) & 8 == 0, u32(local + 18) != compressed || u32(local + 22) != uncompressed {
                throw ZipArchiveError.malformed(offset: local, reason: "entry '\(name)' has sizes \(u32(local + 18))/\(u32(local + 22)) in its local header but \(compressed)/\(uncompressed) in the central directory")
            }
            let dataStart = local + 30 + u16(local + 26) + u16(local + 28)
            guard dataStart <= size, compressed <= size - dataStart else {
                throw ZipArchiveError.malformed(offset: local, reason: "entry '\(name)' data (\(compressed) bytes) runs past the end of the file")
            }
            entries.append(ZipEntry(name: name, method: method, dataRange: ByteRange(offset: dataStart, count: compressed),
                                    uncompressedSize: uncompressed, crc32: crc))
            q += 46 + nameLength + extraLength + commentLength
        }
        self.storage = storage
        self.entries = entries
    }

    /// The entry called `name`, if any.
    package func entry(named name: String) -> ZipEntry? {
        entries.first { $0.name == name }
    }

    /// The uncompressed contents of `entry`, checked against its CRC-32.
    package func contents(of entry: ZipEntry) throws -> [UInt8] {
        guard entry.uncompressedSize <= Self.maxEntrySize else {
            throw ZipArchiveError.unsupported(entry: entry.name, reason: "\(entry.uncompressedSize) bytes is over the \(Self.maxEntrySize)-byte limit")
        }
        let raw = storage.slice(entry.dataRange)
        let result: [UInt8]
        switch entry.method {
        case 0:
            guard raw.count == entry.uncompressedSize else {
                throw ZipArchiveError.malformed(offset: entry.dataRange.offset, reason: "stored entry '\(entry.name)' has \(raw.count) bytes, directory says \(entry.uncompressedSize)")
            }
            result = Array(raw)
        case 8:
            result = try ZipInflater.inflate(raw, expectedSize: entry.uncompressedSize, entry: entry.name)
        default:
            throw ZipArchiveError.unsupported(entry: entry.name, reason: "compression method \(entry.method) (only stored and deflated are supported)")
        }
        let crc = CRC32.checksum(result)
        guard crc == entry.crc32 else {
            throw ZipArchiveError.checksumMismatch(entry: entry.name, expected: entry.crc32, found: crc)
        }
        return result
    }

    /// The contents of the entry called `name`, or nil when there is none.
    package func contents(named name: String) throws -> [UInt8]? {
        guard let e = entry(named: name) else { return nil }
        return try contents(of: e)
    }
}
