import DetectorZlib
import DetectorPlatform
/// Writes Netpbm images: `.gray8` as P5, `.rgb8` and `.rgba8` as P6 (alpha dropped), `.rgba16`
/// as P6 with maxval 65535 (alpha dropped).
///
/// ```swift
/// let bytes = PPMEncoder.encode(image)    // "P6\n640 480\n255\n" + raster
/// ```
public enum PPMEncoder {
    public static func encode(_ image: ImageBuffer) -> [UInt8] {
        let magic = image.format == .gray8 ? "P5" : "P6"
        let maxval = image.format == .rgba16 ? 65535 : 255
        var out = Array("\(magic)\n\(image.width) \(image.height)\n\(maxval)\n".utf8)
        let pixelCount = image.width * image.height
        switch image.format {
        case .gray8, .rgb8:
            out.append(contentsOf: image.pixels)
        case .rgba8:
            out.reserveCapacity(out.count + pixelCount * 3)
            for p in 0..<pixelCount {
                out.append(image.pixels[4 * p]); out.append(image.pixels[4 * p + 1]); out.append(image.pixels[4 * p + 2])
            }
        case .rgba16:
            out.reserveCapacity(out.count + pixelCount * 6)
            for p in 0..<pixelCount { out.append(contentsOf: image.pixels[(8 * p)..<(8 * p + 6)]) }
        }
        return out
    }
}
