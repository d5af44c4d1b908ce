import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// `DENSIFY` arithmetic on hand-built sparse tensors (block sparsity, traversal orders, element
/// types), and malformed sparsity metadata: every inconsistency is a typed error, never a trap.
final class DensifyTests: XCTestCase {
    typealias Sparsity = GraphTensor.Sparsity

    /// Densifies a float32 sparse constant through a DENSIFY op (plus ADD of a zero input, so
    /// the result is computed at invoke and read back as an output).
    func densify(_ values: [Float], shape: [Int], _ sparsity: Sparsity) throws -> [Float] {
        var g = GraphBuilder()
        g.tensors.append(GraphTensor(name: "sparse", type: .float32, shape: shape,
                                     constant: .owned(values.withUnsafeBytes { Array($0) }), sparsity: sparsity))
        let dense = g.op(.densify, [g.tensors.count - 1])[0]
        let x = g.input(shape)
        g.outputs = g.op(.add, [x, dense])
        return try g.run([[Float](repeating: 0, count: shape.reduce(1, *))]).values
    }

    // MARK: - Block sparsity, hand-computed

    /// 4×4 with 2×2 blocks, only the two diagonal blocks non-zero:
    ///     1 2 0 0
    ///     3 4 0 0
    ///     0 0 5 6
    ///     0 0 7 8
    let diagonalBlocks: [Float] = [1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 5, 6, 0, 0, 7, 8]

    func testTwoByTwoBlocksRowMajorInsideBlocks() throws {
        // Levels: block row (DENSE 2), block column (CSR), row in block, column in block.
        let sp = Sparsity(traversalOrder: [0, 1, 2, 3], blockMap: [0, 1],
                          dimensions: [.dense(size: 2), .sparseCSR(segments: [0, 1, 2], indices: [0, 1]), .dense(size: 2), .dense(size: 2)])
        XCTAssertEqual(try densify([1, 2, 3, 4, 5, 6, 7, 8], shape: [4, 4], sp), diagonalBlocks)
    }

    func testTwoByTwoBlocksColumnMajorInsideBlocks() throws {
        // Same tensor, the block's column walked before its row: values 1 3 2 4 | 5 7 6 8.
        let sp = Sparsity(traversalOrder: [0, 1, 3, 2], blockMap: [0, 1],
                          dimensions: [.dense(size: 2), .sparseCSR(segments: [0, 1, 2], indices: [0, 1]), .dense(size: 2), .dense(size: 2)])
        XCTAssertEqual(try densify([1, 3, 2, 4, 5, 7, 6, 8], shape: [4, 4], sp), diagonalBlocks)
    }

    func testOneByFourBlocks() throws {
        // 2×8, 1×4 blocks along the columns (the converter's float FULLY_CONNECTED block):
        //     0 0 0 0 1 2 3 4        row 0 keeps column block 1
        //     5 0 6 0 0 0 0 0        row 1 keeps column block 0 (zeros inside a block are stored)
        let sp = Sparsity(traversalOrder: [0, 1, 2], blockMap: [1],
                          dimensions: [.dense(size: 2), .sparseCSR(segments: [0, 1, 2], indices: [1, 0]), .dense(size: 4)])
        XCTAssertEqual(try densify([1, 2, 3, 4, 5, 0, 6, 0], shape: [2, 8], sp),
                       [0, 0, 0, 0, 1, 2, 3, 4, 5, 0, 6, 0, 0, 0, 0, 0])
    }

    func testTwoByOneBlocksWalkedColumnFirst() throws {
        // 4×2 with 2×1 blocks along the rows, columns walked first (traversal 1, 0, block):
        //     1 0
        //     2 0        column 0 keeps row block 0 = (1, 2)
        //     0 3        column 1 keeps row block 1 = (3, 4)
        //     0 4
        let sp = Sparsity(traversalOrder: [1, 0, 2], blockMap: [0],
                          dimensions: [.dense(size: 2), .sparseCSR(segments: [0, 1, 2], indices: [0, 1]), .dense(size: 2)])
        XCTAssertEqual(try densify([1, 2, 3, 4], shape: [4, 2], sp), [1, 0, 2, 0, 0, 3, 0, 4])
    }

    func testNestedCSRLevelsOfAFilter() throws {
        // A 2×2×3 tensor with every level after the first CSR (as for unstructured conv filters):
        // [0][0] = (0, 7, 0), [0][1] = 0, [1][0] = (0, 0, 0), [1][1] = (8, 0, 9).
        let sp = Sparsity(traversalOrder: [0, 1, 2], blockMap: [],
                          dimensions: [.dense(size: 2), .sparseCSR(segments: [0, 1, 2], indices: [0, 1]),
                                       .sparseCSR(segments: [0, 1, 3], indices: [1, 0, 2])])
        XCTAssertEqual(try densify([7, 8, 9], shape: [2, 2, 3], sp), [0, 7, 0, 0, 0, 0, 0, 0, 0, 8, 0, 9])
    }

    func testInt8BlocksKeepTheirBytes() throws {
        // int8 1×4 blocks, DENSIFY's output compared byte for byte (zero fill is the value 0).
        var g = GraphBuilder()
        let sp = Sparsity(traversalOrder: [0, 1, 2], blockMap: [1],
                          dimensions: [.dense(size: 2), .sparseCSR(segments: [0, 1, 1], indices: [1]), .dense(size: 4)])
        g.tensors.append(GraphTensor(name: "sparse", type: .int8, shape: [2, 8],
                                     constant: .owned([Int8(-1), 2, -3, 127].map { UInt8(bitPattern: $0) }), sparsity: sp))
        let dense = g.op(.densify, [0], outputs: [.int8])[0]
        g.outputs = [dense]
        let interpreter = try Interpreter(graph: g.build())
        try interpreter.invoke()
        XCTAssertEqual(try interpreter.outputBytes(at: 0).map { Int8(bitPattern: $0) },
                       [0, 0, 0, 0, -1, 2, -3, 127, 0, 0, 0, 0, 0, 0, 0, 0])
    }

    // MARK: - Malformed metadata

    /// Runs `densify` on bad metadata and checks it throws `invalidOperator` naming DENSIFY.
    func assertRejected(_ values: [Float], shape: [Int], _ sp: Sparsity, mentioning text: String,
                        file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try densify(values, shape: shape, sp), file: file, line: line) { error in
            guard case InterpreterError.invalidOperator(_, let op, let reason) = error else {
                return XCTFail("expected invalidOperator, got \(error)", file: file, line: line)
            }
            XCTAssertEqual(op, "DENSIFY", file: file, line: line)
            XCTAssertTrue(reason.contains(text), "'\(reason)' does not mention '\(text)'", file: file, line: line)
            XCTAssertFalse("\(error)".contains("\n"), file: file, line: line)
        }
    }

    func csr(_ segments: [Int], _ indices: [Int]) -> Sparsity {
        Sparsity(traversalOrder: [0, 1], blockMap: [], dimensions: [.dense(size: 3), .sparseCSR(segments: segments, indices: indices)])
    }

    func testIndexOutsideTheDimensionIsRejected() {
        assertRejected([1, 2, 3], shape: [3, 4], csr([0, 1, 2, 3], [1, 4, 0]), mentioning: "index 4, outside 0..<4")
        assertRejected([1, 2, 3], shape: [3, 4], csr([0, 1, 2, 3], [1, -1, 0]), mentioning: "index -1")
    }

    func testSegmentsThatRunBackwardsOrPastTheIndicesAreRejected() {
        assertRejected([1, 2, 3], shape: [3, 4], csr([0, 2, 1, 3], [1, 2, 0]), mentioning: "not an increasing range")
        assertRejected([1, 2, 3], shape: [3, 4], csr([0, 1, 2, 9], [1, 2, 0]), mentioning: "not an increasing range")
        assertRejected([1, 2, 3], shape: [3, 4], csr([-1, 1, 2, 3], [1, 2, 0]), mentioning: "not an increasing range")
        assertRejected([1, 2, 3], shape: [3, 4], csr([0, 1, 2], [1, 2, 0]), mentioning: "too few")
    }

    func testMorePositionsThanStoredValuesIsRejected() {
        assertRejected([1, 2], shape: [3, 4], csr([0, 1, 2, 3], [1, 2, 0]), mentioning: "more values than the 2 stored")
    }

    func testOverflowingSizesAreRejected() {
        // A DENSE level larger than its dimension, and one that would overflow any product.
        let big = Sparsity(traversalOrder: [0, 1], blockMap: [], dimensions: [.dense(size: Int(Int32.max)), .dense(size: 4)])
        assertRejected([1], shape: [3, 4], big, mentioning: "outside 0...3")
        let huge = Sparsity(traversalOrder: [0, 1], blockMap: [], dimensions: [.dense(size: 3), .dense(size: Int.max)])
        assertRejected([1], shape: [3, 4], huge, mentioning: "outside 0...4")
        // A block size that does not divide its dimension, and one far larger.
        let block = Sparsity(traversalOrder: [0, 1, 2], blockMap: [1], dimensions: [.dense(size: 3), .dense(size: 1), .dense(size: 3)])
        assertRejected([1], shape: [3, 4], block, mentioning: "not a multiple of its block size 3")
        let hugeBlock = Sparsity(traversalOrder: [0, 1, 2], blockMap: [1], dimensions: [.dense(size: 3), .dense(size: 1), .dense(size: Int.max)])
        assertRejected([1], shape: [3, 4], hugeBlock, mentioning: "outside 0...0")
    }

    func testScalarIsRejected() {
        assertRejected([1], shape: [], Sparsity(traversalOrder: [], blockMap: [], dimensions: []), mentioning: "scalar")
    }

    func testInconsistentStructureIsRejected() {
        let notPermutation = Sparsity(traversalOrder: [0, 0], blockMap: [], dimensions: [.dense(size: 3), .dense(size: 4)])
        assertRejected([1], shape: [3, 4], notPermutation, mentioning: "not a permutation")
        let wrongLevels = Sparsity(traversalOrder: [0, 1, 2], blockMap: [], dimensions: [.dense(size: 3), .dense(size: 4), .dense(size: 1)])
        assertRejected([1], shape: [3, 4], wrongLevels, mentioning: "needs 2 levels")
        let sparseBlock = Sparsity(traversalOrder: [0, 1, 2], blockMap: [1],
                                   dimensions: [.dense(size: 3), .dense(size: 2), .sparseCSR(segments: [0, 1], indices: [0])])
        assertRejected([1], shape: [3, 4], sparseBlock, mentioning: "must be DENSE")
        let repeatedBlock = Sparsity(traversalOrder: [0, 1, 2, 3], blockMap: [1, 1],
                                     dimensions: [.dense(size: 3), .dense(size: 2), .dense(size: 2), .dense(size: 1)])
        assertRejected([1], shape: [3, 4], repeatedBlock, mentioning: "distinct dimensions")
        let outsideBlock = Sparsity(traversalOrder: [0, 1, 2], blockMap: [2], dimensions: [.dense(size: 3), .dense(size: 4), .dense(size: 1)])
        assertRejected([1], shape: [3, 4], outsideBlock, mentioning: "distinct dimensions below 2")
    }

    // MARK: - Sparse weights read without DENSIFY

    /// The 2×8 weights of `testOneByFourBlocks`, 1×4 block-sparse, as a FULLY_CONNECTED reads them.
    func fullyConnectedGraph(_ sp: Sparsity, values: [Float] = [1, 2, 3, 4, 5, 0, 6, 0], alsoDensify: Bool = false) -> GraphBuilder {
        var g = GraphBuilder()
        let x = g.input([1, 8])
        g.tensors.append(GraphTensor(name: "weights", type: .float32, shape: [2, 8],
                                     constant: .owned(values.withUnsafeBytes { Array($0) }), sparsity: sp))
        let w = g.tensors.count - 1
        let bias = g.constant([0.5, -0.5], shape: [2])
        g.outputs = g.op(.fullyConnected, [x, w, bias])
        if alsoDensify { g.outputs += g.op(.densify, [w]) }
        return g
    }

    let oneByFour = Sparsity(traversalOrder: [0, 1, 2], blockMap: [1],
                             dimensions: [.dense(size: 2), .sparseCSR(segments: [0, 1, 2], indices: [1, 0]), .dense(size: 4)])

    func testFullyConnectedReadsBlockSparseWeightsDirectly() throws {
        // W = [[0 0 0 0 1 2 3 4], [5 0 6 0 0 0 0 0]], x = 1…8:
        // y0 = 1·5 + 2·6 + 3·7 + 4·8 + 0.5 = 70.5, y1 = 5·1 + 6·3 − 0.5 = 22.5.
        let (v, shape) = try fullyConnectedGraph(oneByFour).run([(1...8).map(Float.init)])
        XCTAssertEqual(shape, [1, 2])
        XCTAssertEqual(v, [70.5, 22.5])
    }

    func testSparseWeightsReadDirectlyWithBadMetadataAreRejected() {
        let bad = Sparsity(traversalOrder: [0, 1, 2], blockMap: [1],
                           dimensions: [.dense(size: 2), .sparseCSR(segments: [0, 1, 2], indices: [1, 2]), .dense(size: 4)])
        XCTAssertThrowsError(try fullyConnectedGraph(bad).run([[Float](repeating: 1, count: 8)])) { error in
            guard case InterpreterError.invalidModel(let reason) = error else { return XCTFail("expected invalidModel, got \(error)") }
            XCTAssertTrue(reason.contains("index 2, outside 0..<2"), reason)
        }
        XCTAssertThrowsError(try fullyConnectedGraph(oneByFour, values: [1, 2, 3]).run([[Float](repeating: 1, count: 8)])) { error in
            guard case InterpreterError.invalidModel(let reason) = error else { return XCTFail("expected invalidModel, got \(error)") }
            XCTAssertTrue(reason.contains("more values than the 3 stored"), reason)
        }
    }

    func testSparseTensorReadByDensifyAndAnotherOpIsRejected() {
        XCTAssertThrowsError(try fullyConnectedGraph(oneByFour, alsoDensify: true).run([[Float](repeating: 1, count: 8)])) { error in
            guard case InterpreterError.invalidModel(let reason) = error else { return XCTFail("expected invalidModel, got \(error)") }
            XCTAssertTrue(reason.contains("read both by DENSIFY and by another op"), reason)
        }
    }
}
