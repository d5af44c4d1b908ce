import DetectorModelFile
import DetectorPlatform
/// The walk over the rows of an N-d loop nest (every dimension but the innermost), from any
/// row on: kernels that split rows over threads start one walk per part. Each step of
/// dimension `d` moves offset A by `stridesA[d]` and offset B by `stridesB[d]`, an odometer
/// carrying into the outer dimensions.
///
/// ```swift
/// // Rows 2..<5 of a 3 × 4 outer shape: (row, offset a, offset b).
/// RowWalk.forEach(2..<5, dimensions: 2, sizes: [3, 4], stridesA: [40, 10], stridesB: [0, 1]) { row, a, b in … }
/// ```
enum RowWalk {
    /// Calls `body(row, offsetA, offsetB)` for every row in `rows`, in order. Only the first
    /// `dimensions` entries of `sizes` and the strides are read (the outer dimensions,
    /// outermost first); `startA` is added to offset A.
    @inline(__always)
    static func forEach(_ rows: Range<Int>, dimensions: Int, sizes: [Int], stridesA: [Int], stridesB: [Int]? = nil,
                        startA: Int = 0, _ body: (_ row: Int, _ offsetA: Int, _ offsetB: Int) -> Void) {
        guard !rows.isEmpty else { return }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: max(dimensions, 1)) { index in
            var rest = rows.lowerBound, a = startA, b = 0
            for d in stride(from: dimensions - 1, through: 0, by: -1) {
                index[d] = rest % sizes[d]; rest /= sizes[d]
                a += index[d] * stridesA[d]
                if let stridesB { b += index[d] * stridesB[d] }
            }
            for row in rows {
                body(row, a, b)
                var d = dimensions - 1
                while d >= 0 {
                    index[d] += 1
                    a += stridesA[d]
                    if let stridesB { b += stridesB[d] }
                    if index[d] < sizes[d] { break }
                    a -= stridesA[d] * sizes[d]
                    if let stridesB { b -= stridesB[d] * sizes[d] }
                    index[d] = 0
                    d -= 1
                }
            }
        }
    }
}
