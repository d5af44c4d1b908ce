import Foundation
import DetectorCore

/// `objdetect image-info FILE [--json]`: decodes an image and reports its format, size, bit
/// depth, colour type, orientation and the SHA-256 of its canonical RGBA8 buffer
/// (the contract of `shared/goldens/README-images.md`).
enum ImageInfoCommand {
    static let spec = CommandSpec(
        name: "image-info", usage: "objdetect image-info FILE [options]",
        summary: "decode an image; print format, size, bit depth, colour type, orientation, rgba8_sha256",
        options: [CommonOptions.format(["json", "text"], default: "text"), CommonOptions.json, CommonOptions.pretty])

    static let subcommand = Subcommand(spec: spec, handler: run)

    static func run(_ args: ParsedOptions) throws -> Int32 {
        guard args.positional.count == 1 else { throw UsageError("image-info takes one FILE, got \(args.positional.count)") }
        let format = try CommonOptions.chosenFormat(args, fallback: "text")
        try CommonOptions.rejectPretty(args, format: format)
        let json = format == "json"
        let path = args.positional[0]
        let decoded = try ImageDecoder.decode(contentsOf: path)
        let rgba = decoded.image.converted(to: .rgba8)
        let hash = SHA256Hash.hexDigest(rgba.pixels)
        // The upright picture (EXIF orientation applied), as the JPEG goldens' rgba8_oriented_sha256.
        let upright = decoded.orientation.map { rgba.applyingOrientation($0) } ?? rgba
        let uprightHash = decoded.orientation == nil || decoded.orientation == .up ? hash : SHA256Hash.hexDigest(upright.pixels)
        if json {
            let info = ImageInfoJSON(
                format: decoded.format.rawValue, width: decoded.image.width, height: decoded.image.height,
                bitDepth: decoded.bitDepth, colorType: decoded.colorType,
                orientation: Nullable(decoded.orientation?.exifValue), orientationName: Nullable(decoded.orientation?.name),
                rgba8SHA256: hash, uprightWidth: upright.width, uprightHeight: upright.height, uprightRGBA8SHA256: uprightHash)
            try printJSON(info, pretty: args.flag("--pretty"))
        } else {
            try writeLine("format:       \(decoded.format.rawValue)")
            try writeLine("size:         \(decoded.image.width)x\(decoded.image.height)")
            try writeLine("bit depth:    \(decoded.bitDepth)")
            try writeLine("colour type:  \(decoded.colorType)")
            try writeLine("orientation:  \(decoded.orientation.map { "\($0.name) (EXIF \($0.exifValue))" } ?? "none")")
            try writeLine("rgba8_sha256: \(hash)")
            try writeLine("upright:      \(upright.width)x\(upright.height), rgba8_sha256 \(uprightHash)")
        }
        return 0
    }
}

/// `image-info --json`, under the keys of `goldens/README-images.md`.
struct ImageInfoJSON: Encodable {
    let format: String
    let width: Int
    let height: Int
    let bitDepth: Int
    let colorType: String
    let orientation: Nullable<Int>
    let orientationName: Nullable<String>
    let rgba8SHA256: String
    let uprightWidth: Int
    let uprightHeight: Int
    let uprightRGBA8SHA256: String

    enum CodingKeys: String, CodingKey {
        case format, width, height, bitDepth = "bit_depth", colorType = "color_type", orientation
        case orientationName = "orientation_name", rgba8SHA256 = "rgba8_sha256", uprightWidth = "upright_width"
        case uprightHeight = "upright_height", uprightRGBA8SHA256 = "upright_rgba8_sha256"
    }
}
