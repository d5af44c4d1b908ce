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
            case 3: paeth(row, prior, n, 3)
            case 4: paeth(row, prior, n, 4)
            default: paeth(row, prior, n, bpp)
            }
        default:
            return false
        }
        return true
    }

    /// Paeth from byte `bpp` on; specialised by the constant `bpp` at the call sites above.
    @inline(__always)
    private static func paeth(_ row: UnsafeMutablePointer<UInt8>, _ prior: UnsafePointer<UInt8>, _ n: Int, _ bpp: Int) {
        var i = bpp
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
