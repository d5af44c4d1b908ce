import Foundation

/// Element-wise float32 kernel shared by the activation ops (RELU, RELU6, RELU_N1_TO_1,
/// LEAKY_RELU, LOGISTIC, TANH, HARD_SWISH, …).
final class UnaryFloatKernel: PreparedKernel {
    let input: Int, output: Int, count: Int
    let function: (Float) -> Float
    let threads: Int

    init(input: Int, output: Int, count: Int, threads: Int, function: @escaping (Float) -> Float) {
        self.input = input; self.output = output; self.count = count
        self.threads = threads
        self.function = function
    }

    static func prepare(_ c: PrepareContext, _ function: @escaping (Float) -> Float) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.float32])
        try c.setOutput(0, shape: x.shape, type: .float32)
        return UnaryFloatKernel(input: x.index, output: try c.output(0).index, count: x.elementCount,
                                threads: c.threadCount, function: function)
    }

    func eval(_ e: EvalContext) throws {
        let src = e.floats(input), dst = e.floats(output)
        let f = function
        let n = count
        let parts = n >= 1 << 16 ? threads : 1
        KernelSupport.parallelChunks(n, parts: parts) { range in
            for i in range { dst[i] = f(src[i]) }
        }
    }
}

/// Float activation functions with the reference kernels' formulas.
enum FloatActivations {
    /// TFLite reference logistic: cut-offs above 16.619… (→ 1) and below -9 (→ exp(x)).
    @inline(__always)
    static func logistic(_ x: Float) -> Float {
        if x > 16.619047164916992188 { return 1 }
        if x < -9 { return expf(x) }
        return 1 / (1 + expf(-x))
    }

    @inline(__always)
    static func hardSwish(_ x: Float) -> Float {
        x * min(6, max(0, x + 3)) / 6
    }
}
