import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The sparse-weight models of `Fixtures/sparse` (made by `Tests/Scripts/make_sparse_models.py`):
/// float16 filters stored with TFLite sparsity, DENSIFY → DEQUANTIZE → CONV_2D / DEPTHWISE_CONV_2D,
/// in unstructured (CSR) and block form, each with a dense twin holding the same float16 values.
final class SparseWeightModelTests: XCTestCase {
    static let forms = ["csr", "block"]

    func model(_ name: String) -> String { SharedData.fixture("sparse/\(name).tflite").path }

    /// The script's fixed input: x[i] = Float((i · 7919) mod 2001 − 1000) / 1000.
    static let input: [Float] = (0..<(64 * 64 * 32)).map { (i: Int) -> Float in
        let k: Int = (i * 7919) % 2001 - 1000
        return Float(k) / 1000
    }

    func run(_ path: String, threads: Int = 1, tier: InstructionSetTier? = nil) throws -> [Float] {
        let interpreter = try Interpreter(contentsOfFile: path, options: .init(threadCount: threads, tier: tier))
        try interpreter.copyInput(Self.input, at: 0)
        try interpreter.invoke()
        XCTAssertEqual(interpreter.outputs[0].shape, [1, 32, 32, 12])
        return try interpreter.outputFloats(at: 0)
    }

    /// Ours against LiteRT 2.3's output (XNNPACK, recorded by the script). Tolerance, as for the
    /// float goldens of `../shared`: 1e-4 · max(1, max|expected|). Both sides sum float32 products
    /// of float16-exact weights, in different orders (and we fuse multiply-adds); four layers
    /// of at most 288-term sums then differ by a few float32 ulps of the partial sums, i.e. about
    /// 1e-6 here (LiteRT's own reference kernels differ from its XNNPACK run by 1.4e-6), so
    /// 1e-4 leaves room for every tier while a wrong or shifted weight moves outputs by far more.
    func testSparseModelsMatchLiteRT() throws {
        for form in Self.forms {
            let name = "conv_f16_\(form)"
            let expected = try Data(contentsOf: SharedData.fixture("sparse/\(name).expected.f32"))
                .withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            XCTAssertEqual(expected.count, 32 * 32 * 12)
            let maxAbs = expected.reduce(Float(0)) { max($0, abs($1)) }
            XCTAssertGreaterThan(maxAbs, 1, "the fixture's output should not be trivially small")
            let tolerance = 1e-4 * max(1, maxAbs)
            for threads in [1, 2] {
                let ours = try run(model(name), threads: threads)
                guard ours.count == expected.count else { XCTFail("\(name): \(ours.count) values"); continue }
                var worst: Float = 0, worstIndex = 0
                for i in ours.indices where !(abs(ours[i] - expected[i]) <= worst) {
                    worst = abs(ours[i] - expected[i]); worstIndex = i
                }
                print("[sparse] \(name) \(threads) thread(s): worst |Δ| vs LiteRT \(worst), tolerance \(tolerance)")
                XCTAssertLessThanOrEqual(worst, tolerance,
                                         "\(name), \(threads) threads: value \(worstIndex) is \(ours[worstIndex]), LiteRT \(expected[worstIndex])")
            }
        }
    }

    /// Densified at prepare, the sparse model runs exactly the dense twin's path: identical bits
    /// at every tier and thread count.
    func testSparseModelIsBitIdenticalToItsDenseTwin() throws {
        for form in Self.forms {
            for tier in TierTesting.tiers {
                for threads in [1, 2] {
                    let sparse = try run(model("conv_f16_\(form)"), threads: threads, tier: tier)
                    let dense = try run(model("conv_f16_\(form)_dense"), threads: threads, tier: tier)
                    XCTAssertEqual(sparse, dense, "\(form), \(tier), \(threads) threads")
                }
            }
        }
    }

    /// DENSIFY's result is, byte for byte, the float16 filter the script stored dense in the twin
    /// (numpy's encoding there, our decoding here).
    func testDensifiedFiltersEqualTheDenseTwinsBytes() throws {
        for form in Self.forms {
            let sparse = try Interpreter(contentsOfFile: model("conv_f16_\(form)"), options: .init(preserveAllTensors: true))
            let dense = try Interpreter(contentsOfFile: model("conv_f16_\(form)_dense"), options: .init(preserveAllTensors: true))
            var checked = 0
            for op in sparse.graph.operators where op.code == .densify {
                let name = sparse.graph.tensors[op.outputs[0]].name
                guard let twin = dense.graph.tensors.firstIndex(where: { $0.name == name }) else {
                    XCTFail("\(form): the dense twin has no tensor '\(name)'"); continue
                }
                guard let ours = sparse.tensorBytes(op.outputs[0])?.bytes, let theirs = dense.tensorBytes(twin)?.bytes else {
                    XCTFail("\(form) '\(name)': no data"); continue
                }
                XCTAssertEqual(ours.count, theirs.count, "\(form) '\(name)'")
                if let i = ours.indices.first(where: { $0 < theirs.count && ours[$0] != theirs[$0] }) {
                    XCTFail("\(form) '\(name)': byte \(i) is \(ours[i]), the dense twin's \(theirs[i])")
                }
                checked += 1
            }
            XCTAssertEqual(checked, 4, form)
        }
    }

    /// The DENSIFY → DEQUANTIZE chains are folded at prepare: those ops are evaluated once there
    /// and never by `invoke()`, the multiply-accumulate count per invoke is the convolutions'
    /// alone, and CONV_2D runs from weights it packed at prepare (its folded float32 filters are
    /// released, and the output is the same as before).
    func testDensifyDequantizeChainIsFoldedAndConvWeightsArePackedOnce() throws {
        for form in Self.forms {
            let interpreter = try Interpreter(contentsOfFile: model("conv_f16_\(form)"))
            let ops = interpreter.graph.operators
            XCTAssertEqual(ops.filter { $0.code == .densify }.count, 4)
            for (k, op) in ops.enumerated() {
                let shouldFold = op.code == .densify || op.code == .dequantize
                XCTAssertEqual(interpreter.isFoldedAtPrepare(operator: k), shouldFold, "\(form) op \(k) \(op.opName)")
            }
            // Convolutions only: 64·64·64·(3·3·32) + 32·32·64·9 + 32·32·128·64 + 32·32·12·128.
            XCTAssertEqual(interpreter.multiplyAccumulateCount, 75_497_472 + 589_824 + 8_388_608 + 1_572_864)

            try interpreter.copyInput(Self.input, at: 0)
            interpreter.profile = [Double](repeating: 0, count: ops.count)
            try interpreter.invoke()
            let before = try interpreter.outputFloats(at: 0)
            for (k, op) in ops.enumerated() {
                if op.code == .densify || op.code == .dequantize {
                    XCTAssertEqual(interpreter.profile?[k], 0, "\(form): folded op \(k) ran at invoke")
                } else {
                    XCTAssertGreaterThan(interpreter.profile?[k] ?? 0, 0, "\(form): op \(k) did not run")
                }
            }
            // The folded float32 filters of the CONV_2D ops are released once packed (eval reads
            // only the packed copies); the depthwise filter, which eval reads, stays.
            var released = 0
            for op in ops where op.code == .conv2D {
                XCTAssertNil(interpreter.tensorBytes(op.inputs[1]), "\(form): a CONV_2D's folded filter is still held")
                released += 1
            }
            XCTAssertEqual(released, 3)
            for op in ops where op.code == .depthwiseConv2D {
                XCTAssertNotNil(interpreter.tensorBytes(op.inputs[1]), "\(form): the depthwise filter was released")
            }
            // The float16 DENSIFY outputs are released once DEQUANTIZE has read them: what stays
            // folded is the depthwise filter, 4 bytes × 576 weights (of 18432 + 576 + 8192 + 1536).
            for op in ops where op.code == .densify {
                XCTAssertNil(interpreter.tensorBytes(op.outputs[0]), "\(form): a DENSIFY output is still held")
            }
            XCTAssertEqual(interpreter.foldedByteCount, 4 * 576)
            try interpreter.invoke()
            XCTAssertEqual(try interpreter.outputFloats(at: 0), before, form)
        }
    }

    /// FULLY_CONNECTED reading 1×4 block-sparse float32 weights directly (no DENSIFY), as the
    /// converter emits it: densified once at load, so the same as the dense twin bit for bit, and
    /// within 1e-4 · max(1, max|expected|) of LiteRT's reference kernels (one 256-term sum).
    func testFullyConnectedWithSparseWeightsMatchesLiteRTAndItsDenseTwin() throws {
        let input: [Float] = (0..<256).map { Float((($0 * 7919) % 2001) - 1000) / Float(1000) }
        let expected = try Data(contentsOf: SharedData.fixture("sparse/fc_f32_block.expected.f32"))
            .withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        XCTAssertEqual(expected.count, 64)
        let tolerance = 1e-4 * max(1, expected.reduce(Float(0)) { max($0, abs($1)) })
        for threads in [1, 2] {
            var results: [[Float]] = []
            for name in ["fc_f32_block", "fc_f32_block_dense"] {
                let interpreter = try Interpreter(contentsOfFile: model(name), options: .init(threadCount: threads))
                XCTAssertFalse(interpreter.graph.operators.contains { $0.code == .densify })
                try interpreter.copyInput(input, at: 0)
                try interpreter.invoke()
                results.append(try interpreter.outputFloats(at: 0))
            }
            XCTAssertEqual(results[0], results[1], "\(threads) threads: sparse and dense twin differ")
            XCTAssertEqual(results[0].count, expected.count)
            for (i, (u, v)) in zip(results[0], expected).enumerated() where !(abs(u - v) <= tolerance) {
                XCTFail("\(threads) threads: unit \(i) is \(u), LiteRT \(v)")
                break
            }
        }
    }

    /// The block fully quantized: int8 activations, per-channel int8 filters stored in the block
    /// form of `conv_f16_block` and expanded by DENSIFY (int8 → int8) into CONV_2D / DEPTHWISE.
    /// Against LiteRT's reference kernels with the bar of the quantized goldens (≥ 99.9 % of the
    /// values identical, none more than one step off; LiteRT's own optimized kernels and XNNPACK
    /// are one step off in places too), and bit-identical to the dense twin.
    func testInt8ModelWithSparseFiltersMatchesLiteRTAndItsDenseTwin() throws {
        let input: [UInt8] = (0..<(64 * 64 * 32)).map { UInt8(bitPattern: Int8(truncatingIfNeeded: (($0 * 7919) % 255) - 128)) }
        let expected = try [UInt8](Data(contentsOf: SharedData.fixture("sparse/conv_i8_block.expected.i8"))).map { Int8(bitPattern: $0) }
        XCTAssertEqual(expected.count, 32 * 32 * 12)
        for threads in [1, 2] {
            var results: [[Int8]] = []
            for name in ["conv_i8_block", "conv_i8_block_dense"] {
                let interpreter = try Interpreter(contentsOfFile: model(name), options: .init(threadCount: threads))
                try interpreter.copyInput(input, at: 0)
                try interpreter.invoke()
                results.append(try interpreter.outputBytes(at: 0).map { Int8(bitPattern: $0) })
                if name == "conv_i8_block" {
                    for (k, op) in interpreter.graph.operators.enumerated() where op.code == .densify {
                        XCTAssertTrue(interpreter.isFoldedAtPrepare(operator: k))
                    }
                }
            }
            XCTAssertEqual(results[0], results[1], "\(threads) threads: sparse and dense twin differ")
            guard results[0].count == expected.count else { XCTFail("\(results[0].count) values"); continue }
            let differing = zip(results[0], expected).filter { $0 != $1 }.count
            let worst = zip(results[0], expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
            print("[sparse] conv_i8_block \(threads) thread(s): \(differing) of \(expected.count) values differ from LiteRT's reference kernels, worst by \(worst)")
            XCTAssertLessThanOrEqual(worst, 1)
            XCTAssertLessThanOrEqual(Double(differing), 0.001 * Double(expected.count))
        }
    }

    /// The same int8 block filters in hybrid convolutions (float activations, the int8 weights
    /// through DENSIFY): against LiteRT's reference kernels within 1e-4 · max(1, max|expected|)
    /// (the hybrid kernels quantize each layer's input as the reference does, so the integer sums
    /// agree and only the float rescale differs; LiteRT's optimized kernels are 5e-7 away). LiteRT's
    /// XNNPACK delegate fails to prepare this model.
    func testHybridModelWithSparseFiltersMatchesLiteRT() throws {
        let expected = try Data(contentsOf: SharedData.fixture("sparse/hybrid_i8_block.expected.f32"))
            .withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let tolerance = 1e-4 * max(1, expected.reduce(Float(0)) { max($0, abs($1)) })
        for threads in [1, 2] {
            let interpreter = try Interpreter(contentsOfFile: model("hybrid_i8_block"), options: .init(threadCount: threads))
            for (k, op) in interpreter.graph.operators.enumerated() {
                XCTAssertEqual(interpreter.isFoldedAtPrepare(operator: k), op.code == .densify)
            }
            try interpreter.copyInput(Self.input, at: 0)
            try interpreter.invoke()
            let ours = try interpreter.outputFloats(at: 0)
            XCTAssertEqual(ours.count, expected.count)
            let worst = zip(ours, expected).map { abs($0 - $1) }.max() ?? .infinity
            print("[sparse] hybrid_i8_block \(threads) thread(s): worst |Δ| vs LiteRT \(worst), tolerance \(tolerance)")
            XCTAssertLessThanOrEqual(worst, tolerance)
        }
    }
}
