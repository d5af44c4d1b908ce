import DetectorModelFile

/// Runs the skip path of a residual block before the block's last convolution, so that the
/// convolution can add it as it writes (`ActivationFusion`'s residual epilogue).
///
/// `ActivationFusion` folds `ADD(conv(x), r)` into the convolution only when `r` is ready
/// before the convolution runs. Exporters often schedule the skip path's own op — a channel
/// PAD in BlazeFace's blocks (face detection short and full range, palm detection), a
/// pooling or a 1×1 projection elsewhere — after the convolution. Its inputs are ready
/// long before, and TFLite tensors are written once, so the op can run earlier with the
/// same result. This moves such an op to just before the convolution; every other op keeps
/// its order.
///
/// Example: `CONV_2D(a) → x; PAD(s) → r; ADD(x, r) → z` becomes
/// `PAD(s) → r; CONV_2D(a) → x; ADD(x, r) → z`, and the ADD then folds into the CONV_2D.
///
/// Op indices (the profile's "op N") are those of the reordered graph.
enum ResidualScheduling {
    /// `graph` with the producers of residual operands moved ahead of their convolutions.
    static func reordered(_ graph: InterpreterGraph) -> InterpreterGraph {
        var graph = graph
        let n = graph.tensors.count
        // Variable tensors are written by more than one op: order matters there, so leave it.
        guard !graph.tensors.contains(where: \.isVariable) else { return graph }
        var readers = [Int](repeating: 0, count: n)
        for op in graph.operators { for t in op.inputs where t >= 0 && t < n { readers[t] += 1 } }
        var producer = producers(graph)
        var k = 0
        while k < graph.operators.count {
            defer { k += 1 }
            let add = graph.operators[k]
            guard add.code == .add, add.inputs.count == 2, add.outputs.count == 1 else { continue }
            // A plain CONV_2D whose output only the ADD reads: where the fusion can go.
            func fusible(_ x: Int) -> Bool {
                guard x >= 0, x < n, producer[x] >= 0, readers[x] == 1 else { return false }
                let op = graph.operators[producer[x]]
                return op.code == .conv2D && op.parameters.activation == .none
            }
            // Already fusible in this order (the other operand is ready before the convolution)?
            let ready = (0..<2).contains { pass in
                let x = add.inputs[pass], r = add.inputs[1 - pass]
                return fusible(x) && r >= 0 && r < n && producer[r] < producer[x]
            }
            guard !ready else { continue }
            for pass in 0..<2 {
                let x = add.inputs[pass], r = add.inputs[1 - pass]
                guard x >= 0, x < n, r >= 0, r < n, x != r, fusible(x) else { continue }
                let c = producer[x], j = producer[r]
                guard j > c, j < k else { continue }
                // Op j can run before op c if everything it reads exists by then.
                let early = graph.operators[j].inputs.allSatisfy { t in t < 0 || t >= n || producer[t] < c }
                guard early else { continue }
                let moved = graph.operators.remove(at: j)
                graph.operators.insert(moved, at: c)
                producer = producers(graph)
                break
            }
        }
        return graph
    }

    /// The op writing each tensor (−1: an input or a constant).
    private static func producers(_ graph: InterpreterGraph) -> [Int] {
        var producer = [Int](repeating: -1, count: graph.tensors.count)
        for k in graph.operators.indices {
            let op = graph.operators[k]
            for t in op.outputs where t >= 0 && t < producer.count { producer[t] = k }
        }
        return producer
    }
}
