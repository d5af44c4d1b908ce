import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorInterpreter
#if arch(x86_64)
import KernelsAVX512AMX
#endif

/// Both AVX-512 byte GEMMs — `vpdpbusd` (VNNI) and `tdpbusd` on AMX tiles — against the plain loop
/// (`IntegerGemm.multiplyBytes` with no kernel) on the shapes the tile kernel cuts differently:
/// rows in blocks of 32, 16 + rest and a rest split in two; odd panel counts and more than 128
/// channels (two blocks of sums); pieces (`runs`) whose chunk width is 16 to 64 depths, and ones
/// under 16 that go to the VNNI kernel. Whichever table the CPU gets, both kernels are checked
/// where the CPU has them.
final class TileByteGemmTests: XCTestCase {
    private var kernels: [ByteGEMMKernel] {
        get throws {
            guard InstructionSetTier.supported == .avx512 else { throw XCTSkip("this CPU has no AVX-512 VNNI byte GEMM") }
            #if arch(x86_64)
            let both = KernelTable.avx512ByteGEMMs
            return InstructionSetTier.hasTileMatrixBytes ? [both.vnni, both.tiles] : [both.vnni]
            #else
            return []
            #endif
        }
    }

    func testChunkWidthsHandComputed() throws {
        #if arch(x86_64)
        let table = KernelTable.avx512ByteGEMMs
        XCTAssertEqual(table.tiles.name, "byte GEMM amx tdpbusd")
        // 3 × 3 × 32 filter rows are 96 depths: two chunks of 48; 3 × 3 × 64 rows 192: three of 64.
        XCTAssertEqual(TierTileByteGemm.chunkWidth(96), 48)
        XCTAssertEqual(TierTileByteGemm.chunkWidth(192), 64)
        XCTAssertEqual(TierTileByteGemm.chunkWidth(64), 64)
        XCTAssertEqual(TierTileByteGemm.chunkWidth(16), 16)
        XCTAssertEqual(TierTileByteGemm.chunkWidth(72), 36)
        XCTAssertEqual(TierTileByteGemm.chunkWidth(240), 60)
        // 68 = 4 · 17 and 12: no width from 16 to 64 divides them.
        XCTAssertNil(TierTileByteGemm.chunkWidth(68))
        XCTAssertNil(TierTileByteGemm.chunkWidth(12))
        #else
        throw XCTSkip("x86-64 only")
        #endif
    }

    func testTablesPickTheTileKernelWhereTheCPUHasIt() throws {
        guard InstructionSetTier.supported == .avx512 else { throw XCTSkip("this CPU has no AVX-512") }
        let name = KernelTable.for(.avx512).byteGEMM?.name
        if InstructionSetTier.hasTileMatrixBytes {
            XCTAssertEqual(name, "byte GEMM amx tdpbusd")
        } else {
            print("TileByteGemmTests: no AMX-INT8 here (or OBJDETECT_AMX=0): only the VNNI byte GEMM is checked")
            XCTAssertEqual(name, "byte GEMM vpdpbusd")
        }
    }

    /// Sums and requantized bytes of both kernels against the plain loop, rows read in place in a
    /// strided image (`runs` pieces of `length` bytes `runStride` apart, rows `lda` apart, which
    /// may overlap as a convolution's windows do).
    func testBothKernelsMatchThePlainLoop() throws {
        let kernels = try self.kernels
        var rng = TestRandom(seed: 2701)
        let shapes: [(m: Int, n: Int, runs: Int, length: Int)] = [
            (64, 64, 3, 96), (80, 32, 3, 48), (40, 48, 1, 64), (20, 16, 3, 192), (16, 17, 2, 64), (1, 33, 1, 128),
            (7, 300, 1, 16), (33, 130, 2, 60), (31, 64, 3, 12), (17, 20, 1, 68), (5, 8, 4, 36), (96, 144, 1, 256),
        ]
        for (trial, s) in shapes.enumerated() {
            let kp = s.runs * s.length
            let lda = trial % 3 == 0 ? s.length / 2 + 4 : s.length + 4 * rng.int(0...2)
            let runStride = lda * s.m + rng.int(0...7) * 4
            let image = (0..<(runStride * s.runs + lda * s.m + s.length)).map { _ in UInt8(rng.int(0...255)) }
            let rows = (0..<s.m).flatMap { i in (0..<kp).map { q in image[i * lda + (q / s.length) * runStride + q % s.length] } }
            let b = (0..<s.n * kp).map { _ in Int8(rng.int(-128...127)) }
            let panels = b.withUnsafeBufferPointer { IntegerGemm.packBytes($0, n: s.n, k: kp) }
            let expected = GemmTestSupport.reference(rows, b, m: s.m, n: s.n, k: kp)
            let multipliers = (0..<s.n).map { _ in QuantizedMultiplier(Double(rng.int(1...2000)) * 1e-7) }
            let bias = (0..<s.n).map { _ in Int32(rng.int(-90000...90000)) }
            let zp = Int32(rng.int(-10...10))
            let vr = try XCTUnwrap(VectorRequantization(multipliers: multipliers, bias: bias, outputZeroPoint: zp,
                                                        activationMin: -128, activationMax: 127, tier: .avx512))
            let expectedBytes = (0..<s.m * s.n).map { e in Int8(min(max(multipliers[e % s.n].apply(expected[e] &+ bias[e % s.n]) &+ zp, -128), 127)) }
            XCTAssertGreaterThan(Set(expectedBytes).count, 8, "shape \(trial) degenerate")
            for kernel in kernels {
                let sums = GemmTestSupport.stridedOutput(m: s.m, n: s.n, tier: .avx512) { c, ldc in
                    image.withUnsafeBufferPointer { ap in panels.withUnsafeBufferPointer { bp in
                        IntegerGemm.multiplyBytes(a: ap.baseAddress!, lda: lda, packedB: bp.baseAddress!, m: s.m, n: s.n, kPadded: kp,
                                                  runs: s.runs, runStride: runStride, c: c, ldc: ldc, kernel: kernel)
                    } }
                }
                XCTAssertEqual(sums, expected, "\(kernel.name) shape \(trial) \(s)")
                let ldo = s.n + 5
                var out = [Int8](repeating: 55, count: s.m * ldo)
                VectorRequantization.withRows(vr) { rq in
                    image.withUnsafeBufferPointer { ap in panels.withUnsafeBufferPointer { bp in out.withUnsafeMutableBufferPointer { op in
                        IntegerGemm.multiplyBytesRequantized(a: ap.baseAddress!, lda: lda, packedB: bp.baseAddress!, m: s.m, n: s.n,
                                                             kPadded: kp, runs: s.runs, runStride: runStride, requantization: rq!,
                                                             output: op.baseAddress!, ldo: ldo, kernel: kernel)
                    } } }
                }
                XCTAssertEqual((0..<s.m).flatMap { out[$0 * ldo..<$0 * ldo + s.n] }, expectedBytes, "\(kernel.name) bytes shape \(trial)")
                XCTAssertEqual((0..<s.m).flatMap { out[$0 * ldo + s.n..<($0 + 1) * ldo] }, [Int8](repeating: 55, count: 5 * s.m),
                               "\(kernel.name) wrote past the row, shape \(trial)")
            }
        }
    }

    /// The extremes of the products (255 × −128 over a long depth) stay exact on the tiles.
    func testLongDepthExtremes() throws {
        let kernels = try self.kernels
        let m = 35, n = 40, k = 4096
        let a = [UInt8](repeating: 255, count: m * k), b = [Int8](repeating: -128, count: n * k)
        let panels = b.withUnsafeBufferPointer { IntegerGemm.packBytes($0, n: n, k: k) }
        for kernel in kernels {
            let sums = GemmTestSupport.stridedOutput(m: m, n: n, tier: .avx512) { c, ldc in
                a.withUnsafeBufferPointer { ap in panels.withUnsafeBufferPointer { bp in
                    IntegerGemm.multiplyBytes(a: ap.baseAddress!, lda: k, packedB: bp.baseAddress!, m: m, n: n, kPadded: k,
                                              c: c, ldc: ldc, kernel: kernel)
                } }
            }
            XCTAssertEqual(sums, [Int32](repeating: 4096 * 255 * -128, count: m * n), kernel.name)
        }
    }
}
