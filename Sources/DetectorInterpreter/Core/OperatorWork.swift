import DetectorModelFile
import DetectorPlatform
/// How much arithmetic one op does per invoke, in multiply-accumulates, from its prepared
/// shapes: what `Interpreter.Options.maxMultiplyAccumulates` bounds. Convolutions, fully
/// connected layers and pooling count one per (output element × window or reduction
/// element); every other op counts one per element of its largest input or output (they are
/// linear in their tensors). Overflow saturates at `Int.max`, which exceeds any limit.
///
/// ```swift
/// // A 3×3 convolution from 8 to 16 channels on a 32×32 output: 32·32·16 · 3·3·8 MACs.
/// OperatorWork.multiplyAccumulates(code: .conv2D, parameters: .init(),
///                                  inputShapes: [[1, 32, 32, 8], [16, 3, 3, 8]], outputShapes: [[1, 32, 32, 16]])
/// // == 1_179_648
/// ```
enum OperatorWork {
    static func multiplyAccumulates(code: BuiltinOperator, parameters: OperatorParameters,
                                    inputShapes: [[Int]], outputShapes: [[Int]]) -> Int {
        let output = outputShapes.first.map(product) ?? 0
        func filter(_ dims: ClosedRange<Int>) -> Int? {
            guard inputShapes.count > 1, inputShapes[1].count > dims.upperBound else { return nil }
            var p = 1
            for d in dims { p = multiply(p, max(0, inputShapes[1][d])) }
            return p
        }
        let perOutput: Int?
        switch code {
        case .conv2D: perOutput = filter(1...3)             // OHWI: kernel height × width × input depth
        case .depthwiseConv2D: perOutput = filter(1...2)   // 1HWC: kernel height × width
        case .fullyConnected: perOutput = filter(1...1)     // [units, depth]
        case .averagePool2D, .maxPool2D:
            perOutput = multiply(max(1, parameters.filterHeight), max(1, parameters.filterWidth))
        default: perOutput = nil
        }
        if let perOutput { return multiply(output, perOutput) }
        // The largest tensor, without concatenating the lists (this runs for every op at prepare).
        var largest = 0
        for shape in inputShapes { largest = max(largest, product(shape)) }
        for shape in outputShapes { largest = max(largest, product(shape)) }
        return largest
    }

    /// Product of the dimensions (negative ones count as 0), saturating at `Int.max`.
    static func product(_ shape: [Int]) -> Int {
        shape.reduce(1) { multiply($0, max(0, $1)) }
    }

    /// a × b for non-negative values, saturating at `Int.max`.
    static func multiply(_ a: Int, _ b: Int) -> Int {
        let (p, o) = a.multipliedReportingOverflow(by: b)
        return o ? Int.max : p
    }

    /// a + b for non-negative values, saturating at `Int.max`.
    static func add(_ a: Int, _ b: Int) -> Int {
        let (s, o) = a.addingReportingOverflow(b)
        return o ? Int.max : s
    }
}
