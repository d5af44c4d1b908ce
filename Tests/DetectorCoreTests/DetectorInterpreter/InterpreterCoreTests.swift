import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class InterpreterCoreTests: XCTestCase {
    func testAddReluReshapeChainRunsAndReusesArena() throws {
        var g = GraphBuilder()
        let a = g.input([1, 2, 2, 1])
        let b = g.constant([1, -10, 0.5, -0.5], shape: [4])
        let reshaped = g.op(.reshape, [a]) { $0.newShape = [4] }[0]
        let sum = g.op(.add, [reshaped, b])[0]
        let r = g.op(.relu, [sum])[0]
        let out = g.op(.reshape, [r]) { $0.newShape = [2, 2] }[0]
        g.outputs = [out]
        let interpreter = try Interpreter(graph: g.build())
        XCTAssertEqual(interpreter.outputs[0].shape, [2, 2])
        for _ in 0..<2 {
            try interpreter.copyInput([1, 2, 3, 4] as [Float], at: 0)
            try interpreter.invoke()
            XCTAssertEqual(try interpreter.outputFloats(at: 0), [2, 0, 3.5, 3.5])
        }
        // 5 tensors of 16 bytes: input and output live throughout, the three
        // intermediates overlap pairwise only, so at most 4 slots of 64 bytes are needed.
        XCTAssertLessThanOrEqual(interpreter.arenaByteCount, 4 * 64)
    }

    /// A reshaped tensor read by nothing else shares the reshape's output buffer (chains
    /// too); one with a second reader, or a graph input, keeps its own.
    func testReshapeInputsShareTheOutputBufferWhenNothingElseReadsThem() throws {
        var g = GraphBuilder()
        let x = g.input([2, 3])
        let c = g.constant([1, 2, 3, 4, 5, 6], shape: [2, 3])
        let sum = g.op(.add, [x, c])[0]
        let flat = g.op(.reshape, [sum]) { $0.newShape = [6] }[0]
        let back = g.op(.reshape, [flat]) { $0.newShape = [3, 2] }[0]
        let doubled = g.op(.add, [back, back])[0]
        let fromInput = g.op(.reshape, [x]) { $0.newShape = [6] }[0]
        let twice = g.op(.mul, [flat, flat])   // a second reader of `flat`
        _ = twice
        g.outputs = [doubled, fromInput]
        // `flat` has two readers (RESHAPE and MUL): only `sum` → `flat` is aliased.
        let interpreter = try Interpreter(graph: g.build(), options: .init(threadCount: 1))
        XCTAssertEqual(interpreter.aliases[sum], flat)
        XCTAssertNil(interpreter.aliases[flat])
        XCTAssertNil(interpreter.aliases[x])
        try interpreter.copyInput([0, 1, 2, 3, 4, 5] as [Float], at: 0)
        try interpreter.invoke()
        XCTAssertEqual(try interpreter.outputFloats(at: 0), [2, 6, 10, 14, 18, 22])
        XCTAssertEqual(try interpreter.outputFloats(at: 1), [0, 1, 2, 3, 4, 5])

        // Without the MUL, the chain sum → flat → back shares one buffer.
        g.operators.removeAll { $0.code == .mul }
        let chained = try Interpreter(graph: g.build(), options: .init(threadCount: 1))
        XCTAssertEqual(chained.aliases[sum], flat)
        XCTAssertEqual(chained.aliases[flat], back)
        XCTAssertEqual(chained.pointerTable[sum], chained.pointerTable[back])
        try chained.copyInput([0, 1, 2, 3, 4, 5] as [Float], at: 0)
        try chained.invoke()
        XCTAssertEqual(try chained.outputFloats(at: 0), [2, 6, 10, 14, 18, 22])
        // preserveAllTensors keeps every tensor readable: no aliases.
        let preserved = try Interpreter(graph: g.build(), options: .init(threadCount: 1, preserveAllTensors: true))
        XCTAssertTrue(preserved.aliases.isEmpty)
    }

    func testUnsupportedOpFailsAtLoadNamingOpIndexAndTypes() {
        var g = GraphBuilder()
        let a = g.input([2])
        g.op(.relu, [a])
        let bad = g.custom("FANCY_OP", [a])[0]
        g.outputs = [bad]
        XCTAssertThrowsError(try Interpreter(graph: g.build())) { error in
            XCTAssertEqual(error as? InterpreterError,
                           .unsupportedOperator(index: 1, opName: "FANCY_OP", inputTypes: ["float32"], outputTypes: ["float32"]))
            XCTAssertTrue("\(error)".contains("FANCY_OP at op index 1"))
        }
    }

    func testRegistryMatchesCustomOpsByCustomCodeOnly() {
        let registry = KernelRegistry.standard
        // A custom op that happens to be named like a builtin gets no builtin kernel.
        XCTAssertNil(registry.registration(code: .custom, customCode: "CONV_2D", activationType: .float32))
        XCTAssertNil(registry.registration(code: .custom, customCode: nil, activationType: .float32))
        XCTAssertNotNil(registry.registration(code: .custom, customCode: "TFLite_Detection_PostProcess", activationType: .float32))
        XCTAssertNotNil(registry.registration(code: .conv2D, activationType: .float32))
        XCTAssertNil(registry.registration(code: BuiltinOperator(rawValue: 1000), activationType: .float32))
    }

    func testUnsupportedTypeFailsAtLoad() {
        var g = GraphBuilder()
        let a = g.input([2], .uint8)
        g.outputs = g.op(.relu, [a], outputs: [.uint8])
        let registry = KernelRegistry(KernelRegistry.floatRegistrations)
        XCTAssertThrowsError(try Interpreter(graph: g.build(), options: { var o = Interpreter.Options(); o.registry = registry; return o }())) { error in
            guard case .unsupportedOperator(0, "RELU", ["uint8"], _)? = error as? InterpreterError else {
                return XCTFail("unexpected \(error)")
            }
        }
    }

    func testInputSizeMismatchIsTypedError() throws {
        var g = GraphBuilder()
        let a = g.input([3])
        g.outputs = g.op(.relu, [a])
        let interpreter = try Interpreter(graph: g.build())
        XCTAssertThrowsError(try interpreter.copyInput([1, 2] as [Float], at: 0)) { error in
            XCTAssertEqual(error as? InterpreterError, .inputSizeMismatch(input: 0, name: "t0", expectedBytes: 12, actualBytes: 8))
        }
        XCTAssertThrowsError(try interpreter.copyInput([1, 2, 3] as [Float], at: 1))
    }

    func testResizeDynamicInputReprepares() throws {
        var g = GraphBuilder()
        let a = g.input([1, 1], signature: [-1, 2 - 3])
        g.outputs = g.op(.relu, [a])
        let interpreter = try Interpreter(graph: g.build())
        try interpreter.resizeInput(at: 0, to: [2, 3])
        try interpreter.copyInput([-1, 2, -3, 4, -5, 6] as [Float], at: 0)
        try interpreter.invoke()
        XCTAssertEqual(interpreter.outputs[0].shape, [2, 3])
        XCTAssertEqual(try interpreter.outputFloats(at: 0), [0, 2, 0, 4, 0, 6])
    }

    func testResizeOfFixedDimensionIsRejected() throws {
        var g = GraphBuilder()
        let a = g.input([1, 3], signature: [-1, 3])
        g.outputs = g.op(.relu, [a])
        let interpreter = try Interpreter(graph: g.build())
        XCTAssertThrowsError(try interpreter.resizeInput(at: 0, to: [1, 4]))
        XCTAssertThrowsError(try interpreter.resizeInput(at: 0, to: [1, 3, 1]))
        XCTAssertNoThrow(try interpreter.resizeInput(at: 0, to: [5, 3]))
    }

    func testConstantSubgraphIsFoldedAtPrepare() throws {
        var g = GraphBuilder()
        let x = g.input([2])
        let c1 = g.constant([1, 2], shape: [2])
        let c2 = g.constant([10, 20], shape: [2])
        let folded = g.op(.mul, [c1, c2])[0]
        g.outputs = g.op(.add, [x, folded])
        let interpreter = try Interpreter(graph: g.build())
        XCTAssertEqual(interpreter.foldedOps, [true, false])
        try interpreter.copyInput([1, 1] as [Float], at: 0)
        try interpreter.invoke()
        XCTAssertEqual(try interpreter.outputFloats(at: 0), [11, 41])
    }

    func testBadTensorIndexIsTypedError() {
        var g = GraphBuilder()
        let a = g.input([2])
        g.operators.append(GraphOperator(code: .relu, inputs: [a], outputs: [7]))
        g.outputs = [a]
        XCTAssertThrowsError(try Interpreter(graph: g.build())) { error in
            guard case .tensorIndexOutOfRange(7, _, _)? = error as? InterpreterError else { return XCTFail("\(error)") }
        }
    }

    func testArenaPlannerKeepsLiveTensorsApart() {
        let reqs: [ArenaPlanner.Request] = [
            .init(tensor: 0, byteCount: 100, firstUse: 0, lastUse: 1),
            .init(tensor: 1, byteCount: 100, firstUse: 1, lastUse: 2),
            .init(tensor: 2, byteCount: 100, firstUse: 2, lastUse: 3),
        ]
        let plan = ArenaPlanner.plan(reqs)!
        XCTAssertNotEqual(plan.offsets[0], plan.offsets[1])
        XCTAssertNotEqual(plan.offsets[1], plan.offsets[2])
        XCTAssertEqual(plan.offsets[0], plan.offsets[2]) // 0 and 2 never live together
        XCTAssertEqual(plan.size, 256)
    }

    /// Shared scratch parts start at multiples of 64 bytes; `reserve` only grows.
    func testSharedScratchLayoutAndGrowth() {
        let layout = SharedScratch.layout([10, 100, 0, 64])
        XCTAssertEqual(layout.offsets, [0, 64, 192, 192])
        XCTAssertEqual(layout.total, 256)
        let scratch = SharedScratch()
        scratch.reserve(1000)
        XCTAssertGreaterThanOrEqual(scratch.byteCount, 1000)
        scratch.reserve(10)
        XCTAssertGreaterThanOrEqual(scratch.byteCount, 1000)
        XCTAssertEqual(Int(bitPattern: scratch.pointer) % 64, 0)
    }

    /// Released pages of a mapped file read back as the same bytes; ranges out of bounds and
    /// in-memory storage are left alone.
    func testReleasedModelPagesReadBackTheSameBytes() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("objdetect-release-\(ProcessInfo.processInfo.processIdentifier).bin")
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let mapped = try ByteStorage(contentsOfFile: url.path)
        XCTAssertEqual(Array(mapped.bytes), bytes)
        mapped.releasePages(ByteRange(offset: 1000, count: 250_000))
        mapped.releasePages(ByteRange(offset: 299_000, count: 5000))
        XCTAssertEqual(Array(mapped.bytes), bytes)
        let copy = ByteStorage(copying: bytes)
        copy.releasePages(ByteRange(offset: 0, count: bytes.count))
        XCTAssertEqual(Array(copy.bytes), bytes)
    }
}
