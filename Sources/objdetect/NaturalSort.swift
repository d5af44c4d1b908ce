/// Natural ("human") ordering of file names: runs of digits compare by their numeric value,
/// so `frame2.png` sorts before `frame10.png`. Everything else compares by Unicode scalar.
/// Names that are equal under this rule (`frame01` vs `frame1`) fall back to plain scalar
/// order, so the order is total and deterministic.
///
/// ```swift
/// let names = ["frame10.png", "frame2.png", "frame1.png"]
/// names.sorted(by: NaturalSort.areInIncreasingOrder)   // frame1, frame2, frame10
/// ```
package enum NaturalSort {
    /// True when `a` sorts before `b` in natural order.
    package static func areInIncreasingOrder(_ a: String, _ b: String) -> Bool {
        let result = compare(a, b)
        if result != 0 { return result < 0 }
        return Array(a.unicodeScalars.map(\.value)).lexicographicallyPrecedes(b.unicodeScalars.map(\.value))
    }

    /// Sorts strings in natural order.
    package static func sorted<S: Sequence>(_ names: S) -> [String] where S.Element == String {
        names.sorted(by: areInIncreasingOrder)
    }

    /// -1, 0 or 1 under the digit-run rule alone.
    static func compare(_ a: String, _ b: String) -> Int {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        var i = 0, j = 0
        while i < x.count && j < y.count {
            if isDigit(x[i]) && isDigit(y[j]) {
                let startI = i, startJ = j
                while i < x.count && isDigit(x[i]) { i += 1 }
                while j < y.count && isDigit(y[j]) { j += 1 }
                // Compare numerically without parsing (no overflow): skip leading zeros, then
                // longer is larger, then digit by digit.
                var si = startI, sj = startJ
                while si < i - 1 && x[si] == "0" { si += 1 }
                while sj < j - 1 && y[sj] == "0" { sj += 1 }
                if i - si != j - sj { return i - si < j - sj ? -1 : 1 }
                while si < i {
                    if x[si] != y[sj] { return x[si].value < y[sj].value ? -1 : 1 }
                    si += 1
                    sj += 1
                }
            } else {
                if x[i] != y[j] { return x[i].value < y[j].value ? -1 : 1 }
                i += 1
                j += 1
            }
        }
        if i < x.count { return 1 }
        if j < y.count { return -1 }
        return 0
    }

    private static func isDigit(_ s: Unicode.Scalar) -> Bool { s.value >= 48 && s.value <= 57 }
}
