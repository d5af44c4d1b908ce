import DetectorZlib
// Checked size arithmetic for shapes read from model files, shared by the interpreter and the
// detection decoders.

/// `a * b` or nil on overflow — for sizes that come from options or tensors.
@inline(__always)
package func checkedProduct(_ a: Int, _ b: Int) -> Int? {
    let (r, o) = a.multipliedReportingOverflow(by: b)
    return o ? nil : r
}

/// The product of a shape's dimensions, or nil when a dimension is negative or it overflows.
package func elementCount(_ shape: [Int]) -> Int? {
    var n = 1
    for d in shape {
        guard d >= 0, let r = checkedProduct(n, d) else { return nil }
        n = r
    }
    return n
}

package func shapeText(_ shape: [Int]) -> String {
    "[" + shape.map(String.init).joined(separator: ", ") + "]"
}
