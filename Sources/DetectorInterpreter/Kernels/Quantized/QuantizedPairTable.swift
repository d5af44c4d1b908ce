import DetectorModelFile
import DetectorPlatform
/// All 65,536 results of a quantized binary op (ADD, SUB, MUL) on two 8-bit inputs, indexed by
/// `UInt8(bitPattern: a) << 8 | UInt8(bitPattern: b)`. Built at prepare by calling the op's
/// scalar reference arithmetic once per input pair, so a lookup gives exactly the reference
/// result; evaluating the op then costs one table load per element.
package struct QuantizedPairTable: Sendable, Equatable {
    /// The results' bit patterns.
    package let entries: [UInt8]

    /// Outputs of at least this many elements use the table: below it, building the table
    /// (65,536 evaluations) costs more than a few invokes of direct arithmetic save.
    package static let minimumOutputCount = 1 << 14

    /// Tabulates `result(a, b)` (the op's clamped output as `Int32`) for every pair of `T` values.
    package init<T: QuantizedElement>(_: T.Type, _ result: (Int32, Int32) -> Int32) {
        var table: [UInt8] = PrefaultedArray.zeros(count: 65536)
        table.withUnsafeMutableBufferPointer { t in
            for i in 0..<256 {
                let a = Int32(T(truncatingIfNeeded: UInt8(i)))
                for j in 0..<256 {
                    t[i << 8 | j] = UInt8(truncatingIfNeeded: result(a, Int32(T(truncatingIfNeeded: UInt8(j)))))
                }
            }
        }
        entries = table
    }

    /// The ADD (or SUB) table: each input's rescaling depends on that input alone, so it is done
    /// for the 256 values of each (`QuantizedAddSubParams.rescaled1/2`), and each pair costs one
    /// `finish`, not three rescalings. With no left shift in the output multiplier, the 65,536
    /// sums are requantized by the vector requantization at `tier` (the same arithmetic, 16
    /// lanes a step: ten ADD tables were 3% of mobilenet_v2's load). The entries equal
    /// `init(T.self, p.sum)` (`p.difference`).
    package init<T: QuantizedElement>(_: T.Type, addSub p: QuantizedAddSubParams, subtract: Bool,
                                     tier: InstructionSetTier = .baseline) {
        // a − b as a + (0 − b): the same wrapping Int32 result.
        let first = p.rescaled1, second = p.rescaled2.map { subtract ? 0 &- $0 : $0 }
        var table: [UInt8] = PrefaultedArray.zeros(count: 65536)
        guard first.count == 256, second.count == 256 else { entries = table; return }
        let vector = VectorRequantization(multipliers: [QuantizedMultiplier](repeating: p.output, count: 256),
                                          bias: [Int32](repeating: 0, count: 256), outputZeroPoint: p.outputZeroPoint,
                                          activationMin: p.activationMin, activationMax: p.activationMax, tier: tier)
        table.withUnsafeMutableBufferPointer { t in
            guard let out = t.baseAddress else { return }
            VectorRequantization.withRows(vector) { rows in
                if let rows {
                    var sums: [Int32] = PrefaultedArray.zeros(count: 65536)
                    sums.withUnsafeMutableBufferPointer { s in
                        guard let sum = s.baseAddress else { return }
                        for i in 0..<256 { for j in 0..<256 { sum[i << 8 | j] = first[i] &+ second[j] } }
                        rows.apply(UnsafePointer(sum), rows: 256, count: 256, output: out)
                    }
                } else {
                    for i in 0..<256 { for j in 0..<256 { out[i << 8 | j] = UInt8(truncatingIfNeeded: p.finish(first[i] &+ second[j])) } }
                }
            }
        }
        entries = table
    }

    /// Evaluates the tabulated op with broadcasting: one table load per output element.
    package func apply<T: QuantizedElement>(plan: BroadcastPlan, input1: UnsafePointer<T>, input2: UnsafePointer<T>,
                                           output: UnsafeMutablePointer<T>) {
        entries.withUnsafeBufferPointer { buffer in
            guard let table = buffer.baseAddress, buffer.count == 65536 else { return }
            plan.forEachRow { o, i1, i2, n, s1, s2 in
                Self.row(table, input1 + i1, s1, input2 + i2, s2, output + o, n)
            }
        }
    }

    /// The op on two same-shape runs of `count` values.
    func applyContiguous<T: QuantizedElement>(_ x: UnsafePointer<T>, _ y: UnsafePointer<T>, _ output: UnsafeMutablePointer<T>,
                                              count: Int) {
        entries.withUnsafeBufferPointer { buffer in
            guard let table = buffer.baseAddress, buffer.count == 65536 else { return }
            Self.row(table, x, 1, y, 1, output, count)
        }
    }

    /// One broadcast row: both inputs contiguous, or one of them fixed for the whole row
    /// (then the row reads a 256-entry slice of the table), else the general strided walk.
    @inline(__always)
    package static func row<T: QuantizedElement>(_ table: UnsafePointer<UInt8>, _ x: UnsafePointer<T>, _ s1: Int,
                                         _ y: UnsafePointer<T>, _ s2: Int, _ out: UnsafeMutablePointer<T>, _ n: Int) {
        @inline(__always) func index(_ v: T) -> Int { Int(UInt8(truncatingIfNeeded: v)) }
        if s1 == 1 && s2 == 1 {
            for j in 0..<n { out[j] = T(truncatingIfNeeded: table[index(x[j]) << 8 | index(y[j])]) }
        } else if s1 == 1 && s2 == 0 {
            let column = table + index(y[0])
            for j in 0..<n { out[j] = T(truncatingIfNeeded: column[index(x[j]) << 8]) }
        } else if s1 == 0 && s2 == 1 {
            let slice = table + index(x[0]) << 8
            for j in 0..<n { out[j] = T(truncatingIfNeeded: slice[index(y[j])]) }
        } else {
            for j in 0..<n { out[j] = T(truncatingIfNeeded: table[index(x[j * s1]) << 8 | index(y[j * s2])]) }
        }
    }
}
