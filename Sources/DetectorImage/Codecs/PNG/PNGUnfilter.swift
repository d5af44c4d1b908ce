import DetectorZlib
import DetectorPlatform
/// Reverses PNG's five scanline filters (None, Sub, Up, Average, Paeth) in place.
enum PNGUnfilter {
    /// Unfilters one row. `row` points at the row's data (after its filter byte), `prior`
    /// at the previous row of the same pass already unfiltered (all zeros for the first row).
    /// `stride` is bytes per complete pixel (at least 1). Returns false for an unknown filter.
    @inline(__always)
    static func unfilterRow(filter: UInt8, row: UnsafeMutablePointer<UInt8>, prior: UnsafePointer<UInt8>,
                            count n: Int, stride bpp: Int) -> Bool {
        switch filter {
        case 0:
            return true
        case 1:
            var i = bpp
            while i < n { row[i] = row[i] &+ row[i - bpp]; i += 1 }
        case 2:
            var i = 0
            while i + 8 <= n {
                let a = UnsafeRawPointer(row + i).loadUnaligned(as: SIMD8<UInt8>.self)
                let b = UnsafeRawPointer(prior + i).loadUnaligned(as: SIMD8<UInt8>.self)
                UnsafeMutableRawPointer(row + i).storeBytes(of: a &+ b, as: SIMD8<UInt8>.self)
                i += 8
            }
            while i < n { row[i] = row[i] &+ prior[i]; i += 1 }
        case 3:
            var i = 0
            while i < min(bpp, n) { row[i] = row[i] &+ (prior[i] >> 1); i += 1 }
            while i < n {
                row[i] = row[i] &+ UInt8(truncatingIfNeeded: (Int(row[i - bpp]) + Int(prior[i])) >> 1)
                i += 1
            }
        case 4:
            var i = 0
            // First pixel: left and upper-left are zero, so Paeth picks the byte above.
            while i < min(bpp, n) { row[i] = row[i] &+ prior[i]; i += 1 }
            switch bpp {
            case 3: paethSIMD(row, prior, n, 3)
            case 4: paethSIMD(row, prior, n, 4)
            default: paeth(row, prior, n, bpp, from: bpp)
            }
        default:
            return false
        }
        return true
    }

    /// Paeth for 3- and 4-byte pixels, one pixel's channels per vector (the left-neighbour
    /// dependency runs across pixels, so lanes are channels). Pixels whose 4-byte load would
    /// pass the row end finish in the scalar loop.
    @inline(__always)
    private static func paethSIMD(_ row: UnsafeMutablePointer<UInt8>, _ prior: UnsafePointer<UInt8>, _ n: Int, _ bpp: Int) {
        guard n >= bpp + 4 else { paeth(row, prior, n, bpp, from: bpp); return }
        var a = SIMD4<Int16>(truncatingIfNeeded: UnsafeRawPointer(row).loadUnaligned(as: SIMD4<UInt8>.self))
        var c = SIMD4<Int16>(truncatingIfNeeded: UnsafeRawPointer(prior).loadUnaligned(as: SIMD4<UInt8>.self))
        var i = bpp
        while i + 4 <= n {
            let b = SIMD4<Int16>(truncatingIfNeeded: UnsafeRawPointer(prior + i).loadUnaligned(as: SIMD4<UInt8>.self))
            let raw = SIMD4<Int16>(truncatingIfNeeded: UnsafeRawPointer(row + i).loadUnaligned(as: SIMD4<UInt8>.self))
            let dbc = b &- c, dac = a &- c
            let pa = dbc.replacing(with: 0 &- dbc, where: dbc .< 0)
            let pb = dac.replacing(with: 0 &- dac, where: dac .< 0)
            let sum = dbc &+ dac
            let pc = sum.replacing(with: 0 &- sum, where: sum .< 0)
            let predictor = c.replacing(with: b, where: pb .<= pc).replacing(with: a, where: (pa .<= pb) .& (pa .<= pc))
            let result = (raw &+ predictor) & 0xFF
            row[i] = UInt8(truncatingIfNeeded: result[0])
            row[i + 1] = UInt8(truncatingIfNeeded: result[1])
            row[i + 2] = UInt8(truncatingIfNeeded: result[2])
            if bpp == 4 { row[i + 3] = UInt8(truncatingIfNeeded: result[3]) }
            a = result
            c = b
            i += bpp
        }
        paeth(row, prior, n, bpp, from: i)
    }

    /// Scalar Paeth from byte `start` (at least `bpp`) to the row end.
    @inline(__always)
    private static func paeth(_ row: UnsafeMutablePointer<UInt8>, _ prior: UnsafePointer<UInt8>, _ n: Int, _ bpp: Int, from start: Int) {
        var i = start
        while i < n {
            let a = Int(row[i - bpp]), b = Int(prior[i]), c = Int(prior[i - bpp])
            let pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c)
            let predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c)
            row[i] = row[i] &+ UInt8(truncatingIfNeeded: predictor)
            i += 1
        }
    }

    /// Plain reference unfiltering of one whole pass held as rows of `1 + rowBytes` bytes:
    /// the test oracle for the optimised path.
    static func referenceUnfilter(_ data: [UInt8], rowBytes: Int, rows: Int, stride bpp: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: rows * rowBytes)
        for y in 0..<rows {
            let filter = data[y * (rowBytes + 1)]
            for x in 0..<rowBytes {
                let raw = Int(data[y * (rowBytes + 1) + 1 + x])
                let a = x >= bpp ? Int(out[y * rowBytes + x - bpp]) : 0
                let b = y > 0 ? Int(out[(y - 1) * rowBytes + x]) : 0
                let c = (x >= bpp && y > 0) ? Int(out[(y - 1) * rowBytes + x - bpp]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c
                    let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c)
                default: return nil
                }
                out[y * rowBytes + x] = UInt8((raw + predictor) & 0xFF)
            }
        }
        return out
    }
}
