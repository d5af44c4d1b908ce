/// Quantized SUB with numpy broadcasting (TFLite reference `Sub` / `BroadcastQuantSubSlow`):
/// the ADD rescaling with the scaled inputs subtracted.
package enum QuantizedSub {
    package static func run<T: QuantizedElement>(_ p: QuantizedAddSubParams, plan: BroadcastPlan,
                                                input1: UnsafePointer<T>, input2: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>) {
        p.rescaled1.withUnsafeBufferPointer { r1 in p.rescaled2.withUnsafeBufferPointer { r2 in
            guard r1.count == 256, r2.count == 256 else { return }
            plan.forEachRow { o, i1, i2, n, s1, s2 in
                for j in 0..<n {
                    let a = r1[Int(UInt8(truncatingIfNeeded: input1[i1 + j * s1]))]
                    let b = r2[Int(UInt8(truncatingIfNeeded: input2[i2 + j * s2]))]
                    output[o + j] = T(truncatingIfNeeded: p.finish(a &- b))
                }
            }
        } }
    }
}
