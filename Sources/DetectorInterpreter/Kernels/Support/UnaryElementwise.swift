import DetectorModelFile
import DetectorPlatform
import Foundation

/// Element-wise float32 kernel shared by the activation ops (RELU, RELU6, RELU_N1_TO_1,
/// LEAKY_RELU, LOGISTIC, TANH, HARD_SWISH). The clamping activations run as 8-lane SIMD loops;
/// LOGISTIC and the folded SiLU through the kernel table's `elementwise` entries (16 lanes at
/// every tier; `LaneMath`'s arithmetic on every value, within 2 ulp of the scalar
/// `FloatActivations` form, the same bits at every tier and thread count).
final class UnaryFloatKernel: PreparedKernel {
    enum Function {
        case clamp(min: Float, max: Float)
        case leakyRelu(alpha: Float)
        case logistic, tanh, hardSwish
        /// LOGISTIC through `FloatVectorMath.fastLogistic` (graphs that need no reference rounding).
        case fastLogistic
        /// x · logistic(x): LOGISTIC with a folded `MUL` by its input (`ActivationFusion`), with
        /// the two ops' roundings (`FloatVectorMath.logisticProduct`) when `faithful` (graphs
        /// with hybrid kernels), else `FloatVectorMath.silu`.
        case silu(faithful: Bool)
    }

    let input: Int, output: Int, count: Int
    let function: Function
    let threads: Int
    let kernels: FloatElementwiseKernels

    init(input: Int, output: Int, count: Int, threads: Int, function: Function, kernels: FloatElementwiseKernels) {
        self.input = input; self.output = output; self.count = count
        self.threads = threads
        self.function = function
        self.kernels = kernels
    }

    static func prepare(_ c: PrepareContext, _ function: Function) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.float32])
        try c.setOutput(0, shape: x.shape, type: .float32)
        let fused: Function
        if case .logistic = function, c.multipliesByInput {
            fused = .silu(faithful: c.roundsLikeReference)
        } else if case .logistic = function, !c.roundsLikeReference {
            fused = .fastLogistic
        } else {
            fused = function
        }
        return UnaryFloatKernel(input: x.index, output: try c.output(0).index, count: x.elementCount,
                                threads: c.threadCount, function: fused, kernels: c.kernelTable.elementwise)
    }

    func eval(_ e: EvalContext) throws {
        let src = e.floats(input), dst = e.floats(output)
        let function = self.function, kernels = self.kernels
        // Parts start at multiples of 64 elements, so every clamped value goes through the same
        // SIMD step (not the scalar tail) on any thread count.
        KernelSupport.parallelElements(count, threads: threads, minimumPerPart: 1 << 15) { range in
            switch function {
            case let .clamp(lo, hi):
                let vlo = SIMD8<Float>(repeating: lo), vhi = SIMD8<Float>(repeating: hi)
                FloatVectorMath.map(src, to: dst, range: range, { KernelSupport.clamp($0, vlo, vhi) }, tail: { min(max($0, lo), hi) })
            case let .leakyRelu(alpha):
                for i in range { let v = src[i]; dst[i] = v > 0 ? v : v * alpha }
            case .logistic:
                kernels.logistic(src + range.lowerBound, dst + range.lowerBound, range.count)
            case .fastLogistic:
                kernels.fastLogistic(src + range.lowerBound, dst + range.lowerBound, range.count)
            case .silu(let faithful):
                (faithful ? kernels.logisticProduct : kernels.silu)(src + range.lowerBound, dst + range.lowerBound, range.count)
            case .tanh:
                for i in range { dst[i] = tanhf(src[i]) }
            case .hardSwish:
                for i in range { dst[i] = FloatActivations.hardSwish(src[i]) }
            }
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
