import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The fast paths of the quantized element-wise and data-movement kernels (result tables,
/// merged broadcast rows, vectorized max pooling, row-copy PAD and strided copy) against their
/// plain reference implementations on random shapes, parameters and all 8-bit input values.
extension QuantizedKernelTests {
    enum BinaryOp: CaseIterable { case add, sub, mul }

    /// The reference per-pair arithmetic of `op`.
    static func arithmetic(_ op: BinaryOp, _ addSub: QuantizedAddSubParams, _ mul: QuantizedMulParams) -> (Int32, Int32) -> Int32 {
        switch op {
        case .add: return { addSub.sum($0, $1) }
        case .sub: return { addSub.difference($0, $1) }
        case .mul: return { mul.product($0, $1) }
        }
    }

    /// Random per-tensor quantization: scales over several decades, zero points across the type's range.
    static func randomQuantization<T: QuantizedElement>(_ rng: inout TestRandom, _: T.Type) -> QuantizationParams {
        let scale = Float(pow(10, Double(rng.int(-3000...300)) / 1000))
        return QuantizationParams(scale: scale, zeroPoint: Int32(rng.int(Int(T.quantizedMin)...Int(T.quantizedMax))))
    }

    static func randomActivation(_ rng: inout TestRandom) -> QuantizedFusedActivation {
        [QuantizedFusedActivation.none, .relu, .relu6, .reluN1To1][rng.below(4)]
    }

    /// Random values of `T`, including the extremes.
    static func randomValues<T: QuantizedElement>(_ rng: inout TestRandom, _ count: Int, _: T.Type) -> [T] {
        (0..<count).map { _ in T(truncatingIfNeeded: UInt8(truncatingIfNeeded: rng.next())) }
    }

    /// A random output shape (rank 0...6) and two input shapes broadcasting to it.
    static func randomBroadcastShapes(_ rng: inout TestRandom) -> (a: [Int], b: [Int], out: [Int]) {
        let rank = rng.int(0...6)
        var out = (0..<rank).map { _ in rng.int(1...5) }
        if rank > 0, rng.below(4) == 0 { out[rng.below(rank)] = rng.int(6...40) }
        func side() -> [Int] {
            let drop = rng.below(3) == 0 ? rng.int(0...rank) : 0
            return out.suffix(rank - drop).map { rng.below(3) == 0 ? 1 : $0 }
        }
        var a = side(), b = side()
        // Either side may be 1 where the output is not, but not both.
        for d in 0..<rank {
            let ia = d - (rank - a.count), ib = d - (rank - b.count)
            let aOne = ia < 0 || a[ia] == 1, bOne = ib < 0 || b[ib] == 1
            if aOne && bOne && out[d] != 1 {
                if ia >= 0 { a[ia] = out[d] } else if ib >= 0 { b[ib] = out[d] } else { out[d] = 1 }
            }
        }
        return (a, b, Array(out.suffix(max(a.count, b.count))))
    }

    /// Broadcast binary op computed element by element from the shapes alone (independent of `BroadcastPlan`).
    static func naiveBroadcast<T: QuantizedElement>(_ a: [T], _ aShape: [Int], _ b: [T], _ bShape: [Int], _ out: [Int],
                                                    _ f: (Int32, Int32) -> Int32) -> [T] {
        let rank = out.count
        let pa = [Int](repeating: 1, count: rank - aShape.count) + aShape
        let pb = [Int](repeating: 1, count: rank - bShape.count) + bShape
        let sa = Shape.strides(pa), sb = Shape.strides(pb), so = Shape.strides(out)
        return (0..<Shape.count(out)).map { o in
            var ia = 0, ib = 0
            for d in 0..<rank {
                let i = (o / so[d]) % out[d]
                if pa[d] != 1 { ia += i * sa[d] }
                if pb[d] != 1 { ib += i * sb[d] }
            }
            return T(truncatingIfNeeded: f(Int32(a[ia]), Int32(b[ib])))
        }
    }

    func checkBinaryFastPaths<T: QuantizedElement>(_: T.Type, seed: UInt64) {
        var rng = TestRandom(seed: seed)
        for trial in 0..<60 {
            let op = BinaryOp.allCases[trial % 3]
            let q1 = Self.randomQuantization(&rng, T.self), q2 = Self.randomQuantization(&rng, T.self)
            let qo = Self.randomQuantization(&rng, T.self), act = Self.randomActivation(&rng)
            let addSub = QuantizedAddSubParams(input1: q1, input2: q2, output: qo, activation: act, type: T.self)
            let mul = QuantizedMulParams(input1: q1, input2: q2, output: qo, activation: act, type: T.self)
            let f = Self.arithmetic(op, addSub, mul)
            let table = op == .mul ? QuantizedPairTable(T.self, f) : QuantizedPairTable(T.self, addSub: addSub, subtract: op == .sub)
            XCTAssertEqual(table.entries.count, 65536)
            for _ in 0..<4 {
                let (aShape, bShape, outShape) = Self.randomBroadcastShapes(&rng)
                guard let plan = BroadcastPlan(aShape, bShape) else { return XCTFail("\(aShape) \(bShape) do not broadcast") }
                XCTAssertEqual(plan.outputShape, outShape)
                let a = Self.randomValues(&rng, Shape.count(aShape), T.self), b = Self.randomValues(&rng, Shape.count(bShape), T.self)
                let expected = Self.naiveBroadcast(a, aShape, b, bShape, outShape, f)
                var reference = [T](repeating: 0, count: expected.count), fast = reference
                a.withUnsafeBufferPointer { ap in b.withUnsafeBufferPointer { bp in
                    guard let x = ap.baseAddress, let y = bp.baseAddress else { return }
                    reference.withUnsafeMutableBufferPointer { r in
                        guard let o = r.baseAddress else { return }
                        switch op {
                        case .add: QuantizedAdd.run(addSub, plan: plan, input1: x, input2: y, output: o)
                        case .sub: QuantizedSub.run(addSub, plan: plan, input1: x, input2: y, output: o)
                        case .mul: QuantizedMul.run(mul, plan: plan, input1: x, input2: y, output: o)
                        }
                    }
                    fast.withUnsafeMutableBufferPointer { r in
                        guard let o = r.baseAddress else { return }
                        table.apply(plan: plan, input1: x, input2: y, output: o)
                    }
                } }
                XCTAssertEqual(reference, expected, "\(op) reference \(aShape) \(bShape)")
                XCTAssertEqual(fast, expected, "\(op) table \(aShape) \(bShape)")
            }
        }
    }

    func testPairTablesMatchReferenceWithBroadcastingInt8() { checkBinaryFastPaths(Int8.self, seed: 11) }
    func testPairTablesMatchReferenceWithBroadcastingUInt8() { checkBinaryFastPaths(UInt8.self, seed: 12) }

    /// Every input pair: the table holds exactly what the reference loop computes.
    func testPairTableCoversEveryInputPair() {
        var rng = TestRandom(seed: 13)
        func check<T: QuantizedElement>(_: T.Type) {
            let all = (0..<65536).map { (T(truncatingIfNeeded: UInt8($0 >> 8)), T(truncatingIfNeeded: UInt8($0 & 255))) }
            let a = all.map(\.0), b = all.map(\.1)
            guard let plan = BroadcastPlan([65536], [65536]) else { return XCTFail("plan") }
            let q1 = Self.randomQuantization(&rng, T.self), q2 = Self.randomQuantization(&rng, T.self)
            let p = QuantizedMulParams(input1: q1, input2: q2, output: Self.randomQuantization(&rng, T.self),
                                       activation: Self.randomActivation(&rng), type: T.self)
            let s = QuantizedAddSubParams(input1: q1, input2: q2, output: Self.randomQuantization(&rng, T.self),
                                          activation: Self.randomActivation(&rng), type: T.self)
            var expected = [T](repeating: 0, count: 65536), fast = expected
            QuantizedMul.run(p, plan: plan, input1: a, input2: b, output: &expected)
            QuantizedPairTable(T.self, p.product).apply(plan: plan, input1: a, input2: b, output: &fast)
            XCTAssertEqual(fast, expected, "MUL \(T.self)")
            QuantizedAdd.run(s, plan: plan, input1: a, input2: b, output: &expected)
            QuantizedPairTable(T.self, s.sum).apply(plan: plan, input1: a, input2: b, output: &fast)
            XCTAssertEqual(fast, expected, "ADD \(T.self)")
            for tier in TierTesting.tiers {
                QuantizedAdd.run(s, plan: plan, input1: a, input2: b, output: &expected)
                QuantizedPairTable(T.self, addSub: s, subtract: false, tier: tier).apply(plan: plan, input1: a, input2: b, output: &fast)
                XCTAssertEqual(fast, expected, "ADD from per-input rescaling \(T.self) \(tier)")
                QuantizedSub.run(s, plan: plan, input1: a, input2: b, output: &expected)
                QuantizedPairTable(T.self, addSub: s, subtract: true, tier: tier).apply(plan: plan, input1: a, input2: b, output: &fast)
                XCTAssertEqual(fast, expected, "SUB from per-input rescaling \(T.self) \(tier)")
            }
        }
        for _ in 0..<3 { check(Int8.self); check(UInt8.self) }
    }

    /// `QuantizedAdd.runBlocks` (sums in blocks, the tier's vector requantization) against the
    /// scalar `run` at every tier: every input pair contiguously (65,536 outputs, so full blocks,
    /// a partial last block and 16-lane remainders are all hit) and random broadcast shapes
    /// (strides 0 and 1, runs shorter than 16).
    func testAddSubBlocksMatchScalarLoopAtEveryTier() {
        var rng = TestRandom(seed: 15)
        func check<T: QuantizedElement>(_: T.Type) {
            let a = (0..<65536 + 37).map { T(truncatingIfNeeded: UInt8(truncatingIfNeeded: $0 >> 8)) }
            let b = (0..<65536 + 37).map { T(truncatingIfNeeded: UInt8(truncatingIfNeeded: $0 &* 7)) }
            let p = QuantizedAddSubParams(input1: Self.randomQuantization(&rng, T.self), input2: Self.randomQuantization(&rng, T.self),
                                          output: Self.randomQuantization(&rng, T.self), activation: Self.randomActivation(&rng), type: T.self)
            let shapes = (0..<6).map { _ in Self.randomBroadcastShapes(&rng) }
            let inputs = shapes.map { (Self.randomValues(&rng, Shape.count($0.a), T.self), Self.randomValues(&rng, Shape.count($0.b), T.self)) }
            for tier in TierTesting.tiers {
                guard let v = QuantizedAdd.vectorRequantization(p, tier: tier) else { return XCTFail("no vector requantization for \(p.output)") }
                VectorRequantization.withRows(v) { rows in
                    guard let rows else { return XCTFail("rows") }
                    for subtract in [false, true] {
                        var cases = [(plan: BroadcastPlan([a.count], [b.count]), a: a, b: b)]
                        for (k, s) in shapes.enumerated() { cases.append((BroadcastPlan(s.a, s.b), inputs[k].0, inputs[k].1)) }
                        for (plan, x, y) in cases {
                            guard let plan else { return XCTFail("plan") }
                            let count = Shape.count(plan.outputShape)
                            var expected = [T](repeating: 0, count: count), fast = [T](repeating: 1, count: count)
                            QuantizedAdd.run(p, plan: plan, input1: x, input2: y, output: &expected, subtract: subtract)
                            fast.withUnsafeMutableBufferPointer { o in x.withUnsafeBufferPointer { xp in y.withUnsafeBufferPointer { yp in
                                guard let o = o.baseAddress, let xp = xp.baseAddress, let yp = yp.baseAddress else { return }
                                QuantizedAdd.runBlocks(p, rows, plan: plan, input1: xp, input2: yp, output: o, subtract: subtract)
                            } } }
                            XCTAssertEqual(fast, expected, "\(T.self) \(tier) subtract \(subtract) \(plan.outputShape)")
                        }
                    }
                }
            }
        }
        for _ in 0..<4 { check(Int8.self); check(UInt8.self) }
    }

    /// Large ADD/SUB/MUL graphs take the table path inside the interpreter; compare with the reference loop.
    /// (64×64×6 takes the pair tables, 40×40×6 the per-input tables; same-shape ones split over
    /// 2 threads.)
    func testLargeBinaryOpsThroughInterpreterMatchReference() throws {
        var rng = TestRandom(seed: 14)
        for (k, op) in BinaryOp.allCases.enumerated() { for side in [64, 40] { for threads in [1, 2] {
            let int8 = k != 1
            let type: TensorDataType = int8 ? .int8 : .uint8
            let shape = [1, side, side, 6], bShape = k == 2 ? [1, 1, 1, 6] : shape
            let q1 = QuantizationParams(scale: 0.05, zeroPoint: int8 ? -3 : 120), q2 = QuantizationParams(scale: 0.02, zeroPoint: int8 ? 9 : 131)
            let qo = QuantizationParams(scale: 0.07, zeroPoint: int8 ? -10 : 118)
            var g = Q()
            let a = g.input(shape, type, Q.q(q1.scale, Int(q1.zeroPoint)))
            let b = g.input(bShape, type, Q.q(q2.scale, Int(q2.zeroPoint)))
            let o = g.output(type, Q.q(qo.scale, Int(qo.zeroPoint)))
            g.op(op == .add ? .add : (op == .sub ? .sub : .mul), [a, b], [o]) { $0.activation = .relu6 }
            let x = (0..<Shape.count(shape)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let y = (0..<Shape.count(bShape)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let result = try g.run([x, y], threads: threads).bytes
            func expected<T: QuantizedElement>(_: T.Type) -> [UInt8] {
                let xs = x.map { T(truncatingIfNeeded: $0) }, ys = y.map { T(truncatingIfNeeded: $0) }
                let s = QuantizedAddSubParams(input1: q1, input2: q2, output: qo, activation: .relu6, type: T.self)
                let m = QuantizedMulParams(input1: q1, input2: q2, output: qo, activation: .relu6, type: T.self)
                let f = Self.arithmetic(op, s, m)
                return Self.naiveBroadcast(xs, shape, ys, bShape, shape, f).map { UInt8(truncatingIfNeeded: $0) }
            }
            XCTAssertEqual(result, int8 ? expected(Int8.self) : expected(UInt8.self), "\(op) \(shape), \(threads) threads")
        } } }
    }

    /// 8-bit → 8-bit QUANTIZE: the table equals `requantize` on all 256 inputs, every type pair.
    func testRequantizeTableMatchesReferenceForEveryInput() {
        var rng = TestRandom(seed: 15)
        func check<In: QuantizedElement, Out: QuantizedElement>(_: In.Type, _: Out.Type) {
            let qi = Self.randomQuantization(&rng, In.self), qo = Self.randomQuantization(&rng, Out.self)
            let m = QuantizedQuantize.requantizeMultiplier(input: qi, output: qo)
            let inputs = (0..<256).map { In(truncatingIfNeeded: UInt8($0)) }
            var expected = [Out](repeating: 0, count: 256), fast = expected
            QuantizedQuantize.requantize(input: inputs, output: &expected, count: 256,
                                         inputZeroPoint: qi.zeroPoint, outputZeroPoint: qo.zeroPoint, multiplier: m)
            QuantizedQuantize.requantizeTable(In.self, Out.self, inputZeroPoint: qi.zeroPoint, outputZeroPoint: qo.zeroPoint, multiplier: m)
                .apply(input: inputs, output: &fast, count: 256)
            XCTAssertEqual(fast, expected, "\(In.self) → \(Out.self) \(qi) \(qo)")
        }
        for _ in 0..<25 {
            check(Int8.self, Int8.self); check(Int8.self, UInt8.self)
            check(UInt8.self, Int8.self); check(UInt8.self, UInt8.self)
        }
    }

    func checkMaxPoolVectorized<T: QuantizedElement & SIMDScalar>(_: T.Type, seed: UInt64) {
        var rng = TestRandom(seed: seed)
        for _ in 0..<80 {
            let h = rng.int(1...9), w = rng.int(1...9), depth = rng.int(1...50)
            guard let g = WindowGeometry(batches: rng.int(1...2), inputHeight: h, inputWidth: w,
                                                  filterHeight: rng.int(1...5), filterWidth: rng.int(1...5),
                                                  strideHeight: rng.int(1...3), strideWidth: rng.int(1...3),
                                                  samePadding: rng.below(2) == 0) else { continue }
            let q = Self.randomQuantization(&rng, T.self)
            let (lo, hi) = quantizedActivationRange(Self.randomActivation(&rng), output: q, as: T.self)
            guard QuantizedPooling.clampFitsType(T.self, lo, hi) else { continue }
            let input = Self.randomValues(&rng, g.batches * h * w * depth, T.self)
            let count = g.batches * g.outputHeight * g.outputWidth * depth
            var expected = [T](repeating: 0, count: count), fast = expected
            QuantizedPooling.max(g, depth: depth, activationMin: lo, activationMax: hi, input: input, output: &expected)
            QuantizedPooling.maxVectorized(g, depth: depth, activationMin: lo, activationMax: hi, input: input, output: &fast)
            XCTAssertEqual(fast, expected, "\(g) depth \(depth) clamp \(lo)...\(hi)")
        }
    }

    /// The row-summing average against the per-channel reference, on random geometries (clipped
    /// windows, strides, same padding, any clamp) and a global 7 × 7 × 1280 pool.
    func checkAveragePoolRows<T: QuantizedElement & SIMDScalar>(_: T.Type, seed: UInt64) {
        var rng = TestRandom(seed: seed)
        for trial in 0..<80 {
            let global = trial == 0
            let h = global ? 7 : rng.int(1...9), w = global ? 7 : rng.int(1...9), depth = global ? 1280 : rng.int(1...50)
            guard let g = WindowGeometry(batches: global ? 1 : rng.int(1...2), inputHeight: h, inputWidth: w,
                                         filterHeight: global ? 7 : rng.int(1...5), filterWidth: global ? 7 : rng.int(1...5),
                                         strideHeight: rng.int(1...3), strideWidth: rng.int(1...3),
                                         samePadding: !global && rng.below(2) == 0) else { continue }
            let q = Self.randomQuantization(&rng, T.self)
            let (lo, hi) = quantizedActivationRange(Self.randomActivation(&rng), output: q, as: T.self)
            let input = Self.randomValues(&rng, g.batches * h * w * depth, T.self)
            let count = g.batches * g.outputHeight * g.outputWidth * depth
            var expected = [T](repeating: 0, count: count), fast = expected
            QuantizedPooling.average(g, depth: depth, activationMin: lo, activationMax: hi, input: input, output: &expected)
            QuantizedPooling.averageRows(g, depth: depth, activationMin: lo, activationMax: hi, input: input, output: &fast)
            XCTAssertEqual(fast, expected, "\(g) depth \(depth) clamp \(lo)...\(hi)")
        }
    }

    func testAveragePoolRowsMatchesReferenceInt8() { checkAveragePoolRows(Int8.self, seed: 18) }
    func testAveragePoolRowsMatchesReferenceUInt8() { checkAveragePoolRows(UInt8.self, seed: 19) }

    /// CONCATENATION with per-input requantization tables (one lookup per byte, and the
    /// `vpermi2b` lookups where this CPU has them) against the per-element formula, on random
    /// shapes, scales (one input sharing the output's, so copied) and thread counts.
    func checkConcatenationTables<T: QuantizedElement>(_: T.Type, seed: UInt64) {
        var rng = TestRandom(seed: seed)
        let kernels: [ByteTableKernel?] = [nil] + TierTesting.tiers.map { KernelTable.for($0).byteTable }.filter { $0 != nil }
        for _ in 0..<40 {
            let outer = rng.int(1...7), n = rng.int(1...4)
            let qo = Self.randomQuantization(&rng, T.self)
            let sizes = (0..<n).map { _ in rng.int(1...150) }
            let qs = (0..<n).map { k in k == 0 ? qo : Self.randomQuantization(&rng, T.self) }
            let data = sizes.map { Self.randomValues(&rng, outer * $0, T.self) }
            let total = outer * sizes.reduce(0, +)
            var expected = [T](repeating: 0, count: total)
            withPointers(data) { pointers in
                QuantizedConcatenation.run(outerCount: outer, inputs: (0..<n).map { (pointers[$0], sizes[$0], qs[$0]) },
                                           output: &expected, outputQuantization: qo)
                let tables = qs.map { QuantizedConcatenation.requantizationTable(T.self, input: $0, output: qo) }
                XCTAssertNil(tables[0])
                for kernel in kernels {
                    for threads in [1, 3] {
                        var fast = [T](repeating: 0, count: total)
                        QuantizedConcatenation.run(outerCount: outer, inputs: (0..<n).map { (pointers[$0], sizes[$0]) },
                                                   tables: tables, output: &fast, threads: threads, byteTable: kernel)
                        XCTAssertEqual(fast, expected, "\(qs) → \(qo), \(kernel?.name ?? "scalar"), \(threads) threads")
                    }
                }
            }
        }
    }

    /// Calls `body` with stable pointers to each array's elements.
    private func withPointers<T>(_ arrays: [[T]], _ body: ([UnsafePointer<T>]) -> Void) {
        func step(_ k: Int, _ acc: [UnsafePointer<T>]) {
            if k == arrays.count { body(acc); return }
            arrays[k].withUnsafeBufferPointer { step(k + 1, acc + [$0.baseAddress!]) }
        }
        step(0, [])
    }

    func testConcatenationTablesMatchTheFormulaUInt8() { checkConcatenationTables(UInt8.self, seed: 20) }
    func testConcatenationTablesMatchTheFormulaInt8() { checkConcatenationTables(Int8.self, seed: 21) }

    func testMaxPoolVectorizedMatchesReferenceInt8() { checkMaxPoolVectorized(Int8.self, seed: 16) }
    func testMaxPoolVectorizedMatchesReferenceUInt8() { checkMaxPoolVectorized(UInt8.self, seed: 17) }

    /// Runs a data-movement kernel on raw tensors 0 (input), 1 (output) and optionally 2.
    /// `count` bytes written by a reference implementation `body(input, output)`.
    static func referenceBytes(_ count: Int, input: [UInt8], _ body: (UnsafeRawPointer, UnsafeMutableRawPointer) -> Void) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count + 1), x = input + [0]   // never empty: non-nil base addresses
        x.withUnsafeBytes { i in out.withUnsafeMutableBytes { o in
            guard let ib = i.baseAddress, let ob = o.baseAddress else { return }
            body(ib, ob)
        } }
        return Array(out.prefix(count))
    }

    static func evalKernel(_ kernel: any PreparedKernel, input: [UInt8], outputBytes: Int, extra: [UInt8] = [],
                           threads: Int = 1) throws -> [UInt8] {
        var x = input + [0], y = [UInt8](repeating: 0xA5, count: outputBytes + 1), z = extra + [0]
        try x.withUnsafeMutableBytes { xp in try y.withUnsafeMutableBytes { yp in try z.withUnsafeMutableBytes { zp in
            guard let a = xp.baseAddress, let b = yp.baseAddress, let c = zp.baseAddress else { return }
            let table = [a, b, c]
            try table.withUnsafeBufferPointer { t in
                guard let base = t.baseAddress else { return }
                try kernel.eval(EvalContext(pointers: base, threadCount: threads))
            }
        } } }
        XCTAssertEqual(y.last, 0xA5, "wrote past the output")
        return Array(y.dropLast())
    }

    func testPadRowCopiesMatchReference() throws {
        var rng = TestRandom(seed: 18)
        for _ in 0..<150 {
            let rank = rng.int(0...5), es = [1, 2, 4][rng.below(3)]
            let inShape = (0..<rank).map { _ in rng.int(0...4) == 0 ? rng.int(0...1) : rng.int(1...5) }
            let before = (0..<rank).map { _ in rng.below(2) == 0 ? 0 : rng.int(0...3) }
            let after = (0..<rank).map { _ in rng.below(2) == 0 ? 0 : rng.int(0...3) }
            let outShape = (0..<rank).map { inShape[$0] + before[$0] + after[$0] }
            let fill = (0..<es).map { _ in UInt8(truncatingIfNeeded: rng.below(3) == 0 ? 7 : rng.next()) }
            let useValueInput = rng.below(3) == 0
            let input = (0..<(Shape.count(inShape) * es)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let kernel = PadKernel(input: 0, output: 1, inShape: inShape, outShape: outShape, before: before, elementSize: es,
                                   fill: useValueInput ? [UInt8](repeating: 0, count: es) : fill, valueInput: useValueInput ? 2 : nil)
            let fast = try Self.evalKernel(kernel, input: input, outputBytes: Shape.count(outShape) * es, extra: fill)
            let expected = Self.referenceBytes(Shape.count(outShape) * es, input: input) {
                PadKernel.reference(input: $0, inShape: inShape, before: before, output: $1, outShape: outShape, elementSize: es, value: fill)
            }
            XCTAssertEqual(fast, expected, "in \(inShape) before \(before) after \(after) es \(es)")
        }
    }

    /// Spatial and batch padding on outputs large enough to split over threads (the gaps
    /// between rows filled by the part that owns the row after them, the tail by the last
    /// part), with a fill pattern whose bytes differ: every byte written once, as the oracle.
    func testPadRowsAndGapsMatchReferenceOnAnyThreadCount() throws {
        var rng = TestRandom(seed: 21)
        for (inShape, before, after, es) in [([1, 128, 128, 16], [0, 1, 1, 0], [0, 1, 1, 0], 4),
                                             ([2, 300, 301, 3], [1, 2, 0, 0], [0, 1, 3, 0], 1),
                                             ([1, 90, 90, 40], [0, 0, 1, 0], [0, 2, 0, 0], 2)] {
            let outShape = inShape.indices.map { inShape[$0] + before[$0] + after[$0] }
            let input = (0..<(Shape.count(inShape) * es)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let fill = (0..<es).map { UInt8(0x31 + $0) }
            let expected = Self.referenceBytes(Shape.count(outShape) * es, input: input) {
                PadKernel.reference(input: $0, inShape: inShape, before: before, output: $1, outShape: outShape, elementSize: es, value: fill)
            }
            for threads in [1, 2, 3] {
                let kernel = PadKernel(input: 0, output: 1, inShape: inShape, outShape: outShape, before: before, elementSize: es,
                                       fill: fill, valueInput: nil)
                let fast = try Self.evalKernel(kernel, input: input, outputBytes: Shape.count(outShape) * es, threads: threads)
                XCTAssertEqual(fast, expected, "in \(inShape) before \(before) after \(after) threads \(threads)")
            }
        }
    }

    /// Channel padding (only the innermost dimension padded) takes the per-pixel path, on
    /// enough pixels to split over threads.
    func testPadOfChannelsMatchesReferenceOnAnyThreadCount() throws {
        var rng = TestRandom(seed: 20)
        for (inShape, before, after, es) in [([1, 32, 32, 24], 0, 4, 4), ([2, 17, 9, 5], 2, 3, 4), ([3, 40, 7], 1, 0, 1),
                                             ([1, 64, 64, 3], 3, 2, 2)] {
            let rank = inShape.count
            let outShape = inShape.enumerated().map { $0.offset == rank - 1 ? $0.element + before + after : $0.element }
            let pads = (0..<rank).map { $0 == rank - 1 ? before : 0 }
            let input = (0..<(Shape.count(inShape) * es)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let fill = [UInt8](repeating: 9, count: es)
            let expected = Self.referenceBytes(Shape.count(outShape) * es, input: input) {
                PadKernel.reference(input: $0, inShape: inShape, before: pads, output: $1, outShape: outShape, elementSize: es, value: fill)
            }
            for threads in [1, 2, 3] {
                let kernel = PadKernel(input: 0, output: 1, inShape: inShape, outShape: outShape, before: pads, elementSize: es,
                                       fill: fill, valueInput: nil)
                let fast = try Self.evalKernel(kernel, input: input, outputBytes: Shape.count(outShape) * es, threads: threads)
                XCTAssertEqual(fast, expected, "in \(inShape) before \(before) after \(after) threads \(threads)")
            }
        }
    }

    func testStridedCopyMergedRowsMatchReference() throws {
        var rng = TestRandom(seed: 19)
        for _ in 0..<200 {
            let rank = rng.int(0...5), es = [1, 2, 4, 8][rng.below(4)]
            let inShape = (0..<rank).map { _ in rng.int(1...6) }
            var begin: [Int] = [], step: [Int] = [], sizes: [Int] = []
            for d in 0..<rank {
                let s = rng.below(3) == 0 ? [-2, -1, 2, 3][rng.below(4)] : 1
                let b = s > 0 ? rng.int(0...(inShape[d] - 1)) : rng.int(0...(inShape[d] - 1))
                let maxCount = s > 0 ? (inShape[d] - b + s - 1) / s : b / (-s) + 1
                let full = rng.below(2) == 0 && s == 1
                begin.append(full ? 0 : b); step.append(s)
                sizes.append(full ? inShape[d] : rng.int(0...maxCount))
            }
            let input = (0..<(Shape.count(inShape) * es)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let kernel = StridedCopyKernel(input: 0, output: 1, inShape: inShape, begin: begin, step: step, sizes: sizes, elementSize: es)
            let fast = try Self.evalKernel(kernel, input: input, outputBytes: Shape.count(sizes) * es)
            let expected = Self.referenceBytes(Shape.count(sizes) * es, input: input) {
                StridedCopyKernel.reference(input: $0, inShape: inShape, begin: begin, step: step, sizes: sizes, output: $1, elementSize: es)
            }
            XCTAssertEqual(fast, expected, "in \(inShape) begin \(begin) step \(step) sizes \(sizes) es \(es)")
        }
    }

    /// MUL(x, LOGISTIC(x)) / MUL(TANH(x), x) computed from x alone equals the two ops run
    /// separately; the gate op is switched off only when nothing else can read its output.
    func testGatedProductMatchesSeparateOps() throws {
        var rng = TestRandom(seed: 20)
        for trial in 0..<16 {
            let int8 = trial % 2 == 0, sourceFirst = trial % 4 < 2, gateIsOutput = trial % 8 >= 4, preserve = trial >= 8
            let gateOp = trial % 3 == 0 ? "TANH" : "LOGISTIC"
            let type: TensorDataType = int8 ? .int8 : .uint8
            let lo = int8 ? -128 : 0
            let qx = QuantizationParams(scale: Float(rng.int(20...900)) / 10000, zeroPoint: Int32(lo + rng.int(0...255)))
            let qf = QuantizationParams(scale: 1.0 / Float(rng.int(128...256)), zeroPoint: Int32(lo + rng.int(0...255)))
            let qo = QuantizationParams(scale: Float(rng.int(10...500)) / 10000, zeroPoint: Int32(lo + rng.int(0...255)))
            let shape = [1, 7, 9, 5]
            var g = Q()
            let x = g.input(shape, type, Q.q(qx.scale, Int(qx.zeroPoint)))
            let f: Int
            if gateIsOutput {
                f = g.output(type, Q.q(qf.scale, Int(qf.zeroPoint)))
            } else {
                g.tensors.append(GraphTensor(name: "gate", type: type, shape: [0], quantization: Q.q(qf.scale, Int(qf.zeroPoint))))
                f = g.tensors.count - 1
            }
            let o = g.output(type, Q.q(qo.scale, Int(qo.zeroPoint)))
            g.op(gateOp == "TANH" ? .tanh : .logistic, [x], [f])
            g.op(.mul, sourceFirst ? [x, f] : [f, x], [o])
            let interpreter = try Interpreter(graph: InterpreterGraph(tensors: g.tensors, operators: g.operators, inputs: g.inputs, outputs: g.outputs),
                                              options: .init(preserveAllTensors: preserve))
            let feed = (0..<Shape.count(shape)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            try interpreter.copyInput(feed, at: 0)
            try interpreter.invoke()
            let product = try interpreter.outputBytes(at: gateIsOutput ? 1 : 0)

            func expected<T: QuantizedElement>(_: T.Type) -> (gate: [UInt8], product: [UInt8]) {
                let table = gateOp == "TANH" ? QuantizedLookupTable.tanh(input: qx, output: qf, type: T.self)
                                             : QuantizedLookupTable.logistic(input: qx, output: qf, type: T.self)
                let xs = feed.map { T(truncatingIfNeeded: $0) }
                let fx = feed.map { T(truncatingIfNeeded: table.table[Int($0)]) }
                let m = QuantizedMulParams(input1: sourceFirst ? qx : qf, input2: sourceFirst ? qf : qx, output: qo, activation: .none, type: T.self)
                let p = Self.naiveBroadcast(sourceFirst ? xs : fx, shape, sourceFirst ? fx : xs, shape, shape) { m.product($0, $1) }
                return (fx.map { UInt8(truncatingIfNeeded: $0) }, p.map { UInt8(truncatingIfNeeded: $0) })
            }
            let want = int8 ? expected(Int8.self) : expected(UInt8.self)
            XCTAssertEqual(product, want.product, "trial \(trial) \(gateOp)")
            guard let mul = interpreter.kernels[1] as? QuantizedBinaryKernel, let gate = interpreter.kernels[0] as? QuantizedUnaryKernel else {
                return XCTFail("unexpected kernels")
            }
            guard case .gatedProduct = mul.operation else { return XCTFail("trial \(trial): MUL did not use the gated product") }
            XCTAssertEqual(gate.isElided, !gateIsOutput && !preserve, "trial \(trial)")
            if gateIsOutput || preserve {
                XCTAssertEqual(interpreter.tensorBytes(f)?.bytes, want.gate, "trial \(trial) gate tensor")
            }
        }
    }

    /// MUL(y, LOGISTIC(x)) with y != x is an ordinary product.
    func testGatedProductNeedsTheGateInput() throws {
        var g = Q()
        let x = g.input([1, 4, 4, 3], .int8, Q.q(0.05, -10))
        let y = g.input([1, 4, 4, 3], .int8, Q.q(0.05, -10))
        g.tensors.append(GraphTensor(name: "gate", type: .int8, shape: [0], quantization: Q.q(1.0 / 256, -128)))
        let f = g.tensors.count - 1
        let o = g.output(.int8, Q.q(0.03, 5))
        g.op(.logistic, [x], [f])
        g.op(.mul, [y, f], [o])
        var rng = TestRandom(seed: 21)
        let xs = (0..<48).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, ys = (0..<48).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let result = try g.run([xs, ys]).bytes
        let table = QuantizedLookupTable.logistic(input: .init(scale: 0.05, zeroPoint: -10), output: .init(scale: 1.0 / 256, zeroPoint: -128), type: Int8.self)
        let m = QuantizedMulParams(input1: .init(scale: 0.05, zeroPoint: -10), input2: .init(scale: 1.0 / 256, zeroPoint: -128),
                                   output: .init(scale: 0.03, zeroPoint: 5), activation: .none, type: Int8.self)
        let want = (0..<48).map { i in UInt8(truncatingIfNeeded: m.product(Int32(Int8(bitPattern: ys[i])), Int32(Int8(bitPattern: table.table[Int(xs[i])])))) }
        XCTAssertEqual(result, want)
    }

    /// SOFTMAX with tabulated exponentials equals the reference on random rows, including
    /// scales where large differences fall below `diffMin`.
    func testSoftmaxTableMatchesReference() {
        var rng = TestRandom(seed: 22)
        func check<T: QuantizedElement>(_: T.Type, depths: ClosedRange<Int> = 1...40) {
            let p = QuantizedSoftmaxParams(beta: [1, 0.5, 2][rng.below(3)], inputScale: Float(pow(10, Double(rng.int(-3000...500)) / 1000)))
            let table = QuantizedSoftmaxTable(p)
            let depth = rng.int(depths), outer = rng.int(1...30)
            let spread = [2, 16, 256][rng.below(3)]
            let base = rng.int(0...255)
            let input = (0..<(depth * outer)).map { _ in T(truncatingIfNeeded: UInt8(truncatingIfNeeded: base + rng.below(spread))) }
            var expected = [T](repeating: 0, count: input.count), fast = expected
            QuantizedSoftmax.run(p, input: input, output: &expected, outerCount: outer, depth: depth)
            QuantizedSoftmax.run(table, input: input, output: &fast, outerCount: outer, depth: depth)
            XCTAssertEqual(fast, expected, "\(p) depth \(depth)")
        }
        for _ in 0..<60 { check(Int8.self); check(UInt8.self) }
        // Long rows: sums past 2³¹ / 2¹² (RoundingDivideByPOT's exponent clamp at 31) and
        // wrapped sums (a negative reciprocal), which the reference also computes.
        for _ in 0..<12 { check(Int8.self, depths: 3000...9000); check(UInt8.self, depths: 3000...9000) }
    }

    /// The inline small copy moves exactly `count` bytes for every size and misalignment.
    func testCopyBytesEverySizeAndOffset() {
        var rng = TestRandom(seed: 23)
        let source = (0..<340).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        for count in 0...300 {
            for (from, to) in [(0, 0), (1, 3), (7, 2), (13, 15)] {
                var target = [UInt8](repeating: 0xEE, count: 340)
                source.withUnsafeBytes { s in target.withUnsafeMutableBytes { t in
                    guard let sb = s.baseAddress, let tb = t.baseAddress else { return }
                    copyBytes(tb + to, sb + from, count)
                } }
                var want = [UInt8](repeating: 0xEE, count: 340)
                for i in 0..<count { want[to + i] = source[from + i] }
                XCTAssertEqual(target, want, "count \(count) from \(from) to \(to)")
            }
        }
    }
}
