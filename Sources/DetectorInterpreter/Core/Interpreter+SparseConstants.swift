import DetectorModelFile
import DetectorPlatform

extension Interpreter {
    /// The constants with sparsity metadata that an op other than DENSIFY reads (LiteRT's
    /// FULLY_CONNECTED, for one, takes block-sparse weights directly). Throws when one is also read
    /// by a DENSIFY op: that op would expand data that is already dense.
    func sparseConstantsReadDirectly() throws -> Set<Int> {
        let n = graph.tensors.count
        var direct = Set<Int>(), densified = Set<Int>()
        for op in graph.operators {
            for t in op.inputs where t >= 0 && t < n && graph.tensors[t].sparsity != nil && graph.tensors[t].constant != nil {
                if op.code == .densify { densified.insert(t) } else { direct.insert(t) }
            }
        }
        if let t = direct.intersection(densified).min() {
            throw InterpreterError.invalidModel("sparse tensor \(t) ('\(graph.tensors[t].name)') is read both by DENSIFY and by another op")
        }
        return direct
    }

    /// Replaces sparse constant `i`'s data (already in `storage`) by its dense form, once at
    /// load, so the kernels reading it see an ordinary dense constant.
    func densifyConstant(_ i: Int) throws {
        let t = graph.tensors[i]
        guard let sparsity = t.sparsity, let size = t.type.byteSize else {
            throw InterpreterError.invalidModel("sparse tensor \(i) ('\(t.name)') has an element type without a fixed size")
        }
        let source: UnsafeRawPointer, count: Int
        switch storage[i] {
        case .model(let offset, let c):
            guard let base = graph.modelBytes.bytes.baseAddress else { throw InterpreterError.invalidModel("sparse tensor \(i) ('\(t.name)') has no data") }
            source = base + offset; count = c
        case .owned(let b):
            source = UnsafeRawPointer(b.pointer); count = b.byteCount
        case .none, .arena:
            throw InterpreterError.invalidModel("sparse tensor \(i) ('\(t.name)') has no data")
        }
        let layout: SparseTensorLayout
        do {
            layout = try SparseTensorLayout(shape: t.shape, sparsity: sparsity, storedCount: count / size)
        } catch {
            throw InterpreterError.invalidModel("the sparsity metadata of tensor \(i) ('\(t.name)') is inconsistent: \(error.description)")
        }
        let (bytes, overflow) = layout.denseCount.multipliedReportingOverflow(by: size)
        guard !overflow, bytes <= options.maxArenaBytes else {
            throw InterpreterError.limitExceeded(option: "maxArenaBytes", needed: overflow ? Int.max : bytes, limit: options.maxArenaBytes,
                                                 context: "densifying sparse tensor \(i) ('\(t.name)') at load")
        }
        let dense = AlignedBuffer(byteCount: bytes)
        withExtendedLifetime(graph.modelBytes) {
            layout.scatter(from: source, to: dense.pointer, elementSize: size)
        }
        storage[i] = .owned(dense)
    }
}
