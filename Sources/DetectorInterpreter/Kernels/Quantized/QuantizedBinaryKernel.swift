import DetectorModelFile
import DetectorPlatform
/// Interpreter kernel shared by the quantized binary ops (ADD, SUB, MUL, MAXIMUM, MINIMUM):
/// prepares the broadcast plan and the op's rescaling, dispatches to the op's function.
final class QuantizedBinaryKernel: PreparedKernel {
    /// Element type chosen at prepare (int8 or uint8); eval dispatches to code specialized for it.
    let int8: Bool
    enum Operation {
        case add(QuantizedAddSubParams), sub(QuantizedAddSubParams), mul(QuantizedMulParams)
        /// ADD, SUB or MUL on a large output: the tabulated results of the op.
        case table(QuantizedPairTable)
        /// MUL(x, f(x)) with f an 8-bit table op: the product tabulated per value of x (tensor `source`).
        case gatedProduct(QuantizedLookupTable, source: Int, count: Int)
        case maximum, minimum
    }
    let operation: Operation
    let plan: BroadcastPlan
    let a: Int, b: Int, out: Int
    /// The element count when both inputs have the output's shape (one contiguous run).
    let contiguousCount: Int?
    /// ADD / SUB off the pair table: the vector requantization of `QuantizedAdd.runBlocks`
    /// (nil: the scalar loop).
    let addRequantization: VectorRequantization?

    /// Same-shape ADD/SUB (and their tables) split over the threads from this many elements.
    static let parallelContiguousCount = 1 << 13

    init(int8: Bool, operation: Operation, plan: BroadcastPlan, a: Int, b: Int, out: Int, tier: InstructionSetTier) {
        self.int8 = int8
        self.operation = operation; self.plan = plan; self.a = a; self.b = b; self.out = out
        switch operation {
        case .add(let p), .sub(let p): addRequantization = QuantizedAdd.vectorRequantization(p, tier: tier)
        default: addRequantization = nil
        }
        let single = plan.outputDims.dropLast().allSatisfy { $0 == 1 } && plan.strides1.last == 1 && plan.strides2.last == 1
        contiguousCount = single ? plan.outputDims.last : nil
    }

    func eval(_ e: EvalContext) throws {
        if int8 { try evalTyped(e, Int8.self) } else { try evalTyped(e, UInt8.self) }
    }

    @inline(__always)
    private func evalTyped<T: QuantizedElement>(_ e: EvalContext, _: T.Type) throws {
        let x = e.pointer(a, as: T.self), y = e.pointer(b, as: T.self), o = e.pointer(out, as: T.self)
        if let v = addRequantization, case .add(let p) = operation {
            runAddSub(p, v, x, y, o, threads: e.threadCount, subtract: false)
            return
        }
        if let v = addRequantization, case .sub(let p) = operation {
            runAddSub(p, v, x, y, o, threads: e.threadCount, subtract: true)
            return
        }
        if let n = contiguousCount, n >= Self.parallelContiguousCount, e.threadCount > 1 {
            // Each thread's part is about what the ops before wrote on it.
            switch operation {
            case .add(let p), .sub(let p):
                var subtract = false
                if case .sub = operation { subtract = true }
                KernelSupport.parallelElements(n, threads: e.threadCount, minimumPerPart: Self.parallelContiguousCount / 2) { r in
                    QuantizedAdd.runContiguous(p, x + r.lowerBound, y + r.lowerBound, o + r.lowerBound, count: r.count, subtract: subtract)
                }
                return
            case .table(let t):
                KernelSupport.parallelElements(n, threads: e.threadCount, minimumPerPart: Self.parallelContiguousCount / 2) { r in
                    t.applyContiguous(x + r.lowerBound, y + r.lowerBound, o + r.lowerBound, count: r.count)
                }
                return
            default: break
            }
        }
        switch operation {
        case .add(let p): QuantizedAdd.run(p, plan: plan, input1: x, input2: y, output: o)
        case .sub(let p): QuantizedSub.run(p, plan: plan, input1: x, input2: y, output: o)
        case .mul(let p): QuantizedMul.run(p, plan: plan, input1: x, input2: y, output: o)
        case .table(let t): t.apply(plan: plan, input1: x, input2: y, output: o)
        case .gatedProduct(let t, let source, let count): t.apply(input: e.pointer(source, as: T.self), output: o, count: count, threads: e.threadCount, kernel: e.kernelTable.byteTable)
        case .maximum: QuantizedMaximumMinimum.run(maximum: true, plan: plan, input1: x, input2: y, output: o)
        case .minimum: QuantizedMaximumMinimum.run(maximum: false, plan: plan, input1: x, input2: y, output: o)
        }
    }

    /// ADD / SUB by `QuantizedAdd.runBlocks`; same-shape inputs split over the threads.
    @inline(__always)
    private func runAddSub<T: QuantizedElement>(_ p: QuantizedAddSubParams, _ v: VectorRequantization, _ x: UnsafePointer<T>,
                                                _ y: UnsafePointer<T>, _ o: UnsafeMutablePointer<T>, threads: Int, subtract: Bool) {
        VectorRequantization.withRows(v) { rows in
            guard let rows else { return }
            if let n = contiguousCount {
                let parts = n >= Self.parallelContiguousCount ? threads : 1
                KernelSupport.parallelElements(n, threads: parts, minimumPerPart: Self.parallelContiguousCount / 2) { r in
                    QuantizedAdd.runBlocks(p, rows, x + r.lowerBound, 1, y + r.lowerBound, 1, o + r.lowerBound,
                                           count: r.count, subtract: subtract)
                }
            } else {
                QuantizedAdd.runBlocks(p, rows, plan: plan, input1: x, input2: y, output: o, subtract: subtract)
            }
        }
    }

    enum Kind { case add, sub, mul, maximum, minimum }

    static func prepare(_ c: PrepareContext, _ kind: Kind) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.uint8, .int8])
        let y = try c.input(1, types: [x.type])
        guard let plan = BroadcastPlan(x.shape, y.shape) else {
            throw c.invalid("shapes \(x.shape) and \(y.shape) cannot be broadcast together (rank at most 6)")
        }
        try c.setOutput(0, shape: plan.outputShape, type: x.type)
        let out = try c.output(0)
        func build<A: QuantizedElement>(_: A.Type) throws -> any PreparedKernel {
            let op: QuantizedBinaryKernel.Operation
            switch kind {
            case .maximum: op = .maximum
            case .minimum: op = .minimum
            default:
                let q1 = try c.quantization(of: x, "input 1"), q2 = try c.quantization(of: y, "input 2")
                let qo = try c.quantization(of: out, "output")
                let act = try c.quantizedActivation()
                let tabulate = (Shape.elementCount(plan.outputShape) ?? 0) >= QuantizedPairTable.minimumOutputCount
                switch kind {
                case .add:
                    let p = QuantizedAddSubParams(input1: q1, input2: q2, output: qo, activation: act, type: A.self)
                    op = tabulate ? .table(QuantizedPairTable(A.self, addSub: p, subtract: false, tier: c.tier)) : .add(p)
                case .sub:
                    let p = QuantizedAddSubParams(input1: q1, input2: q2, output: qo, activation: act, type: A.self)
                    op = tabulate ? .table(QuantizedPairTable(A.self, addSub: p, subtract: true, tier: c.tier)) : .sub(p)
                default:
                    let p = QuantizedMulParams(input1: q1, input2: q2, output: qo, activation: act, type: A.self)
                    if let gated = QuantizedGatedProduct(c), let t = gated.table(p, A.self) {
                        op = .gatedProduct(t, source: gated.source, count: Shape.count(plan.outputShape))
                        gated.elideGateIfUnobservable(c)
                    } else {
                        op = tabulate ? .table(QuantizedPairTable(A.self, p.product)) : .mul(p)
                    }
                }
            }
            return QuantizedBinaryKernel(int8: A.self == Int8.self, operation: op, plan: plan, a: x.index, b: y.index, out: out.index, tier: c.tier)
        }
        return try withQuantizedType(x.type, c) { try build($0) }
    }
}

extension QuantizedAdd {
    @Sendable package static func prepare(_ c: PrepareContext) throws -> any PreparedKernel { try QuantizedBinaryKernel.prepare(c, .add) }
}
extension QuantizedSub {
    @Sendable package static func prepare(_ c: PrepareContext) throws -> any PreparedKernel { try QuantizedBinaryKernel.prepare(c, .sub) }
}
extension QuantizedMul {
    @Sendable package static func prepare(_ c: PrepareContext) throws -> any PreparedKernel { try QuantizedBinaryKernel.prepare(c, .mul) }
}
extension QuantizedMaximumMinimum {
    @Sendable static func prepareMaximum(_ c: PrepareContext) throws -> any PreparedKernel { try QuantizedBinaryKernel.prepare(c, .maximum) }
    @Sendable static func prepareMinimum(_ c: PrepareContext) throws -> any PreparedKernel { try QuantizedBinaryKernel.prepare(c, .minimum) }
}
