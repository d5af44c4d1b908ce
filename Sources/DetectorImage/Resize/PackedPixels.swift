import DetectorZlib
import DetectorPlatform
/// Pixels as the resamplers read them: 1 channel (gray) or 3 channels (RGB), interleaved,
/// 8 bits, no padding. rgba8 drops alpha; rgba16 keeps the high byte of R, G, B.
struct PackedPixels {
    let width: Int
    let height: Int
    /// 1 or 3.
    let channels: Int
    let bytes: [UInt8]

    init(_ image: ImageBuffer) {
        width = image.width
        height = image.height
        switch image.format {
        case .gray8:
            channels = 1
            bytes = image.pixels
        case .rgb8:
            channels = 3
            bytes = image.pixels
        case .rgba8, .rgba16:
            channels = 3
            let stride = image.format.bytesPerPixel      // 4 or 8
            let step = image.format == .rgba16 ? 2 : 1   // high byte of each big-endian sample
            let count = image.width * image.height
            var out = [UInt8](repeating: 0, count: count * 3)
            image.pixels.withUnsafeBufferPointer { s in
                out.withUnsafeMutableBufferPointer { d in
                    for i in 0..<count {
                        let p = i * stride
                        d[3 * i] = s[p]
                        d[3 * i + 1] = s[p + step]
                        d[3 * i + 2] = s[p + 2 * step]
                    }
                }
            }
            bytes = out
        }
    }

    init(width: Int, height: Int, channels: Int, bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.bytes = bytes
    }
}
