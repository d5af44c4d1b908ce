// Fuzz targets of the image codecs and the frame-stream readers.
import Foundation
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

func fuzzPNG(_ bytes: [UInt8]) {
    _ = try? PNGDecoder.decode(bytes, wants16Bit: bytes.count % 2 == 1, maxPixels: fuzzMaxPixels)
}

func fuzzJPEG(_ bytes: [UInt8]) {
    _ = try? JPEGDecoder.decode(bytes, maxPixels: fuzzMaxPixels)
}

/// The sniffer and every decoder behind it (PNG, JPEG, PPM/PGM/PBM, EXIF orientation).
func fuzzImageDecoder(_ bytes: [UInt8]) {
    _ = ImageDecoder.sniff(bytes)
    if let decoded = try? ImageDecoder.decode(bytes, wants16Bit: bytes.first.map { $0 & 1 == 1 } ?? false, maxPixels: fuzzMaxPixels) {
        _ = decoded.image.width
    }
    _ = try? PPMDecoder.decodeAll(bytes, maxPixels: fuzzMaxPixels)
}

/// The chunk size the stream targets read with: from the input's last byte, so the fuzzer
/// explores frame boundaries that fall across chunks (1…256 bytes, or one big chunk).
private func chunkSize(_ bytes: [UInt8]) -> Int {
    guard let last = bytes.last else { return 1 }
    return last == 0xFF ? 1 << 20 : Int(last) + 1
}

func fuzzPPMStream(_ bytes: [UInt8]) {
    let reader = PPMStreamReader(source: ChunkedInput.chunks(of: bytes, chunkSize: chunkSize(bytes)),
                                 wants16Bit: bytes.first.map { $0 & 1 == 1 } ?? false, maxPixels: fuzzMaxPixels)
    for _ in 0..<64 {
        guard let frame = try? reader.nextFrame() else { return }
        _ = frame.image.width
    }
}

func fuzzImageStream(_ bytes: [UInt8]) {
    let reader = ImageStreamReader(bytes: bytes, chunkSize: chunkSize(bytes), maxPixels: fuzzMaxPixels)
    for _ in 0..<64 {
        do {
            guard try reader.nextFrame() != nil else { return }
        } catch {
            _ = error.description
            if !reader.canContinue { return }
        }
    }
}
