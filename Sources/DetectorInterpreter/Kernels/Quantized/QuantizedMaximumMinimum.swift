import DetectorModelFile
import DetectorPlatform
/// Quantized MAXIMUM / MINIMUM: element-wise on the raw values (the runtime requires equal
/// quantization of inputs and output), with numpy broadcasting.
package enum QuantizedMaximumMinimum {
    package static func run<T: QuantizedElement>(maximum: Bool, plan: BroadcastPlan,
                                                input1: UnsafePointer<T>, input2: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>) {
        plan.forEachRow { o, i1, i2, n, s1, s2 in
            for j in 0..<n {
                let a = input1[i1 + j * s1], b = input2[i2 + j * s2]
                output[o + j] = maximum ? (a > b ? a : b) : (a < b ? a : b)
            }
        }
    }
}
