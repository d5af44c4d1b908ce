import DetectorModelFile
import DetectorPlatform
/// Quantized SUB with numpy broadcasting (TFLite reference `Sub` / `BroadcastQuantSubSlow`):
/// the ADD rescaling with the scaled inputs subtracted.
package enum QuantizedSub {
    package static func run<T: QuantizedElement>(_ p: QuantizedAddSubParams, plan: BroadcastPlan,
                                                input1: UnsafePointer<T>, input2: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>) {
        QuantizedAdd.run(p, plan: plan, input1: input1, input2: input2, output: output, subtract: true)
    }
}
