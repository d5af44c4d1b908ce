/// Quantized SUB with numpy broadcasting (TFLite reference `Sub` / `BroadcastQuantSubSlow`):
/// the ADD rescaling with the scaled inputs subtracted.
package enum QuantizedSub {
    package static func run<T: QuantizedElement>(_ p: QuantizedAddSubParams, plan: BroadcastPlan,
                                                input1: UnsafePointer<T>, input2: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>) {
        plan.forEachRow { o, i1, i2, n, s1, s2 in
            for j in 0..<n {
                output[o + j] = T(truncatingIfNeeded: p.difference(Int32(input1[i1 + j * s1]), Int32(input2[i2 + j * s2])))
            }
        }
    }
}
