import DetectorZlib
import DetectorPlatform
/// The fields of a PNG IHDR chunk, validated.
struct PNGHeader: Sendable, Equatable {
    let width: Int
    let height: Int
    let bitDepth: Int
    let colorType: Int
    let interlaced: Bool

    /// Samples per pixel for the colour type.
    var channels: Int {
        switch colorType {
        case 0, 3: return 1
        case 4: return 2
        case 2: return 3
        default: return 4
        }
    }

    /// Bytes per complete pixel, at least 1: the distance filters look back.
    var filterStride: Int { max(1, channels * bitDepth / 8) }

    var colorTypeName: String {
        switch colorType {
        case 0: return "gray"
        case 2: return "rgb"
        case 3: return "palette"
        case 4: return "gray+alpha"
        default: return "rgba"
        }
    }

    /// Parses the 13-byte IHDR body.
    init(_ d: ArraySlice<UInt8>) throws(PNGError) {
        guard d.count == 13 else { throw .invalidHeader(reason: "IHDR is \(d.count) bytes long, not 13") }
        let s = d.startIndex
        func u32(_ i: Int) -> Int {
            Int(d[s + i]) << 24 | Int(d[s + i + 1]) << 16 | Int(d[s + i + 2]) << 8 | Int(d[s + i + 3])
        }
        width = u32(0)
        height = u32(4)
        bitDepth = Int(d[s + 8])
        colorType = Int(d[s + 9])
        let compression = d[s + 10], filter = d[s + 11], interlace = d[s + 12]
        guard width >= 1, width <= 0x7FFF_FFFF, height >= 1, height <= 0x7FFF_FFFF else {
            throw .invalidHeader(reason: "size \(width)x\(height) is outside 1...2^31-1")
        }
        let allowed: [Int]
        switch colorType {
        case 0: allowed = [1, 2, 4, 8, 16]
        case 3: allowed = [1, 2, 4, 8]
        case 2, 4, 6: allowed = [8, 16]
        default: throw .invalidHeader(reason: "colour type \(colorType) does not exist (0, 2, 3, 4, 6 do)")
        }
        guard allowed.contains(bitDepth) else {
            throw .invalidHeader(reason: "bit depth \(bitDepth) is not allowed for colour type \(colorType) (allowed: \(allowed.map(String.init).joined(separator: ", ")))")
        }
        guard compression == 0 else { throw .invalidHeader(reason: "compression method \(compression) (only 0 exists)") }
        guard filter == 0 else { throw .invalidHeader(reason: "filter method \(filter) (only 0 exists)") }
        guard interlace <= 1 else { throw .invalidHeader(reason: "interlace method \(interlace) (only 0 and 1 exist)") }
        interlaced = interlace == 1
    }

    /// One image (the whole image, or one Adam7 pass): where its pixels go and how big its data is.
    struct Pass {
        let index: Int          // 0 for a non-interlaced image, 1...7 for Adam7 passes
        let x0, y0, dx, dy: Int
        let width, height: Int
        let rowBytes: Int       // without the filter byte
    }

    /// The passes with at least one pixel, in file order.
    func passes() -> [Pass] {
        let bitsPerPixel = channels * bitDepth
        func rowBytes(_ w: Int) -> Int { (w * bitsPerPixel + 7) / 8 }
        if !interlaced {
            return [Pass(index: 0, x0: 0, y0: 0, dx: 1, dy: 1, width: width, height: height, rowBytes: rowBytes(width))]
        }
        let adam7: [(Int, Int, Int, Int)] = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
                                            (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        var result: [Pass] = []
        for (i, (x0, y0, dx, dy)) in adam7.enumerated() {
            let w = width > x0 ? (width - x0 + dx - 1) / dx : 0
            let h = height > y0 ? (height - y0 + dy - 1) / dy : 0
            if w > 0 && h > 0 {
                result.append(Pass(index: i + 1, x0: x0, y0: y0, dx: dx, dy: dy, width: w, height: h, rowBytes: rowBytes(w)))
            }
        }
        return result
    }
}
