import DetectorZlib
import DetectorPlatform
/// PNG's five scanline filters (None, Sub, Up, Average, Paeth) applied by the encoder: each
/// filtered row is its filter type byte followed by the row's bytes minus their predictions.
enum PNGFilter {
    /// Filters every row with the type that minimises the sum of |filtered byte as Int8| (the
    /// heuristic libpng and the PNG specification suggest; ties go to the lower type).
    static func adaptive(_ image: ImageBuffer) -> [UInt8] {
        filterRows(image) { row, prior, dst, candidate, n, bpp in
            var bestCost = Int.max
            for type in 0...4 {
                let cost = filterRow(type, row, prior, candidate, n, bpp)
                if cost < bestCost {
                    bestCost = cost
                    dst[0] = UInt8(type)
                    (dst + 1).update(from: candidate, count: n)
                }
            }
        }
    }

    /// Filters every row with one type (0...4).
    static func fixed(_ image: ImageBuffer, type: Int) -> [UInt8] {
        let type = min(max(type, 0), 4)
        return filterRows(image) { row, prior, dst, _, n, bpp in
            dst[0] = UInt8(type)
            if type == 4 {
                paethRow(row, prior, dst + 1, n, bpp)
            } else {
                _ = filterRow(type, row, prior, dst + 1, n, bpp)
            }
        }
    }

    /// The Paeth filter of one row, 8 bytes a step (the same bytes as `filterRow(4, …)`, without its cost).
    static func paethRow(_ row: UnsafePointer<UInt8>, _ prior: UnsafePointer<UInt8>,
                         _ dst: UnsafeMutablePointer<UInt8>, _ n: Int, _ bpp: Int) {
        @inline(__always) func load(_ p: UnsafePointer<UInt8>) -> SIMD8<Int16> {
            SIMD8<Int16>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self))
        }
        let lead = min(bpp, n)
        // First pixel: left and upper-left are zero, so Paeth predicts the byte above.
        for i in 0..<lead { dst[i] = row[i] &- prior[i] }
        var i = lead
        while i + 8 <= n {
            let x = load(row + i), a = load(row + i - bpp), b = load(prior + i), c = load(prior + i - bpp)
            // |p − a| = |b − c|, |p − b| = |a − c|, |p − c| = |a + b − 2c| for p = a + b − c.
            let dbc = b &- c, dac = a &- c, sum = dbc &+ dac
            let pa = pointwiseMax(dbc, 0 &- dbc), pb = pointwiseMax(dac, 0 &- dac), pc = pointwiseMax(sum, 0 &- sum)
            let predictor = c.replacing(with: b, where: pb .<= pc).replacing(with: a, where: (pa .<= pb) .& (pa .<= pc))
            UnsafeMutableRawPointer(dst + i).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: x &- predictor), as: SIMD8<UInt8>.self)
            i += 8
        }
        while i < n {
            let a = Int16(row[i - bpp]), b = Int16(prior[i]), c = Int16(prior[i - bpp])
            let pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c)
            let predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c)
            dst[i] = row[i] &- UInt8(truncatingIfNeeded: predictor)
            i += 1
        }
    }

    /// Runs `body(row, prior, destination, scratch, rowBytes, bytesPerPixel)` for every row; the
    /// destination is the row's filter byte followed by room for its bytes.
    private static func filterRows(_ image: ImageBuffer,
                                   _ body: (UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>,
                                            UnsafeMutablePointer<UInt8>, Int, Int) -> Void) -> [UInt8] {
        let bpp = image.format.bytesPerPixel
        let rowBytes = image.bytesPerRow
        // `pixels` is public and settable: never read past a buffer that does not match the size.
        guard rowBytes > 0, image.pixels.count >= rowBytes * image.height else {
            return [UInt8](repeating: 0, count: (rowBytes + 1) * image.height)
        }
        // Every byte is written below (a filter byte and the row), so the buffer is not cleared first.
        var out = [UInt8](unsafeUninitializedCapacity: (rowBytes + 1) * image.height) { _, count in count = (rowBytes + 1) * image.height }
        var scratch = [UInt8](repeating: 0, count: rowBytes)
        let zeros = [UInt8](repeating: 0, count: rowBytes)
        image.pixels.withUnsafeBufferPointer { px in
            out.withUnsafeMutableBufferPointer { o in
                scratch.withUnsafeMutableBufferPointer { s in
                    zeros.withUnsafeBufferPointer { z in
                        guard let base = px.baseAddress, let dstBase = o.baseAddress,
                              let candidate = s.baseAddress, let zero = z.baseAddress else { return }
                        for y in 0..<image.height {
                            let row = base + y * rowBytes
                            let prior = y > 0 ? row - rowBytes : zero
                            body(row, prior, dstBase + y * (rowBytes + 1), candidate, rowBytes, bpp)
                        }
                    }
                }
            }
        }
        return out
    }

    /// Writes `row` filtered with `type` to `dst` (`n` bytes; `prior` is the row above, zeros for
    /// the first) and returns the sum of |filtered byte as Int8|. Each type is its own simple loop
    /// so the compiler can vectorise it.
    @inline(__always)
    static func filterRow(_ type: Int, _ row: UnsafePointer<UInt8>, _ prior: UnsafePointer<UInt8>,
                          _ dst: UnsafeMutablePointer<UInt8>, _ n: Int, _ bpp: Int) -> Int {
        @inline(__always) func cost(_ v: UInt8) -> Int { Int(Int8(bitPattern: v).magnitude) }
        let lead = min(bpp, n)
        var sum = 0
        switch type {
        case 0:
            for i in 0..<n { let v = row[i]; dst[i] = v; sum &+= cost(v) }
        case 1:
            for i in 0..<lead { let v = row[i]; dst[i] = v; sum &+= cost(v) }
            for i in lead..<n { let v = row[i] &- row[i - bpp]; dst[i] = v; sum &+= cost(v) }
        case 2:
            for i in 0..<n { let v = row[i] &- prior[i]; dst[i] = v; sum &+= cost(v) }
        case 3:
            for i in 0..<lead { let v = row[i] &- (prior[i] >> 1); dst[i] = v; sum &+= cost(v) }
            for i in lead..<n {
                let average = UInt8(truncatingIfNeeded: (UInt16(row[i - bpp]) &+ UInt16(prior[i])) >> 1)
                let v = row[i] &- average; dst[i] = v; sum &+= cost(v)
            }
        default:
            // First pixel: left and upper-left are zero, so Paeth predicts the byte above.
            for i in 0..<lead { let v = row[i] &- prior[i]; dst[i] = v; sum &+= cost(v) }
            for i in lead..<n {
                let a = Int16(row[i - bpp]), b = Int16(prior[i]), c = Int16(prior[i - bpp])
                let pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c)
                let predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c)
                let v = row[i] &- UInt8(truncatingIfNeeded: predictor); dst[i] = v; sum &+= cost(v)
            }
        }
        return sum
    }
}
