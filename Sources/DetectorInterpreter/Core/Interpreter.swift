import DetectorModelFile
import DetectorPlatform
import Foundation

/// Describes one input or output tensor of a model.
public struct TensorDescription: Sendable, Equatable {
    /// Tensor index in the subgraph.
    public let index: Int
    public let name: String
    public let type: TensorDataType
    /// Current shape (after any resize and prepare).
    public let shape: [Int]
    /// Shape signature from the model (-1 = dynamic dimension).
    public let shapeSignature: [Int]
    public let quantization: TensorQuantization?
    /// Size in bytes of the tensor's data.
    public var byteCount: Int { Shape.count(shape) * (type.byteSize ?? 0) }
}

/// Runs subgraph 0 of a TFLite model with the project's own kernels.
///
/// Create it once per model and reuse it: `prepare` (run at creation and after a resize)
/// resolves every shape, folds constant ops (e.g. float16 weights → float32) and plans one
/// arena by tensor lifetime; `invoke()` then only computes, without allocating.
///
/// ```swift
/// let interpreter = try Interpreter(contentsOfFile: "face_detection_short_range.tflite")
/// try interpreter.copyInput(pixels, at: 0)            // [Float] of 1×128×128×3
/// try interpreter.invoke()
/// let scores: [Float] = try interpreter.outputFloats(at: 1)
/// ```
///
/// Thread safety: an `Interpreter` is not thread-safe; use one per thread (they may share
/// nothing mutable, so several interpreters of the same model can run in parallel).
/// With `Options.threadCount` > 1 the heavy kernels split their work over threads internally.
public final class Interpreter {
    /// Interpreter settings.
    public struct Options: Sendable {
        /// Threads the heavy kernels may use (1 = single-threaded). With more than one, the
        /// process-wide worker threads (`threadCount` − 1, shared by every interpreter) are
        /// started when the model is prepared, so the first invoke already runs on all of them.
        public var threadCount: Int
        /// Kernels to use; `.standard` has every kernel of the project.
        package var registry: KernelRegistry = .standard
        /// Upper bound, in bytes, of the memory a prepared model may take beyond its file: the
        /// arena of activations, inputs and outputs plus the constants folded at prepare (e.g.
        /// float16 weights widened to float32). Checked at prepare, before anything is allocated;
        /// a model that needs more throws `InterpreterError.limitExceeded`. The default,
        /// `defaultMaxArenaBytes` (1 GiB), is over ten times what any model of the zoo needs
        /// (the most, yolov5n-fp16's, is 30 MB).
        ///
        /// ```swift
        /// // A model from an untrusted source gets at most 64 MiB.
        /// let options = Interpreter.Options(maxArenaBytes: 64 << 20)
        /// ```
        public var maxArenaBytes: Int
        /// Upper bound of the multiply-accumulates one invoke may do (convolutions and fully
        /// connected layers count one per output element × kernel window × input depth, other
        /// ops one per element of their largest tensor; ops folded at prepare count too, as they
        /// run once then). Checked at prepare, before any op runs; a model that needs more throws
        /// `InterpreterError.limitExceeded`. The default, `defaultMaxMultiplyAccumulates`
        /// (100 billion), is over ten times what any model of the zoo needs (the most,
        /// YOLOv8n's at 640×640, is 4.4 billion).
        ///
        /// ```swift
        /// // At most a billion multiply-accumulates (about 100 ms on one core).
        /// let options = Interpreter.Options(maxMultiplyAccumulates: 1_000_000_000)
        /// ```
        public var maxMultiplyAccumulates: Int

        /// Keep every intermediate tensor alive after `invoke()` (no memory reuse), so
        /// `tensorBytes(_:)` can read any of them (debugging; uses more memory).
        public var preserveAllTensors: Bool
        /// Instruction-set tier of the kernels; nil picks `InstructionSetTier.best`. A tier
        /// the CPU cannot run is lowered to `InstructionSetTier.supported`.
        public var tier: InstructionSetTier?

        /// The default `maxArenaBytes`: 1 GiB.
        public static let defaultMaxArenaBytes = 1 << 30
        /// The default `maxMultiplyAccumulates`: 10^11.
        public static let defaultMaxMultiplyAccumulates = 100_000_000_000

        public init(threadCount: Int = 1, maxArenaBytes: Int = defaultMaxArenaBytes,
                    maxMultiplyAccumulates: Int = defaultMaxMultiplyAccumulates,
                    preserveAllTensors: Bool = false, tier: InstructionSetTier? = nil) {
            self.tier = tier
            self.threadCount = max(1, threadCount)
            self.maxArenaBytes = maxArenaBytes
            self.maxMultiplyAccumulates = maxMultiplyAccumulates
            self.preserveAllTensors = preserveAllTensors
        }
    }

    package enum Storage {
        case none
        case model(offset: Int, count: Int)
        case owned(AlignedBuffer)
        case arena(offset: Int)
    }

    /// The graph being run.
    package let graph: InterpreterGraph
    public let options: Options
    /// The instruction-set tier the kernels run with (from `options.tier`).
    public var tier: InstructionSetTier { kernelTable.tier }
    /// The kernel table of that tier, chosen once here; kernels take their entries from it at prepare.
    package let kernelTable: KernelTable

    package var shapes: [[Int]]
    var types: [TensorDataType]
    package var storage: [Storage]
    /// Tensor holds a constant or a value computed at prepare.
    var isConstant: [Bool]
    var registrations: [KernelRegistration]
    package var kernels: [(any PreparedKernel)?]
    var foldedOps: [Bool]
    /// RELU ops folded into their producers (planned at prepare).
    var fusion = ActivationFusion()
    /// The graph has hybrid kernels (float activations, int8 weights), which quantize their
    /// input on the fly: float kernels then keep the reference kernels' rounding (no Winograd,
    /// SiLU as LOGISTIC then MUL), since a last-bit difference there can become a whole
    /// quantum. Set at prepare.
    var roundsLikeReference = false

    static func containsHybridKernels(_ graph: InterpreterGraph, types: [TensorDataType]) -> Bool {
        graph.operators.contains { op in
            guard [BuiltinOperator.conv2D, .depthwiseConv2D, .fullyConnected].contains(op.code), op.inputs.count >= 2,
                  let x = op.inputs.first, x >= 0, x < types.count, op.inputs[1] >= 0, op.inputs[1] < types.count else { return false }
            return types[x] == .float32 && (types[op.inputs[1]] == .int8 || types[op.inputs[1]] == .uint8)
        }
    }

    /// Tensor → the tensor whose buffer it shares: fused pairs' intermediates, and the inputs
    /// of RESHAPE / SQUEEZE / EXPAND_DIMS read by nothing else (the copy then has nothing to do).
    package var aliases = [Int: Int]()
    /// Inputs an op reads instead of its graph inputs (a convolution with a PAD folded into it
    /// reads the PAD's input, see `PadFolding`); planned at prepare.
    var effectiveInputs = [Int: [Int]]()
    var arena: AlignedBuffer?
    var pointerTable: UnsafeMutablePointer<UnsafeMutableRawPointer>
    let dummy = AlignedBuffer(byteCount: 64)
    /// Eval-time memory shared by the kernels (see `SharedScratch`).
    package let scratch = SharedScratch()
    var needsPrepare = true
    /// Base of the model bytes while prepare or invoke runs.
    var modelBase: UnsafeRawPointer?
    /// Outputs set by the op being prepared.
    var outputsSet: [Int] = []

    /// Creates an interpreter for a graph, checks every op has a kernel and prepares it.
    package init(graph: InterpreterGraph, options: Options = Options()) throws {
        let graph = options.preserveAllTensors ? graph : ResidualScheduling.reordered(graph)
        self.graph = graph
        self.options = options
        kernelTable = KernelTable.for(options.tier ?? InstructionSetTier.best)
        let n = graph.tensors.count
        shapes = graph.tensors.map(\.shape)
        types = graph.tensors.map(\.type)
        storage = Array(repeating: .none, count: n)
        isConstant = Array(repeating: false, count: n)
        registrations = []
        kernels = Array(repeating: nil, count: graph.operators.count)
        foldedOps = Array(repeating: false, count: graph.operators.count)
        pointerTable = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: max(n, 1))
        pointerTable.initialize(repeating: dummy.pointer, count: max(n, 1))
        try validateGraph()
        try resolveKernels()
        try prepare()
    }

    deinit { pointerTable.deallocate() }

    // MARK: - Load-time checks

    // Loops over the graph here and in the planners go by index, not `enumerated()`, and no
    // arrays of tuples are built: each tuple type's metadata is made at run time the first time a
    // process uses it (≈ 2–28 µs each, measured with an interposed `swift_getTypeByMangledName`),
    // which was a sixth of a small model's first load.
    private func validateGraph() throws {
        let n = graph.tensors.count
        let modelCount = graph.modelBytes.bytes.count
        let sparseReadDirectly = try sparseConstantsReadDirectly()
        for i in graph.tensors.indices {
            let t = graph.tensors[i]
            guard Shape.elementCount(t.shape) != nil else {
                throw InterpreterError.tensorTooLarge(tensor: i, name: t.name, reason: "shape \(t.shape) is negative or has more than \(Shape.maxElementCount) elements")
            }
            guard let c = t.constant else { continue }
            switch c {
            case .model(let offset, let count):
                let (end, o) = offset.addingReportingOverflow(count)
                guard offset >= 0, count >= 0, !o, end <= modelCount else {
                    throw InterpreterError.invalidModel("tensor \(i) ('\(t.name)') data (offset \(offset), \(count) bytes) lies outside the \(modelCount)-byte model")
                }
                // Zero-copy view when the data is aligned for its element type (TFLite aligns
                // buffers to 16 bytes); otherwise one aligned copy, so kernels never read
                // misaligned memory.
                let alignment = max(1, min(t.type.byteSize ?? 1, 8))
                if let base = graph.modelBytes.bytes.baseAddress, Int(bitPattern: base + offset) % alignment != 0 {
                    let b = AlignedBuffer(byteCount: count)
                    b.pointer.copyMemory(from: base + offset, byteCount: count)
                    storage[i] = .owned(b)
                } else {
                    storage[i] = .model(offset: offset, count: count)
                }
            case .owned(let bytes):
                let b = AlignedBuffer(byteCount: bytes.count)
                bytes.withUnsafeBytes { b.pointer.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(dummy.pointer), byteCount: bytes.count) }
                storage[i] = .owned(b)
            }
            // Sparse weights read by an op other than DENSIFY are made dense here, once.
            if sparseReadDirectly.contains(i) { try densifyConstant(i) }
            if t.sparsity == nil, let size = t.type.byteSize {
                let needed = Shape.count(t.shape) * size
                guard c.byteCount >= needed else {
                    throw InterpreterError.invalidModel("constant tensor \(i) ('\(t.name)') has \(c.byteCount) bytes but its shape \(t.shape) of \(t.type) needs \(needed)")
                }
            }
            isConstant[i] = true
        }
        for k in graph.operators.indices {
            let op = graph.operators[k]
            for t in op.inputs where t < -1 || t >= n {
                throw InterpreterError.tensorIndexOutOfRange(index: t, tensorCount: n, context: "the inputs of op \(k) (\(op.opName))")
            }
            for t in op.outputs where t < -1 || t >= n {
                throw InterpreterError.tensorIndexOutOfRange(index: t, tensorCount: n, context: "the outputs of op \(k) (\(op.opName))")
            }
            for t in op.outputs where t >= 0 && isConstant[t] {
                throw InterpreterError.invalidModel("op \(k) (\(op.opName)) writes to constant tensor \(t)")
            }
        }
        for t in graph.inputs where t < 0 || t >= n {
            throw InterpreterError.tensorIndexOutOfRange(index: t, tensorCount: n, context: "the subgraph inputs")
        }
        for t in graph.outputs where t < 0 || t >= n {
            throw InterpreterError.tensorIndexOutOfRange(index: t, tensorCount: n, context: "the subgraph outputs")
        }
    }

    /// The activation type of an op: the type of its first present input (else first output).
    static func activationType(of op: GraphOperator, types: [TensorDataType]) -> TensorDataType? {
        if let t = op.inputs.first(where: { $0 >= 0 }) { return types[t] }
        if let t = op.outputs.first(where: { $0 >= 0 }) { return types[t] }
        return nil
    }

    private func resolveKernels() throws {
        registrations = try graph.operators.indices.map { k in
            let op = graph.operators[k]
            let activation = Interpreter.activationType(of: op, types: types)
            guard let r = options.registry.registration(for: op, activationType: activation) else {
                throw InterpreterError.unsupportedOperator(
                    index: k, opName: op.opName,
                    inputTypes: op.inputs.map { $0 >= 0 ? types[$0].name : "none" },
                    outputTypes: op.outputs.map { $0 >= 0 ? types[$0].name : "none" })
            }
            return r
        }
    }

    // MARK: - Prepare

    func tensorInfo(_ i: Int) -> TensorInfo {
        let t = graph.tensors[i]
        return TensorInfo(index: i, name: t.name, type: types[i], shape: shapes[i],
                          quantization: t.quantization, isConstant: isConstant[i])
    }

    package func constantBytes(_ i: Int) -> UnsafeRawBufferPointer? {
        guard isConstant[i] else { return nil }
        switch storage[i] {
        case .model(let offset, let count):
            guard let base = modelBase else { return nil }
            return UnsafeRawBufferPointer(start: base + offset, count: count)
        case .owned(let b):
            return UnsafeRawBufferPointer(start: b.pointer, count: b.byteCount)
        case .none, .arena:
            return nil
        }
    }

    func setShape(_ tensor: Int, shape: [Int], type: TensorDataType?, by context: PrepareContext) throws {
        if isConstant[tensor] { throw context.invalid("output tensor \(tensor) is a constant") }
        shapes[tensor] = shape
        if let type { types[tensor] = type }
        if !outputsSet.contains(tensor) { outputsSet.append(tensor) }
    }

    private func byteCount(_ tensor: Int) throws -> Int {
        guard let size = types[tensor].byteSize else {
            throw InterpreterError.tensorTooLarge(tensor: tensor, name: graph.tensors[tensor].name, reason: "element type \(types[tensor]) has no fixed size")
        }
        guard let n = Shape.elementCount(shapes[tensor]) else {
            throw InterpreterError.tensorTooLarge(tensor: tensor, name: graph.tensors[tensor].name, reason: "shape \(shapes[tensor]) is invalid")
        }
        let (b, o) = n.multipliedReportingOverflow(by: size)
        guard !o, b <= options.maxArenaBytes else {
            throw InterpreterError.tensorTooLarge(tensor: tensor, name: graph.tensors[tensor].name, reason: "\(n) elements of \(types[tensor]) exceed the memory limit of \(options.maxArenaBytes) bytes")
        }
        return b
    }

    /// Resolves shapes, folds constant ops and plans the arena. Called automatically at
    /// creation and by the first `copyInput`/`invoke` after `resizeInput`.
    public func prepare() throws {
        // The worker threads start now, while the model is prepared, not in the first invoke.
        KernelSupport.startWorkers(threads: options.threadCount)
        let n = graph.tensors.count
        // Flags per tensor rather than sets: the first `Set<Int>` in a process costs the runtime a
        // scan of every loaded image's conformance records (≈ 0.1 ms, a tenth of a tiny model's load).
        let isInput = Interpreter.flags(graph.inputs, count: n)
        // Reset everything prepare derives.
        for i in 0..<n where graph.tensors[i].constant == nil {
            if !isInput[i] { shapes[i] = graph.tensors[i].shape }
            types[i] = graph.tensors[i].type
            storage[i] = .none
            isConstant[i] = false
        }
        for k in kernels.indices { kernels[k] = nil; foldedOps[k] = false }
        fusion = options.preserveAllTensors ? ActivationFusion() : ActivationFusion(graph: graph, types: types)
        roundsLikeReference = Interpreter.containsHybridKernels(graph, types: types)
        aliases.removeAll()
        effectiveInputs.removeAll()
        var readers = [Int](repeating: 0, count: n)
        for op in graph.operators { for t in op.inputs where t >= 0 && t < n { readers[t] += 1 } }
        // Convolutions with a PAD folded into them, by op index (see `PadFolding`).
        var padFolds = [Int: PadFolding.Fold]()
        var ownedBytes = 0
        var work = 0, invokeWork = 0
        var lastReader = [Int](repeating: -1, count: n)
        // Tensors an op that runs at invoke reads (not those it only packed at prepare), and the
        // graph's outputs: folded ones stay.
        var readAtInvoke = [Bool](repeating: false, count: n)
        let isOutput = Interpreter.flags(graph.outputs, count: n)
        for k in graph.operators.indices {
            let op = graph.operators[k]
            for t in op.inputs where t >= 0 && t < n { lastReader[t] = k }
        }
        try withModelBytes { (raw: UnsafeRawBufferPointer) in
            modelBase = raw.baseAddress
            defer { modelBase = nil }
            for k in graph.operators.indices {
                let graphOp = graph.operators[k]
                if let fold = padFold(k, readers: readers) {
                    // Neither run nor stored: its reader pads the PAD's input itself.
                    shapes[graphOp.outputs[0]] = fold.paddedShape
                    types[graphOp.outputs[0]] = types[fold.source]
                    foldedOps[k] = true
                    padFolds[fold.convolution] = fold
                    continue
                }
                var op = graphOp
                if let fold = padFolds[k] {
                    op.inputs[0] = fold.source
                    effectiveInputs[k] = op.inputs
                }
                if let pair = fusion.pair(activationOp: k), !foldedOps[pair.producer], kernels[pair.producer] != nil {
                    // The producer already clamps; its result goes straight to this op's output.
                    shapes[pair.output] = shapes[pair.source]
                    types[pair.output] = types[pair.source]
                    aliases[pair.intermediate] = pair.output
                    continue
                }
                // An op that is folded into a constant now gets no epilogue: the ops it would
                // absorb then run on their own (a SiLU epilogue is not idempotent like a clamp).
                let constantInputs = op.inputs.contains { $0 >= 0 } && op.inputs.allSatisfy { $0 < 0 || isConstant[$0] }
                var context = PrepareContext(operatorIndex: k, node: op, threadCount: options.threadCount, interpreter: self,
                                             epilogue: constantInputs ? nil : fusion.override(k), foldedPadding: padFolds[k]?.padding)
                outputsSet = []
                var kernel = try registrations[k].prepare(context)
                if case .residual(let r)? = context.epilogue,
                   op.outputs.count != 1 || op.outputs[0] < 0 || shapes[op.outputs[0]] != shapes[r.tensor] || types[r.tensor] != .float32 {
                    // A broadcast ADD: it stays an op, and the convolution is prepared plainly.
                    fusion.dropResidual(convolution: k)
                    context = PrepareContext(operatorIndex: k, node: op, threadCount: options.threadCount, interpreter: self,
                                             epilogue: nil, foldedPadding: padFolds[k]?.padding)
                    outputsSet = []
                    kernel = try registrations[k].prepare(context)
                }
                for t in op.outputs where t >= 0 && !outputsSet.contains(t) {
                    throw context.invalid("its kernel did not set the shape of output tensor \(t)")
                }
                kernels[k] = kernel
                let opWork = OperatorWork.multiplyAccumulates(
                    code: op.code, parameters: op.parameters,
                    inputShapes: op.inputs.map { $0 >= 0 ? shapes[$0] : [] }, outputShapes: op.outputs.map { $0 >= 0 ? shapes[$0] : [] })
                work = OperatorWork.add(work, opWork)
                guard work <= options.maxMultiplyAccumulates else {
                    throw InterpreterError.limitExceeded(option: "maxMultiplyAccumulates", needed: work, limit: options.maxMultiplyAccumulates,
                                                         context: "counting ops 0 to \(k); op \(k) (\(op.opName)) alone needs \(opWork)")
                }
                let present = op.inputs.filter { $0 >= 0 }
                let foldable = kernel.dependsOnlyOnInputShapes || (!present.isEmpty && present.allSatisfy { isConstant[$0] })
                guard foldable else {
                    invokeWork = OperatorWork.add(invokeWork, opWork)
                    releaseConstants(readBy: op, at: k, lastReader: lastReader)
                    // A folded constant this op packed at prepare and no op reads later or at
                    // invoke (a float16 filter's float32 copy) is not needed any more.
                    let packed = kernel.packedInputs
                    for i in present.indices {
                        let t = present[i]
                        guard !present[..<i].contains(t) && packed.contains(t) && lastReader[t] == k
                            && isConstant[t] && graph.tensors[t].constant == nil && !readAtInvoke[t] && !isOutput[t]
                            && !options.preserveAllTensors && op.inputs.filter({ $0 == t }).count == 1 else { continue }
                        if case .owned(let b) = storage[t] { ownedBytes -= b.byteCount; storage[t] = .none }
                    }
                    for t in present where !packed.contains(t) { readAtInvoke[t] = true }
                    continue
                }
                // Evaluate once now; outputs become prepare-time constants.
                for t in present {
                    pointerTable[t] = constantBytes(t).flatMap { UnsafeMutableRawPointer(mutating: $0.baseAddress) } ?? dummy.pointer
                }
                for t in op.outputs where t >= 0 {
                    let bytes = try byteCount(t)
                    let (sum, o) = ownedBytes.addingReportingOverflow(bytes)
                    guard !o, sum <= options.maxArenaBytes else {
                        throw InterpreterError.limitExceeded(option: "maxArenaBytes", needed: o ? Int.max : sum, limit: options.maxArenaBytes,
                                                             context: "constants folded at prepare, through tensor \(t) ('\(graph.tensors[t].name)') of op \(k) (\(op.opName))")
                    }
                    ownedBytes = sum
                    let b = AlignedBuffer(byteCount: bytes)
                    storage[t] = .owned(b)
                    pointerTable[t] = b.pointer
                }
                try kernel.eval(EvalContext(pointers: UnsafePointer(pointerTable), threadCount: options.threadCount, kernelTable: kernelTable))
                for t in op.outputs where t >= 0 { isConstant[t] = true }
                foldedOps[k] = true
                releaseConstants(readBy: op, at: k, lastReader: lastReader)
                // A folded tensor that only folded ops read (DENSIFY's output on its way to
                // DEQUANTIZE) is not needed once its last reader has run.
                for i in present.indices {
                    let t = present[i]
                    guard !present[..<i].contains(t) && lastReader[t] == k && isConstant[t]
                        && graph.tensors[t].constant == nil && !readAtInvoke[t] && !isOutput[t] && !options.preserveAllTensors else { continue }
                    if case .owned(let b) = storage[t] { ownedBytes -= b.byteCount }
                    storage[t] = .none
                }
            }
        }
        if !options.preserveAllTensors { aliasCopiedInputs(readers: readers) }
        foldedByteCount = ownedBytes
        try planArena()
        multiplyAccumulateCount = invokeWork
        needsPrepare = false
    }

    /// Gives back the resident file pages of the model constants of 64 KB or more that op `k`
    /// reads last: their values are now in its packed weights or folded outputs, and peak memory
    /// otherwise held each weight twice (the model's pages and the packed copy). A kernel
    /// that still reads one at eval (a bias, a constant operand) loads its pages again, once.
    private func releaseConstants(readBy op: GraphOperator, at k: Int, lastReader: [Int]) {
        for t in op.inputs where t >= 0 && t < lastReader.count && lastReader[t] == k {
            if case .model(let offset, let count)? = graph.tensors[t].constant, count >= 1 << 16 {
                graph.modelBytes.storage.releasePages(ByteRange(offset: offset, count: count))
            }
        }
    }

    /// A shape-only op (`CopyKernel`) whose input has no other reader and is not a graph
    /// input, output or constant: the input is stored in the output's buffer.
    /// `readers[t]`: how many op inputs name tensor `t` (in the graph, as `prepare` counted them).
    private func aliasCopiedInputs(readers: [Int]) {
        let n = graph.tensors.count
        let boundary = Interpreter.flags(graph.inputs + graph.outputs, count: n)
        for k in graph.operators.indices {
            let op = graph.operators[k]
            guard !foldedOps[k] && kernels[k] is CopyKernel else { continue }
            guard let t = op.inputs.first, let u = op.outputs.first, t >= 0, t < n, u >= 0, u < n, t != u,
                  readers[t] == 1, !boundary[t], !isConstant[t], !isConstant[u], aliases[t] == nil else { continue }
            aliases[t] = u
        }
    }

    /// `true` at each of `indices` in `0..<count` (others, and indices outside, ignored).
    private static func flags(_ indices: [Int], count: Int) -> [Bool] {
        var f = [Bool](repeating: false, count: count)
        for t in indices where t >= 0 && t < count { f[t] = true }
        return f
    }

    /// The tensor at the end of `t`'s alias chain (the one that owns the buffer).
    private func aliasRoot(_ t: Int) -> Int {
        var r = t, steps = 0
        while let u = aliases[r], steps <= aliases.count { r = u; steps += 1 }
        return r
    }

    private func planArena() throws {
        let n = graph.tensors.count
        let end = graph.operators.count
        var first = [Int](repeating: Int.max, count: n)
        var last = [Int](repeating: -1, count: n)
        for t in graph.inputs { first[t] = -1; last[t] = end }
        for k in graph.operators.indices {
            let op = graph.operators[k]
            guard !foldedOps[k] else { continue }
            for t in effectiveInputs[k] ?? op.inputs where t >= 0 { first[t] = min(first[t], k); last[t] = max(last[t], k) }
            for t in op.outputs where t >= 0 { first[t] = min(first[t], k); last[t] = max(last[t], k) }
        }
        for t in graph.outputs { last[t] = end; first[t] = min(first[t], end) }
        for t in aliases.keys {
            let r = aliasRoot(t)
            first[r] = min(first[r], first[t]); last[r] = max(last[r], last[t])
        }
        for t in aliases.keys { first[t] = Int.max }
        if options.preserveAllTensors {
            for t in 0..<n where first[t] != Int.max { first[t] = -1; last[t] = end }
        }
        var requests: [ArenaPlanner.Request] = []
        for t in 0..<n where !isConstant[t] && first[t] != Int.max {
            requests.append(.init(tensor: t, byteCount: try byteCount(t), firstUse: first[t], lastUse: last[t]))
        }
        let plan = ArenaPlanner.plan(requests)
        let needed = plan.map { OperatorWork.add($0.size, foldedByteCount) } ?? Int.max
        guard let plan, needed <= options.maxArenaBytes else {
            let arenaText = plan.map { "an arena of \($0.size) bytes" } ?? "an arena larger than \(Int.max) bytes"
            throw InterpreterError.limitExceeded(option: "maxArenaBytes", needed: needed, limit: options.maxArenaBytes,
                                                 context: "\(arenaText) for \(requests.count) activation tensors plus \(foldedByteCount) bytes of constants folded at prepare")
        }
        if (arena?.byteCount ?? -1) < plan.size {
            arena = AlignedBuffer(byteCount: plan.size)
        }
        let base = arena?.pointer ?? dummy.pointer
        for i in requests.indices {
            let r = requests[i]
            storage[r.tensor] = .arena(offset: plan.offsets[i])
            pointerTable[r.tensor] = base + plan.offsets[i]
        }
        for t in aliases.keys {
            let r = aliasRoot(t)
            storage[t] = storage[r]
            pointerTable[t] = pointerTable[r]
        }
        for t in 0..<n {
            switch storage[t] {
            case .owned(let b): pointerTable[t] = b.pointer
            case .none: pointerTable[t] = dummy.pointer
            case .model, .arena: break
            }
        }
    }

    /// Bytes of the arena (intermediate tensors, inputs and outputs).
    public var arenaByteCount: Int { arena?.byteCount ?? 0 }
    /// Bytes of the constants folded at prepare (with `arenaByteCount`, what `Options.maxArenaBytes` bounds).
    public private(set) var foldedByteCount = 0
    /// Multiply-accumulates one `invoke()` does, as `Options.maxMultiplyAccumulates` counts them
    /// (without the ops folded at prepare).
    public private(set) var multiplyAccumulateCount = 0

    // MARK: - Inputs and outputs

    private func describe(_ t: Int) -> TensorDescription {
        let g = graph.tensors[t]
        return TensorDescription(index: t, name: g.name, type: types[t], shape: shapes[t],
                                 shapeSignature: g.shapeSignature, quantization: g.quantization)
    }

    /// Describes any tensor by index (current shape and type).
    public func tensorDescription(_ tensor: Int) -> TensorDescription { describe(tensor) }

    /// The model's inputs, in subgraph input order.
    public var inputs: [TensorDescription] { graph.inputs.map(describe) }
    /// The model's outputs, in subgraph output order (shapes as of the last prepare).
    public var outputs: [TensorDescription] { graph.outputs.map(describe) }

    private func inputTensor(_ position: Int) throws -> Int {
        guard position >= 0, position < graph.inputs.count else {
            throw InterpreterError.ioIndexOutOfRange(kind: "input", index: position, count: graph.inputs.count)
        }
        return graph.inputs[position]
    }

    private func outputTensor(_ position: Int) throws -> Int {
        guard position >= 0, position < graph.outputs.count else {
            throw InterpreterError.ioIndexOutOfRange(kind: "output", index: position, count: graph.outputs.count)
        }
        return graph.outputs[position]
    }

    /// Gives input `position` a new shape. Only dimensions that are dynamic (-1) in the
    /// shape signature may change. The next `copyInput`/`invoke` re-prepares (input data
    /// copied before the resize is lost).
    public func resizeInput(at position: Int, to shape: [Int]) throws {
        let t = try inputTensor(position)
        let g = graph.tensors[t]
        let signature = g.shapeSignature.count == g.shape.count ? g.shapeSignature : g.shape
        guard shape.count == signature.count else {
            throw InterpreterError.invalidResize(input: position, name: g.name, reason: "rank \(shape.count) differs from the model's rank \(signature.count)")
        }
        for i in shape.indices {
            let d = shape[i]
            guard d > 0 else { throw InterpreterError.invalidResize(input: position, name: g.name, reason: "dimension \(i) must be positive, got \(d)") }
            guard signature[i] == -1 || signature[i] == d else {
                throw InterpreterError.invalidResize(input: position, name: g.name, reason: "dimension \(i) is fixed at \(signature[i]) in the model's shape signature \(signature)")
            }
        }
        guard Shape.elementCount(shape) != nil else {
            throw InterpreterError.invalidResize(input: position, name: g.name, reason: "shape \(shape) has too many elements")
        }
        if shapes[t] != shape {
            shapes[t] = shape
            needsPrepare = true
        }
    }

    /// Copies raw little-endian bytes into input `position`; the size must match exactly.
    public func copyInput(_ bytes: UnsafeRawBufferPointer, at position: Int) throws {
        let t = try inputTensor(position)
        if needsPrepare { try prepare() }
        let expected = try byteCount(t)
        guard bytes.count == expected else {
            throw InterpreterError.inputSizeMismatch(input: position, name: graph.tensors[t].name, expectedBytes: expected, actualBytes: bytes.count)
        }
        guard case .arena = storage[t], let src = bytes.baseAddress else { return }
        pointerTable[t].copyMemory(from: src, byteCount: expected)
    }

    /// Copies `Data` into input `position`.
    public func copyInput(_ data: Data, at position: Int) throws {
        try data.withUnsafeBytes { try copyInput($0, at: position) }
    }

    /// Copies bytes into input `position`.
    public func copyInput(_ bytes: [UInt8], at position: Int) throws {
        try bytes.withUnsafeBytes { try copyInput($0, at: position) }
    }

    /// Copies float values into a float32 input.
    public func copyInput(_ values: [Float], at position: Int) throws {
        let t = try inputTensor(position)
        guard types[t] == .float32 else {
            throw InterpreterError.typeMismatch(tensor: graph.tensors[t].name, expected: "float32", actual: types[t].name)
        }
        try values.withUnsafeBytes { try copyInput($0, at: position) }
    }

    /// The kernel-table entries op `k` runs (`PreparedKernel.kernelName`), for profiles; nil
    /// for ops with one implementation, folded ops and out-of-range indices.
    /// Whether op `k` was evaluated once at prepare (constant folding: all its inputs are
    /// constants, e.g. DENSIFY and DEQUANTIZE of weights); `invoke()` skips it.
    package func isFoldedAtPrepare(operator k: Int) -> Bool {
        k >= 0 && k < foldedOps.count && foldedOps[k]
    }

    package func kernelName(ofOperator k: Int) -> String? {
        guard k >= 0, k < kernels.count else { return nil }
        return kernels[k]?.kernelName
    }

    /// When non-nil, `invoke()` adds each op's wall time in milliseconds to `profile[opIndex]`
    /// (for `objdetect bench --profile`). Set it to `[Double](repeating: 0, count: graph.operators.count)`.
    public var profile: [Double]?

    /// Runs the graph once on the current inputs.
    public func invoke() throws {
        if needsPrepare { try prepare() }
        try withModelBytes { (raw: UnsafeRawBufferPointer) in
            refreshModelPointers(raw)
            let context = EvalContext(pointers: UnsafePointer(pointerTable), threadCount: options.threadCount, kernelTable: kernelTable)
            if profile?.count == kernels.count {
                for k in kernels.indices where !foldedOps[k] {
                    guard let kernel = kernels[k] else { continue }
                    let start = DispatchTime.now().uptimeNanoseconds
                    try kernel.eval(context)
                    profile?[k] += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                }
                return
            }
            for k in kernels.indices where !foldedOps[k] {
                guard let kernel = kernels[k] else { continue }
                try kernel.eval(context)
            }
        }
    }

    /// Runs `body` with the model bytes, keeping them alive.
    private func withModelBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(graph.modelBytes) { try body(graph.modelBytes.bytes) }
    }

    private func refreshModelPointers(_ raw: UnsafeRawBufferPointer) {
        for t in storage.indices {
            if case .model(let offset, _) = storage[t] {
                pointerTable[t] = raw.baseAddress.map { UnsafeMutableRawPointer(mutating: $0 + offset) } ?? dummy.pointer
            }
        }
    }

    /// Gives a closure the raw bytes of output `position` (valid only inside the closure).
    public func withOutputBytes<R>(at position: Int, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        let t = try outputTensor(position)
        if needsPrepare { try prepare() }
        let count = try byteCount(t)
        return try withModelBytes { (raw: UnsafeRawBufferPointer) in
            refreshModelPointers(raw)
            return try body(UnsafeRawBufferPointer(start: pointerTable[t], count: count))
        }
    }

    /// A copy of any tensor's current bytes, by tensor index (nil for an index out of range or
    /// a tensor without data). Intermediate tensors are only meaningful after `invoke()` with
    /// `Options.preserveAllTensors`.
    public func tensorBytes(_ tensor: Int) -> (description: TensorDescription, bytes: [UInt8])? {
        guard tensor >= 0, tensor < graph.tensors.count, let count = try? byteCount(tensor) else { return nil }
        if case .none = storage[tensor] { return nil }
        return withModelBytes { raw in
            refreshModelPointers(raw)
            return (describe(tensor), Array(UnsafeRawBufferPointer(start: pointerTable[tensor], count: count)))
        }
    }

    /// A copy of output `position`'s raw little-endian bytes.
    public func outputBytes(at position: Int) throws -> [UInt8] {
        try withOutputBytes(at: position) { Array($0) }
    }

    /// Output `position` as floats (it must be float32).
    public func outputFloats(at position: Int) throws -> [Float] {
        let t = try outputTensor(position)
        guard types[t] == .float32 else {
            throw InterpreterError.typeMismatch(tensor: graph.tensors[t].name, expected: "float32", actual: types[t].name)
        }
        return try withOutputBytes(at: position) { Array($0.bindMemory(to: Float.self)) }
    }

    /// Output `position` as values of type `T` (its element type must be `type`).
    public func output<T>(at position: Int, as type: TensorDataType, _: T.Type) throws -> [T] {
        let t = try outputTensor(position)
        guard types[t] == type, type.byteSize == MemoryLayout<T>.size else {
            throw InterpreterError.typeMismatch(tensor: graph.tensors[t].name, expected: type.name, actual: types[t].name)
        }
        return try withOutputBytes(at: position) { Array($0.bindMemory(to: T.self)) }
    }
}
