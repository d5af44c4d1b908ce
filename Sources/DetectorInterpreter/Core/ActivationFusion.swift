import DetectorModelFile
import DetectorPlatform
/// Folds a float `RELU` / `RELU6` / `RELU_N1_TO_1` op into the op that produces its input
/// when that producer has a fused-activation slot left empty (`CONV_2D`, `DEPTHWISE_CONV_2D`,
/// `FULLY_CONNECTED`, `ADD`, `SUB`, `MUL` with activation NONE): the producer then clamps as
/// it writes, straight into the activation's output tensor, and the separate pass over memory
/// disappears. A fused activation is the same `min(max(x, lo), hi)` the standalone op applies,
/// so outputs are unchanged.
///
/// Likewise SiLU written as `MUL(x, LOGISTIC(x))` (YOLO's activation): the LOGISTIC op
/// multiplies by its input as it writes and the MUL is skipped; it computes the same two
/// roundings (logistic, then the product) as the pair of ops. When x itself comes from a
/// float `CONV_2D` with no activation and is read only by that LOGISTIC and MUL, the whole
/// SiLU moves into the convolution, which writes x · logistic(x) while its output tile is
/// still in cache (`FloatVectorMath.silu`, within 4e-7 relative, unless the graph needs
/// reference rounding: see `Interpreter.roundsLikeReference`); LOGISTIC and MUL are both
/// skipped.
///
/// A same-shape float ADD of a float `CONV_2D`'s output (no activation, read only by that ADD)
/// and a tensor ready before the convolution runs — a residual connection — moves into the
/// convolution too, with the ADD's activation or a RELU folded into it: the convolution adds
/// the other operand on the ADD's own tier kernel (same bits) as it writes, per chunk of rows
/// on its 1×1 path while they are in cache, and the ADD is skipped (face full range's 96×96×32
/// ADDs each moved 3.5 MB through memory in a pass of their own). A broadcast ADD, found at
/// prepare, stays an op (`dropResidual`).
///
/// Only when nothing else can observe the intermediate tensor: it has exactly one reader (the
/// absorbed op), is not a subgraph input or output, and `preserveAllTensors` is off.
package struct ActivationFusion {
    /// What the producer does in addition to its own work.
    package enum Epilogue: Equatable {
        case activation(OperatorParameters.Activation)
        /// LOGISTIC only: the output is multiplied by the op's input (SiLU).
        case multiplyByInput
        /// CONV_2D only: the output x is replaced by x · logistic(x).
        case silu
        /// CONV_2D only: the output x is replaced by an absorbed same-shape float ADD of x and
        /// `tensor` (x first when `outputFirst`), clamped by the ADD's activation (its own, or
        /// a RELU folded into it): a residual connection, added while the tile is in cache.
        case residual(Residual)
    }

    /// The ADD a convolution absorbs (`Epilogue.residual`).
    package struct Residual: Equatable {
        /// The ADD's other input, produced before the convolution runs.
        package let tensor: Int
        /// Whether the convolution's output is the ADD's first operand.
        package let outputFirst: Bool
        /// The ADD's activation (its own, or that of a RELU folded into it).
        package let activation: OperatorParameters.Activation
    }

    /// One fused pair.
    struct Pair {
        /// The op that now does both ops' work.
        let producer: Int
        /// The op absorbed into it, skipped at invoke.
        let activationOp: Int
        let epilogue: Epilogue
        /// A tensor the absorbed op read (the producer's original output, or for a SiLU in a
        /// convolution the skipped LOGISTIC's output), now sharing `output`'s buffer.
        let intermediate: Int
        let output: Int
        /// The producer's output, whose shape and type `output` takes.
        let source: Int
    }

    private(set) var pairs: [Pair] = []
    /// What op k applies on top of its own work (producers only), by op index. Arrays rather
    /// than sets and dictionaries here and below: the first use of a hashed collection of a type
    /// makes the Swift runtime look up its `Hashable` conformance, about 60 µs each on Linux
    /// (a scan of every loaded library's conformance records), a tenth of a small model's load.
    private var overrides: [Epilogue?] = []
    /// Pair index by absorbed op.
    private var byActivationOp: [Int?] = []
    /// The pair of the ADD each convolution absorbed (`Epilogue.residual`), by convolution op.
    private var residualAdd: [Int?] = []

    /// Whether `code`'s fused-activation slot can take a folded activation.
    static func isFusibleProducer(_ code: BuiltinOperator) -> Bool {
        code == .conv2D || code == .depthwiseConv2D || code == .fullyConnected || code == .add || code == .sub || code == .mul
    }

    /// The fused activation a standalone activation op is, or nil.
    static func activation(of code: BuiltinOperator) -> OperatorParameters.Activation? {
        code == .relu ? .relu : code == .relu6 ? .relu6 : code == .reluN1To1 ? .reluN1To1 : nil
    }

    /// What op `k` applies on top of its own work, or nil.
    func override(_ k: Int) -> Epilogue? {
        k >= 0 && k < overrides.count ? overrides[k] : nil
    }

    init() {}

    /// Plans the pairs of a graph whose tensor types are `types`.
    init(graph: InterpreterGraph, types: [TensorDataType]) {
        let n = graph.tensors.count
        var producer = [Int](repeating: -1, count: n)
        var readers = [Int](repeating: 0, count: n)
        for k in graph.operators.indices {
            let op = graph.operators[k]
            for t in op.outputs where t >= 0 && t < n { producer[t] = k }
            for t in op.inputs where t >= 0 && t < n { readers[t] += 1 }
        }
        var boundary = [Bool](repeating: false, count: n)
        for t in graph.inputs + graph.outputs where t >= 0 && t < n { boundary[t] = true }
        overrides = [Epilogue?](repeating: nil, count: graph.operators.count)
        byActivationOp = [Int?](repeating: nil, count: graph.operators.count)
        residualAdd = [Int?](repeating: nil, count: graph.operators.count)
        for k in graph.operators.indices {
            let op = graph.operators[k]
            if op.code == .mul, op.parameters.activation == .none, op.inputs.count == 2, op.outputs.count == 1 {
                planSiLU(graph, k, producer: producer, readers: readers, boundary: boundary, types: types)
                continue
            }
            guard let activation = ActivationFusion.activation(of: op.code),
                  op.inputs.count == 1, op.outputs.count == 1 else { continue }
            let t = op.inputs[0], u = op.outputs[0]
            guard t >= 0, t < n, u >= 0, u < n, t != u, readers[t] == 1, !boundary[t],
                  graph.tensors[t].constant == nil, types[t] == .float32, types[u] == .float32 else { continue }
            let j = producer[t]
            guard j >= 0, j < k, overrides[j] == nil else { continue }
            let p = graph.operators[j]
            guard ActivationFusion.isFusibleProducer(p.code), p.parameters.activation == .none,
                  p.outputs.count == 1, p.outputs[0] == t,
                  let first = p.inputs.first, first >= 0, first < n, types[first] == .float32 else { continue }
            byActivationOp[k] = pairs.count
            pairs.append(Pair(producer: j, activationOp: k, epilogue: .activation(activation), intermediate: t, output: u, source: t))
            overrides[j] = .activation(activation)
        }
        for index in pairs.indices where pairs[index].epilogue == .multiplyByInput {
            planConvolutionSiLU(graph, index, producer: producer, readers: readers, boundary: boundary, types: types)
        }
        for k in graph.operators.indices {
            let op = graph.operators[k]
            guard op.code == .add else { continue }
            planResidual(graph, k, producer: producer, readers: readers, boundary: boundary, types: types)
        }
    }

    /// A float ADD op `k` of a CONV_2D's output x (read only by it) and a tensor r ready before
    /// that convolution: the convolution adds r as it writes and the ADD is skipped. A RELU
    /// already folded into the ADD moves to the convolution with it. Shapes are checked at
    /// prepare (`dropResidual` when they differ: a broadcast ADD stays an op).
    private mutating func planResidual(_ graph: InterpreterGraph, _ k: Int, producer: [Int], readers: [Int],
                                       boundary: [Bool], types: [TensorDataType]) {
        let n = graph.tensors.count
        let op = graph.operators[k]
        guard op.inputs.count == 2, op.outputs.count == 1, byActivationOp[k] == nil else { return }
        let z = op.outputs[0]
        guard z >= 0, z < n, types[z] == .float32 else { return }
        let folded = overrides[k]
        var activation = op.parameters.activation
        if let folded {
            guard case .activation(let a) = folded, activation == .none else { return }
            activation = a
        }
        // Both operand orders, without an array of tuples (each tuple type costs a runtime
        // metadata lookup the first time a process loads a model).
        for pass in 0..<2 {
            let x = op.inputs[pass], r = op.inputs[1 - pass], outputFirst = pass == 0
            guard x >= 0, x < n, r >= 0, r < n, x != r, x != z, r != z, readers[x] == 1, !boundary[x],
                  graph.tensors[x].constant == nil, types[x] == .float32, types[r] == .float32 else { continue }
            let c = producer[x]
            guard c >= 0, c < k, overrides[c] == nil, producer[r] < c else { continue }
            let conv = graph.operators[c]
            guard conv.code == .conv2D, conv.parameters.activation == .none, conv.outputs == [x],
                  let first = conv.inputs.first, first >= 0, first < n, types[first] == .float32 else { continue }
            let epilogue = Epilogue.residual(Residual(tensor: r, outputFirst: outputFirst, activation: activation))
            overrides[c] = epilogue
            overrides[k] = nil
            // A RELU folded into the ADD now follows the convolution's output.
            for i in pairs.indices where pairs[i].producer == k {
                pairs[i] = Pair(producer: c, activationOp: pairs[i].activationOp, epilogue: epilogue, intermediate: pairs[i].intermediate,
                                output: pairs[i].output, source: pairs[i].source)
            }
            byActivationOp[k] = pairs.count
            residualAdd[c] = pairs.count
            pairs.append(Pair(producer: c, activationOp: k, epilogue: epilogue, intermediate: x, output: z, source: x))
            return
        }
    }

    /// Undoes the residual fusion into convolution `c` (its ADD's operands turned out to differ
    /// in shape): the ADD runs as an op again, with any RELU it had absorbed.
    mutating func dropResidual(convolution c: Int) {
        guard c >= 0, c < residualAdd.count, let index = residualAdd[c], case .residual(let r)? = overrides[c] else { return }
        let add = pairs[index].activationOp
        residualAdd[c] = nil
        overrides[c] = nil
        byActivationOp[add] = nil
        for i in pairs.indices where i != index && pairs[i].producer == c {
            pairs[i] = Pair(producer: add, activationOp: pairs[i].activationOp, epilogue: .activation(r.activation),
                            intermediate: pairs[i].intermediate, output: pairs[i].output, source: pairs[i].source)
            overrides[add] = .activation(r.activation)
        }
        // The dropped pair stays in `pairs` but no op maps to it any more.
    }

    /// Moves SiLU pair `index` (LOGISTIC j, MUL k over x) into the float CONV_2D producing x.
    private mutating func planConvolutionSiLU(_ graph: InterpreterGraph, _ index: Int, producer: [Int], readers: [Int],
                                              boundary: [Bool], types: [TensorDataType]) {
        let n = graph.tensors.count
        let pair = pairs[index]
        let logistic = graph.operators[pair.producer]
        guard let x = logistic.inputs.first, x >= 0, x < n, readers[x] == 2, !boundary[x],
              graph.tensors[x].constant == nil else { return }
        let c = producer[x]
        guard c >= 0, c < pair.producer, overrides[c] == nil else { return }
        let conv = graph.operators[c]
        guard conv.code == .conv2D, conv.parameters.activation == .none, conv.outputs == [x],
              let first = conv.inputs.first, first >= 0, first < n, types[first] == .float32 else { return }
        overrides[pair.producer] = nil
        overrides[c] = .silu
        pairs[index] = Pair(producer: c, activationOp: pair.producer, epilogue: .silu, intermediate: x, output: pair.output, source: x)
        byActivationOp[pair.producer] = index
        byActivationOp[pair.activationOp] = pairs.count
        pairs.append(Pair(producer: c, activationOp: pair.activationOp, epilogue: .silu, intermediate: pair.intermediate,
                          output: pair.output, source: x))
    }

    /// MUL op `k` over (x, LOGISTIC(x)) in either order.
    private mutating func planSiLU(_ graph: InterpreterGraph, _ k: Int, producer: [Int], readers: [Int],
                                   boundary: [Bool], types: [TensorDataType]) {
        let n = graph.tensors.count
        let op = graph.operators[k]
        let u = op.outputs[0]
        guard u >= 0, u < n, types[u] == .float32 else { return }
        for pass in 0..<2 {
            let s = op.inputs[pass], x = op.inputs[1 - pass]
            guard s >= 0, s < n, x >= 0, x < n, s != x, s != u, readers[s] == 1, !boundary[s],
                  graph.tensors[s].constant == nil, types[s] == .float32, types[x] == .float32 else { continue }
            let j = producer[s]
            guard j >= 0, j < k, overrides[j] == nil else { continue }
            let logistic = graph.operators[j]
            guard logistic.code == .logistic, logistic.inputs == [x], logistic.outputs == [s] else { continue }
            byActivationOp[k] = pairs.count
            pairs.append(Pair(producer: j, activationOp: k, epilogue: .multiplyByInput, intermediate: s, output: u, source: s))
            overrides[j] = .multiplyByInput
            return
        }
    }

    /// The pair whose activation op is `k`.
    func pair(activationOp k: Int) -> Pair? {
        guard k >= 0, k < byActivationOp.count else { return nil }
        return byActivationOp[k].map { pairs[$0] }
    }
}
