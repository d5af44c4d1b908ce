import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// What the Int16 and the byte GEMM tests share: the plain reference as oracle, and an output
/// buffer with a sentinel column past each row, so a kernel that writes beyond column `n` fails.
enum GemmTestSupport {
    /// `IntegerGemm.reference` on `[m][k]` and `[n][k]` operands of any element types.
    static func reference<A: FixedWidthInteger, B: FixedWidthInteger>(_ a: [A], _ b: [B], m: Int, n: Int, k: Int) -> [Int32] {
        var c = [Int32](repeating: -2, count: m * n)
        a.withUnsafeBufferPointer { ap in b.withUnsafeBufferPointer { bp in
            c.withUnsafeMutableBufferPointer { IntegerGemm.reference(a: ap, b: bp, m: m, n: n, k: k, c: $0) }
        } }
        return c
    }

    /// Runs `body(c, ldc)` on an `m × (n + 1)` buffer, checks that column `n` of every row kept its
    /// sentinel, and returns the `m × n` results.
    static func stridedOutput(m: Int, n: Int, tier: InstructionSetTier,
                              _ body: (UnsafeMutablePointer<Int32>, Int) -> Void) -> [Int32] {
        var c = [Int32](repeating: -7, count: m * (n + 1))
        c.withUnsafeMutableBufferPointer { body($0.baseAddress!, n + 1) }
        for i in 0..<m { XCTAssertEqual(c[i * (n + 1) + n], -7, "row \(i) stride padding overwritten at \(tier)") }
        return (0..<m).flatMap { i in c[i * (n + 1)..<i * (n + 1) + n] }
    }
}
