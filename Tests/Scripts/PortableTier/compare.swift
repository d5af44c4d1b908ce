// Compares the portable (non-x86) primitives of KernelsBaseline/Tier.swift, compiled as TierP, with the SSE2 ones (TierX)
// on random and special inputs; exits 1 on a mismatch. Run by check.sh beside it.
import Foundation
/// xorshift64*: the same inputs on every run.
struct Xorshift: RandomNumberGenerator {
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    mutating func next() -> UInt64 {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
var rng = Xorshift()
func rf() -> Float {
    switch Int.random(in: 0..<10, using: &rng) {
    case 0: return .nan
    case 1: return [Float.infinity, -.infinity, 0, -0.0, 0.5, -0.5, 1.5, -2.5, 126.5, -127.5][Int.random(in: 0..<10, using: &rng)]
    default: return Float.random(in: -300...300, using: &rng)
    }
}
func ri() -> Int32 { Int32.random(in: Int32.min...Int32.max, using: &rng) }
func same(_ a: SIMD16<Float>, _ b: SIMD16<Float>) -> Bool { unsafeBitCast(a, to: SIMD16<Int32>.self) == unsafeBitCast(b, to: SIMD16<Int32>.self) }
var failures = 0
func check(_ ok: Bool, _ what: String) { if !ok { failures += 1; if failures < 20 { print("MISMATCH", what) } } }
for _ in 0..<20000 {
    var v = SIMD16<Float>(), lo = SIMD16<Float>(), hi = SIMD16<Float>(), acc = SIMD16<Int32>(), x = acc, w = acc, sh = acc
    var w16 = SIMD32<Int16>()
    for l in 0..<16 { v[l] = rf(); let a = Float(Int.random(in: -130...0)), b = Float(Int.random(in: 0...130)); lo[l] = a; hi[l] = b
        acc[l] = ri(); x[l] = ri(); w[l] = ri(); sh[l] = [0, 128][Int.random(in: 0...1)] }
    for l in 0..<32 { w16[l] = Int16.random(in: .min ... .max) }
    let pair = ri()
    check(TierX.addPairProducts(acc, pair, w16) == TierP.addPairProducts(acc, pair, w16), "addPairProducts")
    check(TierX.addLowProducts(acc, x, w) == TierP.addLowProducts(acc, x, w), "addLowProducts")
    check(same(TierX.clamp(v, lo: lo, hi: hi), TierP.clamp(v, lo: lo, hi: hi)), "clamp float \(v)")
    var a2 = SIMD16<Float>(); for l in 0..<16 { a2[l] = Bool.random() ? rf() : Float.random(in: -5...5) }
    // The running min/max seeds are never NaN.
    var seed = SIMD16<Float>(); for l in 0..<16 { seed[l] = Float.random(in: -100...100) }
    check(same(TierX.minimum(v, seed), TierP.minimum(v, seed)), "minimum")
    check(same(TierX.maximum(v, seed), TierP.maximum(v, seed)), "maximum")
    check(TierX.quantum(v, lo: lo, hi: hi, shift: sh) == TierP.quantum(v, lo: lo, hi: hi, shift: sh), "quantum")
    let ilo = SIMD16<Int32>(repeating: Int32.random(in: -200...0)), ihi = SIMD16<Int32>(repeating: Int32.random(in: 0...300))
    check(TierX.clamp(x, lo: ilo, hi: ihi) == TierP.clamp(x, lo: ilo, hi: ihi), "clamp int")
    check(TierX.toFloat(x) == TierP.toFloat(x), "toFloat")
    let small = TierX.clamp(x & SIMD16(repeating: 0x1FF) &- 128, lo: SIMD16(repeating: -128), hi: SIMD16(repeating: 255))
    let n = Int.random(in: 0...16)
    var bx = [UInt8](repeating: 0xAA, count: 20), bp = bx
    bx.withUnsafeMutableBytes { TierX.storeLowBytes(small, to: $0.baseAddress!, count: n) }
    bp.withUnsafeMutableBytes { TierP.storeLowBytes(small, to: $0.baseAddress!, count: n) }
    check(bx == bp, "storeLowBytes \(n)")
    let bytes = (0..<16).map { _ in UInt8.random(in: 0...255) }
    for signed in [false, true] {
        bytes.withUnsafeBytes { p in
            check(TierX.widenBytes(p.baseAddress!, count: n, signed: signed) == TierP.widenBytes(p.baseAddress!, count: n, signed: signed), "widen \(signed) \(n)")
        }
    }
}
print(failures == 0 ? "portable primitives == SSE2 primitives" : "\(failures) mismatches")
if failures > 0 { exit(1) }
