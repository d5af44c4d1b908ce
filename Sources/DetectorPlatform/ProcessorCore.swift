#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if arch(x86_64)
import _Builtin_intrinsics.intel.cpuid
#endif

/// What the kernel tables need to know about the processor's cores beyond its instruction
/// sets: facts that change which register tile is fastest, read once from CPUID.
///
/// ```swift
/// if ProcessorCore.current.halvesWideVectors { /* AMD Zen 4: keep the 8 × 16 float tile */ }
/// ```
package struct ProcessorCore: Sendable, Equatable {
    /// The CPUID vendor string: `GenuineIntel`, `AuthenticAMD`, … (empty off x86-64).
    package let vendor: String
    /// The display family (CPUID leaf 1: base family, plus the extended family when the base is 15).
    package let family: Int

    package init(vendor: String, family: Int) {
        self.vendor = vendor; self.family = family
    }

    /// Whether the core runs a 512-bit operation as two 256-bit halves (AMD family 0x19,
    /// Zen 4): one 512-bit FMA per cycle, where Intel's AVX-512 cores and AMD's Zen 5
    /// (family 0x1A) issue two. With two, a float GEMM tile must load less per multiply-add.
    package var halvesWideVectors: Bool { vendor == "AuthenticAMD" && family <= 0x19 }

    /// This process's processor.
    package static let current: ProcessorCore = {
        #if arch(x86_64)
        var a: UInt32 = 0, b: UInt32 = 0, c: UInt32 = 0, d: UInt32 = 0
        guard __get_cpuid(0, &a, &b, &c, &d) != 0 else { return ProcessorCore(vendor: "", family: 0) }
        var bytes = [UInt8]()
        for word in [b, d, c] { for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) } }
        let vendor = String(decoding: bytes, as: UTF8.self)
        guard __get_cpuid(1, &a, &b, &c, &d) != 0 else { return ProcessorCore(vendor: vendor, family: 0) }
        let base = Int((a >> 8) & 0xF), extended = Int((a >> 20) & 0xFF)
        return ProcessorCore(vendor: vendor, family: base == 0xF ? base + extended : base)
        #else
        return ProcessorCore(vendor: "", family: 0)
        #endif
    }()

    /// Whether the AVX-512 float GEMM runs its 12 × 32 tile (`TierFloatGEMM.multiplyPaired`)
    /// rather than 8 × 16: on every AVX-512 core but those that halve wide vectors. The
    /// environment variable `OBJDETECT_FLOAT_TILE=8x16|12x32` chooses instead (for measuring
    /// both on one machine).
    package static let pairsFloatPanels: Bool = {
        if let raw = getenv("OBJDETECT_FLOAT_TILE") {
            switch String(cString: raw) {
            case "8x16": return false
            case "12x32": return true
            default: break
            }
        }
        return !current.halvesWideVectors
    }()
}
