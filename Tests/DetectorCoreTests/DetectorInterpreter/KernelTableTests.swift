import XCTest
@testable import DetectorCore

/// The kernel tables: what each tier's table offers (packing widths, fused multiply-add, which
/// optional kernels exist), and that the interpreter and `--version` use the table of their tier.
final class KernelTableTests: XCTestCase {
    func testBaselineTableIsTheBaselineTierModule() {
        let table = KernelTable.for(.baseline)
        XCTAssertEqual(table.tier, .baseline)
        XCTAssertFalse(table.hasFusedMultiplyAdd)
        // The shared kernels of Sources/TierKernels at the baseline instruction set (the same
        // packing width as the wide tiers; the depthwise at 8 lanes), but the float GEMM: the
        // interpreter's 8-lane SSE2 kernel.
        XCTAssertEqual(table.floatGEMM.panelWidth, 8)
        XCTAssertEqual(table.integerGEMM.panelWidth, 16)
        XCTAssertNil(table.byteGEMM, "the baseline packs convolution weights as Int16, never as bytes")
        XCTAssertNil(table.byteTable)
        for name in [table.depthwise.name, table.integerGEMM.name, table.hybrid.name, table.requantization.name,
                     table.quantizedDepthwise.name] {
            XCTAssertTrue(name.hasSuffix(InstructionSetTier.baseline.description), name)
        }
    }

    func testWideTablesWhereTheCPUHasThem() throws {
        guard InstructionSetTier.supported >= .avx2 else { throw XCTSkip("this CPU has no AVX2") }
        let avx2 = KernelTable.for(.avx2)
        XCTAssertEqual(avx2.name, "avx2")
        XCTAssertTrue(avx2.hasFusedMultiplyAdd)
        XCTAssertEqual(avx2.floatGEMM.panelWidth, 16)
        XCTAssertEqual(avx2.integerGEMM.panelWidth, 16)
        XCTAssertNil(avx2.byteGEMM, "only AVX-512 VNNI has the byte GEMM")
        XCTAssertNil(avx2.byteTable)
        guard InstructionSetTier.supported == .avx512 else { return }
        let avx512 = KernelTable.for(.avx512)
        XCTAssertNotNil(avx512.byteGEMM)
        XCTAssertEqual(avx512.byteTable != nil, InstructionSetTier.hasByteTableLookup)
        XCTAssertEqual(avx512.name, (InstructionSetTier.hasByteTableLookup ? "avx512+vbmi" : "avx512")
                       + (InstructionSetTier.hasTileMatrixBytes ? "+amx" : ""))
    }

    func testTierAboveTheCPUGetsTheSupportedTable() {
        XCTAssertTrue(KernelTable.for(.avx512) === KernelTable.for(InstructionSetTier.supported))
    }

    func testInterpreterAndVersionUseTheirTiersTable() throws {
        XCTAssertEqual(DetectorCoreInfo.kernels, KernelTable.for(InstructionSetTier.best).name)
        for tier in TierTesting.tiers {
            var g = GraphBuilder()
            let a = g.input([2])
            g.outputs = g.op(.relu, [a])
            let interpreter = try Interpreter(graph: g.build(), options: .init(tier: tier))
            XCTAssertTrue(interpreter.kernelTable === KernelTable.for(tier))
            XCTAssertEqual(interpreter.tier, tier)
        }
    }

    func testProfileNamesTheTableEntryAnOpRuns() throws {
        for tier in TierTesting.tiers {
            var g = GraphBuilder()
            let x = g.input([1, 4, 4, 2])
            let w = g.constant([1, 2, 3, 4, 5, 6], shape: [3, 1, 1, 2])
            let y = g.op(.conv2D, [x, w]) { $0.padding = .valid; $0.strideWidth = 1; $0.strideHeight = 1 }
            g.outputs = g.op(.relu, y)
            let interpreter = try Interpreter(graph: g.build(), options: .init(tier: tier))
            XCTAssertEqual(interpreter.kernelName(ofOperator: 0), KernelTable.for(tier).floatGEMM.name, "\(tier)")
            XCTAssertNil(interpreter.kernelName(ofOperator: 1), "RELU has one implementation (and is folded here)")
            XCTAssertNil(interpreter.kernelName(ofOperator: 2))
        }
    }
}
