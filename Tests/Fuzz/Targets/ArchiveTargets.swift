// Fuzz targets of inflate (raw and zlib) and the ZIP reader.
import Foundation
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The first byte picks the mode: raw deflate, zlib, or (for inputs up to 512 bytes) a round
/// trip through our own compressor, which must give the input back. Output is capped at 64 KiB.
/// The round trip was allowed up to 4 KiB at first; the compressor's match search and code
/// building then took about 90% of the target's time under the sanitizers (perf), for a quarter
/// of its inputs, and kept the inflate campaign near 500 executions a second.
func fuzzInflate(_ bytes: [UInt8]) {
    guard let mode = bytes.first else { return }
    let body = Array(bytes.dropFirst())
    switch mode % 4 {
    case 0 where body.count <= 512:
        let packed = Zlib.compress(body, level: Int(mode >> 2) % 10)
        let unpacked = try? Zlib.decompress(packed, maxOutputSize: body.count)
        guard unpacked == body else { fatalError("zlib round trip of \(body.count) bytes at level \(Int(mode >> 2) % 10) differs") }
    case 1:
        _ = try? Zlib.decompress(body, maxOutputSize: 1 << 16)
    default:
        _ = try? Inflate.decompressRaw(body, maxOutputSize: 1 << 16)
    }
}

func fuzzZip(_ bytes: [UInt8]) {
    guard let archive = try? ZipArchive(storage: ByteStorage(copying: bytes)) else { return }
    for entry in archive.entries {
        _ = try? archive.contents(of: entry)
    }
    _ = try? archive.contents(named: "labels.txt")
}
