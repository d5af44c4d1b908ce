import XCTest
@testable import DetectorInterpreter
@testable import DetectorPlatform

/// The kernel tables' element-wise entries (LOGISTIC and SiLU) at every tier this CPU runs:
/// each value gets the same bits as the interpreter's 8-lane `FloatVectorMath` on that value
/// alone (so lane count, position and thread split cannot matter), and LOGISTIC stays within
/// 2 ulp of the scalar `expf` form (above exp's clamp).
final class ElementwiseTierTests: XCTestCase {
    /// Values around every cut-off (-87, -9, 0, 16.6, 88) and a spread in between, in an order
    /// that puts each kind in vector bodies and in tails.
    private func inputs() -> [Float] {
        var values: [Float] = [0, -0, 1e-30, -1e-30, -9, -9.0000005, -8.999999, 16.619047, 16.61905, 16.7, -87, -87.5,
                               -100, 88, 89, 200, -200, 1, -1, 0.5, -0.5, 3.4028235e38, -3.4028235e38]
        var rng = SplitMix64(seed: 5)
        for _ in 0..<300 { values.append(Float(Double(rng.next() >> 11) / Double(1 << 53) * 60 - 30)) }
        return values
    }

    private typealias Oracle = (SIMD8<Float>) -> SIMD8<Float>

    func testEveryEntryGivesTheEightLaneBitsAtEveryTier() {
        let values = inputs()
        for tier in TierTesting.tiers {
            let table = KernelTable.for(tier).elementwise
            let entries: [(String, FloatElementwiseKernels.Map, Oracle)] = [
                ("logistic", table.logistic, FloatVectorMath.logistic),
                ("fastLogistic", table.fastLogistic, FloatVectorMath.fastLogistic),
                ("logisticProduct", table.logisticProduct, FloatVectorMath.logisticProduct),
                ("silu", table.silu, FloatVectorMath.silu),
            ]
            for (name, map, oracle) in entries {
                for count in [1, 7, 15, 16, 17, 63, 64, 65, 130, values.count] {
                    let src = Array(values.prefix(count))
                    var dst = [Float](repeating: .nan, count: count)
                    src.withUnsafeBufferPointer { s in dst.withUnsafeMutableBufferPointer { d in
                        map(s.baseAddress!, d.baseAddress!, count)
                    } }
                    for i in 0..<count {
                        let expected = oracle(SIMD8(repeating: src[i]))[0]
                        XCTAssertEqual(dst[i].bitPattern, expected.bitPattern,
                                       "\(name) at \(tier), count \(count), x = \(src[i]): \(dst[i]) vs \(expected)")
                    }
                }
                // In place (src == dst), as the folded SiLU runs.
                var inPlace = values
                inPlace.withUnsafeMutableBufferPointer { p in map(UnsafePointer(p.baseAddress!), p.baseAddress!, p.count) }
                XCTAssertEqual(inPlace.map(\.bitPattern), values.map { oracle(SIMD8(repeating: $0))[0].bitPattern }, "\(name) in place at \(tier)")
            }
        }
    }

    /// Same-shape ADD, SUB, MUL with and without the activation clamp, at every tier: each value
    /// as the reference's element loop computes it (one rounding, then `std::min(std::max(v, lo),
    /// hi)`: NaN and −0 kept), whole vectors and masked tails alike, in place too.
    func testBinaryEntryGivesTheElementLoopValuesAtEveryTier() {
        let specials: [Float] = [.nan, .infinity, -.infinity, 0, -0, 6, 6.0000005, -1e-30, 1e30, -3, 5.999999]
        var rng = SplitMix64(seed: 9)
        var a = specials, b = specials.reversed() as [Float]
        for _ in 0..<120 {
            a.append(Float(Double(rng.next() >> 11) / Double(1 << 53) * 16 - 8))
            b.append(Float(Double(rng.next() >> 11) / Double(1 << 53) * 16 - 8))
        }
        func reference(_ op: Int, _ x: Float, _ y: Float, _ clamp: (Float, Float)?) -> Float {
            let v = op == 0 ? x + y : op == 1 ? x - y : x * y
            guard let (lo, hi) = clamp else { return v }
            let m = v < lo ? lo : v
            return hi < m ? hi : m
        }
        for tier in TierTesting.tiers {
            let binary = KernelTable.for(tier).elementwise.binary
            for op in 0..<3 { for clamp in [nil, (Float(0), Float(6)), (Float(-1), Float(1))] as [(Float, Float)?] {
                for count in [1, 15, 16, 17, 33, a.count] {
                    var out = [Float](repeating: 42, count: count + 1)
                    a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in out.withUnsafeMutableBufferPointer { po in
                        binary(op, pa.baseAddress!, pb.baseAddress!, po.baseAddress!, count, clamp?.0 ?? 0, clamp?.1 ?? 0, clamp != nil)
                    } } }
                    for i in 0..<count {
                        let expected = reference(op, a[i], b[i], clamp)
                        XCTAssertEqual(out[i].bitPattern, expected.bitPattern,
                                       "op \(op) clamp \(String(describing: clamp)) at \(tier), count \(count), \(a[i]) ∘ \(b[i])")
                    }
                    XCTAssertEqual(out[count], 42, "nothing written past count \(count) at \(tier)")
                }
                var inPlace = a
                inPlace.withUnsafeMutableBufferPointer { p in b.withUnsafeBufferPointer { pb in
                    binary(op, UnsafePointer(p.baseAddress!), pb.baseAddress!, p.baseAddress!, p.count, clamp?.0 ?? 0, clamp?.1 ?? 0, clamp != nil)
                } }
                XCTAssertEqual(inPlace.map(\.bitPattern), zip(a, b).map { reference(op, $0, $1, clamp).bitPattern }, "in place at \(tier)")
            } }
        }
    }

    func testLogisticIsWithinTwoUlpOfTheScalarReference() {
        let values = inputs()
        var out = [Float](repeating: 0, count: values.count)
        values.withUnsafeBufferPointer { s in out.withUnsafeMutableBufferPointer { d in
            KernelTable.for(InstructionSetTier.supported).elementwise.logistic(s.baseAddress!, d.baseAddress!, s.count)
        } }
        for (x, y) in zip(values, out) {
            let reference = FloatActivations.logistic(x)
            // Below exp's clamp at -87.34 the result stays the smallest normal float, about
            // 1.2e-38, where expf goes subnormal and then to 0.
            let room = x < LaneMath.expMinArgument ? 1.2e-38 : 2 * reference.ulp
            XCTAssertLessThanOrEqual(abs(y - reference), room, "x = \(x): \(y) vs \(reference)")
        }
        XCTAssertEqual(out[0], 0.5)
    }
}
