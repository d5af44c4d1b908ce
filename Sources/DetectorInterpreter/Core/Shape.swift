import DetectorModelFile
import DetectorPlatform
/// Shape arithmetic with overflow checks (sizes come from model files).
package enum Shape {
    /// Largest element count of one tensor the interpreter accepts (2^31 - 1).
    package static let maxElementCount = Int(Int32.max)

    /// Product of the dimensions, nil when a dimension is negative or the product overflows
    /// or exceeds `maxElementCount`.
    package static func elementCount(_ shape: [Int]) -> Int? {
        var n = 1
        for d in shape {
            guard d >= 0 else { return nil }
            let (p, o) = n.multipliedReportingOverflow(by: d)
            guard !o, p <= maxElementCount else { return nil }
            n = p
        }
        return n
    }

    /// Element count of a shape already validated by prepare (no checks).
    @inlinable
    package static func count(_ shape: [Int]) -> Int {
        var n = 1
        for d in shape { n &*= d }
        return n
    }

    /// Row-major strides of a shape.
    package static func strides(_ shape: [Int]) -> [Int] {
        var s = [Int](repeating: 1, count: shape.count)
        var acc = 1
        for i in stride(from: shape.count - 1, through: 0, by: -1) {
            s[i] = acc
            acc &*= shape[i]
        }
        return s
    }

    /// Numpy-style broadcast of two shapes, nil when incompatible.
    package static func broadcast(_ a: [Int], _ b: [Int]) -> [Int]? {
        let rank = max(a.count, b.count)
        var out = [Int](repeating: 1, count: rank)
        for i in 0..<rank {
            let da = i < rank - a.count ? 1 : a[i - (rank - a.count)]
            let db = i < rank - b.count ? 1 : b[i - (rank - b.count)]
            if da == db { out[i] = da } else if da == 1 { out[i] = db } else if db == 1 { out[i] = da } else { return nil }
        }
        return out
    }

    /// Normalizes a possibly negative axis against a rank, nil when out of range.
    package static func axis(_ axis: Int, rank: Int) -> Int? {
        let a = axis < 0 ? axis + rank : axis
        return (a >= 0 && a < rank) ? a : nil
    }
}
