/// Folds a float `RELU` / `RELU6` / `RELU_N1_TO_1` op into the op that produces its input
/// when that producer has a fused-activation slot left empty (`CONV_2D`, `DEPTHWISE_CONV_2D`,
/// `FULLY_CONNECTED`, `ADD`, `SUB`, `MUL` with activation NONE): the producer then clamps as
/// it writes, straight into the activation's output tensor, and the separate pass over memory
/// disappears. A fused activation is the same `min(max(x, lo), hi)` the standalone op applies,
/// so outputs are unchanged.
///
/// Only when nothing else can observe the intermediate tensor: it has exactly one reader (the
/// activation), is not a subgraph input or output, and `preserveAllTensors` is off.
struct ActivationFusion {
    /// One fused pair.
    struct Pair {
        /// The op that now applies the activation.
        let producer: Int
        /// The activation op, skipped at invoke.
        let activationOp: Int
        let activation: OperatorParameters.Activation
        /// The producer's original output, now stored in `output`'s buffer.
        let intermediate: Int
        let output: Int
    }

    private(set) var pairs: [Pair] = []
    /// Activation to apply for op k (producers only).
    private(set) var overrides: [Int: OperatorParameters.Activation] = [:]
    /// Pair index by activation op.
    private var byActivationOp: [Int: Int] = [:]

    static let fusibleProducers: Set<String> = ["CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "ADD", "SUB", "MUL"]
    static let activations: [String: OperatorParameters.Activation] = ["RELU": .relu, "RELU6": .relu6, "RELU_N1_TO_1": .reluN1To1]

    init() {}

    /// Plans the pairs of a graph whose tensor types are `types`.
    init(graph: InterpreterGraph, types: [TensorDataType]) {
        let n = graph.tensors.count
        var producer = [Int](repeating: -1, count: n)
        var readers = [Int](repeating: 0, count: n)
        for (k, op) in graph.operators.enumerated() {
            for t in op.outputs where t >= 0 && t < n { producer[t] = k }
            for t in op.inputs where t >= 0 && t < n { readers[t] += 1 }
        }
        let boundary = Set(graph.inputs).union(graph.outputs)
        for (k, op) in graph.operators.enumerated() {
            guard let activation = ActivationFusion.activations[op.opName],
                  op.inputs.count == 1, op.outputs.count == 1 else { continue }
            let t = op.inputs[0], u = op.outputs[0]
            guard t >= 0, t < n, u >= 0, u < n, t != u, readers[t] == 1, !boundary.contains(t),
                  graph.tensors[t].constant == nil, types[t] == .float32, types[u] == .float32 else { continue }
            let j = producer[t]
            guard j >= 0, j < k, overrides[j] == nil else { continue }
            let p = graph.operators[j]
            guard ActivationFusion.fusibleProducers.contains(p.opName), p.parameters.activation == .none,
                  p.outputs.count == 1, p.outputs[0] == t,
                  let first = p.inputs.first, first >= 0, first < n, types[first] == .float32 else { continue }
            byActivationOp[k] = pairs.count
            pairs.append(Pair(producer: j, activationOp: k, activation: activation, intermediate: t, output: u))
            overrides[j] = activation
        }
    }

    /// The pair whose activation op is `k`.
    func pair(activationOp k: Int) -> Pair? {
        byActivationOp[k].map { pairs[$0] }
    }
}
