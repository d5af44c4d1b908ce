#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if arch(x86_64)
import _Builtin_intrinsics.intel.cpuid
#endif

/// The instruction set the interpreter's hot kernels run with, chosen once per process from
/// what the CPU and OS support.
///
/// On x86-64 the default build holds three variants of the float GEMM: the baseline (SSE2,
/// DetectorCore's own kernels), AVX2 + FMA (x86-64-v3, the `KernelsAVX2` module) and AVX-512
/// with VNNI (x86-64-v4, `KernelsAVX512`). Elsewhere there is only `.baseline` (NEON on
/// arm64). A tier is supported when the processor reports its features (CPUID) and the OS
/// says it saves the registers (Linux: the XSAVE state components `arch_prctl` reports, else
/// `/proc/cpuinfo` flags; Darwin: `hw.optional.*`). The environment variable `OBJDETECT_ISA=sse2|avx2|avx512` asks for a lower tier
/// (for tests and bug reports); a tier the CPU cannot run is never chosen.
///
/// ```swift
/// print(InstructionSetTier.best)            // e.g. avx512 on an AMD EPYC Zen 5
/// var options = Interpreter.Options()
/// options.tier = .avx2                      // force AVX2 even where AVX-512 exists
/// ```
public enum InstructionSetTier: Int, Comparable, Sendable, CustomStringConvertible, CaseIterable {
    /// SSE2 on x86-64 (NEON on arm64): portable Swift SIMD, no extra flags.
    case baseline = 0
    /// x86-64-v3: AVX, AVX2, FMA, F16C, BMI1/2, LZCNT, MOVBE.
    case avx2 = 1
    /// x86-64-v4 (AVX-512 F, BW, CD, DQ, VL) plus AVX-512 VNNI.
    case avx512 = 2

    public var description: String {
        switch self {
        case .baseline:
            #if arch(x86_64)
            return "sse2"
            #else
            return "neon"
            #endif
        case .avx2: return "avx2"
        case .avx512: return "avx512"
        }
    }

    public static func < (a: InstructionSetTier, b: InstructionSetTier) -> Bool { a.rawValue < b.rawValue }

    /// The tier named by `OBJDETECT_ISA` (`sse2`/`baseline`/`neon`, `avx2`, `avx512`), or nil.
    public init?(name: String) {
        switch name.lowercased() {
        case "sse2", "baseline", "neon": self = .baseline
        case "avx2": self = .avx2
        case "avx512": self = .avx512
        default: return nil
        }
    }

    /// The best tier this CPU and OS support (and this build holds).
    public static let supported: InstructionSetTier = detect()

    /// `supported`, lowered to `OBJDETECT_ISA` when that names a lower tier.
    public static let best: InstructionSetTier = {
        // getenv rather than ProcessInfo: building Foundation's environment dictionary was a
        // third of a small model's prepare time in a fresh process.
        guard let raw = getenv("OBJDETECT_ISA"), let forced = InstructionSetTier(name: String(cString: raw)) else {
            return supported
        }
        return min(forced, supported)
    }()

    /// The tier that is run when `requested` is asked for: never above `supported`.
    package static func resolved(_ requested: InstructionSetTier?) -> InstructionSetTier {
        min(requested ?? best, supported)
    }

    /// CPU features each tier needs.
    static func required(_ tier: InstructionSetTier) -> CPUFeatures {
        let v3: CPUFeatures = [.avx, .avx2, .fma, .f16c, .bmi1, .bmi2, .abm, .movbe]
        switch tier {
        case .baseline: return []
        case .avx2: return v3
        case .avx512: return v3.union([.avx512f, .avx512bw, .avx512cd, .avx512dq, .avx512vl, .avx512vnni])
        }
    }

    /// The highest tier whose features are all in `features`.
    static func highest(with features: CPUFeatures) -> InstructionSetTier {
        for tier in [InstructionSetTier.avx512, .avx2] where features.isSuperset(of: required(tier)) { return tier }
        return .baseline
    }

    /// The highest tier whose flags (as `/proc/cpuinfo` spells them) are all in `flags`.
    static func highest(withFlags flags: Set<String>) -> InstructionSetTier {
        highest(with: CPUFeatures(names: flags))
    }

    /// What the processor itself reports (CPUID leaves 1, 7 and 0x80000001). This is what an
    /// emulator such as `qemu -cpu Nehalem` shows; whether the OS saves the wider registers is
    /// what the OS reports (below).
    static func processorFeatures() -> CPUFeatures { cachedProcessorFeatures }

    /// CPUID traps to the hypervisor in a virtual machine: read once per process.
    private static let cachedProcessorFeatures: CPUFeatures = {
        #if arch(x86_64)
        var a: UInt32 = 0, b: UInt32 = 0, c: UInt32 = 0, d: UInt32 = 0
        var features: CPUFeatures = []
        func bit(_ word: UInt32, _ n: UInt32) -> Bool { word & (1 << n) != 0 }
        if __get_cpuid(1, &a, &b, &c, &d) != 0 {
            if bit(c, 12) { features.insert(.fma) }
            if bit(c, 22) { features.insert(.movbe) }
            if bit(c, 28) { features.insert(.avx) }
            if bit(c, 29) { features.insert(.f16c) }
        }
        if __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 {
            // One test per bit, not an array of tuples: a tuple type's metadata is built at run
            // time, on a fresh process's first model load.
            if bit(b, 3) { features.insert(.bmi1) }
            if bit(b, 5) { features.insert(.avx2) }
            if bit(b, 8) { features.insert(.bmi2) }
            if bit(b, 16) { features.insert(.avx512f) }
            if bit(b, 17) { features.insert(.avx512dq) }
            if bit(b, 28) { features.insert(.avx512cd) }
            if bit(b, 30) { features.insert(.avx512bw) }
            if bit(b, 31) { features.insert(.avx512vl) }
            if bit(c, 1) { features.insert(.avx512vbmi) }
            if bit(c, 11) { features.insert(.avx512vnni) }
            if bit(d, 24) { features.insert(.amxTile) }
            if bit(d, 25) { features.insert(.amxInt8) }
        }
        if __get_cpuid(0x8000_0001, &a, &b, &c, &d) != 0, bit(c, 5) { features.insert(.abm) }
        return features
        #else
        return []
        #endif
    }()

    /// The AVX-512 tier may also use VBMI's byte permutes (`vpermi2b`, the byte table
    /// lookups of `KernelsAVX512VBMI`): the processor and the OS report `avx512vbmi`.
    package static let hasByteTableLookup: Bool = {
        #if arch(x86_64)
        guard supported == .avx512, processorFeatures().contains(.avx512vbmi) else { return false }
        #if os(Linux)
        // The AVX-512 state is enabled (the tier is avx512): VBMI needs nothing more from the OS.
        if stateComponents() != nil { return true }
        return osFeatures()?.contains(.avx512vbmi) ?? false
        #elseif canImport(Darwin)
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        return sysctlbyname("hw.optional.avx512vbmi", &value, &size, nil, 0) == 0 && value != 0
        #else
        return false
        #endif
        #else
        return false
        #endif
    }()

    /// The AVX-512 tier may also run its byte GEMM on AMX tiles (`tdpbusd`, `KernelsAVX512AMX`):
    /// the processor reports AMX-TILE and AMX-INT8, the OS enables the tile state (XSAVE
    /// components 17 and 18) and grants it to this process (`arch_prctl(ARCH_REQ_XCOMP_PERM)`,
    /// Linux 5.16 and later), and `OBJDETECT_AMX` is not `0`/`off` (which keeps the VNNI byte
    /// GEMM, for tests and comparisons). Asked once per process, before any kernel runs.
    package static let hasTileMatrixBytes: Bool = {
        #if os(Linux) && arch(x86_64)
        if let raw = getenv("OBJDETECT_AMX"), ["0", "off", "no"].contains(String(cString: raw).lowercased()) { return false }
        guard supported == .avx512, processorFeatures().isSuperset(of: [.amxTile, .amxInt8]),
              let components = stateComponents(), components & tileStateComponents == tileStateComponents,
              let symbol = dlsym(nil, "syscall") else { return false }
        // Fixed prototype for the variadic `syscall(2)`, as in `stateComponents`.
        typealias Syscall = @convention(c) (Int, Int, Int) -> Int
        let call = unsafeBitCast(symbol, to: Syscall.self)
        let archPrctl = 158, requestPermission = 0x1023, tileData = 18   // SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA
        return call(archPrctl, requestPermission, tileData) == 0
        #else
        return false
        #endif
    }()

    /// XSAVE components 17 (XTILECFG) and 18 (XTILEDATA).
    static let tileStateComponents: UInt64 = 0b11 << 17

    /// The highest tier whose registers the OS saves, from the XSAVE state components it
    /// enables (XCR0's bits: 1 SSE, 2 AVX, 5–7 the AVX-512 opmask and upper ZMM halves and registers).
    static func highest(withStateComponents components: UInt64) -> InstructionSetTier {
        let avx: UInt64 = 0b110, avx512: UInt64 = 0b1110_0000
        if components & (avx | avx512) == avx | avx512 { return .avx512 }
        if components & avx == avx { return .avx2 }
        return .baseline
    }

    #if os(Linux) && arch(x86_64)
    /// The XSAVE state components the kernel lets this process use (`arch_prctl(ARCH_GET_XCOMP_SUPP)`,
    /// Linux 5.16 and later: XCR0's features, which the kernel also clears for CPU features it
    /// disabled); nil where the call fails (then `/proc/cpuinfo` is read). One system call
    /// instead of reading `/proc/cpuinfo`, whose first block the kernel formats on each open
    /// (≈ 75 µs here: a tenth of a tiny model's load in a fresh process).
    static func stateComponents() -> UInt64? { cachedStateComponents }

    private static let cachedStateComponents: UInt64? = {
        // `syscall(2)` is variadic, which Swift does not call; glibc's and musl's x86-64
        // `syscall` read only the integer argument registers, so a fixed three-argument
        // prototype reaches them unchanged.
        guard let symbol = dlsym(nil, "syscall") else { return nil }
        typealias Syscall = @convention(c) (Int, Int, UnsafeMutablePointer<UInt64>) -> Int
        let call = unsafeBitCast(symbol, to: Syscall.self)
        let archPrctl = 158, getXcompSupported = 0x1021   // SYS_arch_prctl, ARCH_GET_XCOMP_SUPP
        var components: UInt64 = 0
        guard call(archPrctl, getXcompSupported, &components) == 0, components & 0b11 == 0b11 else { return nil }
        return components
    }()
    #elseif os(Linux)
    static func stateComponents() -> UInt64? { nil }
    #endif

    #if os(Linux)
    /// The features on the `flags` line of `/proc/cpuinfo`: the kernel lists only the features
    /// it has enabled (AVX-512 state saving included). Nil when unreadable. Read once per
    /// process (the tier and the VBMI check both ask), with `read(2)` and a byte scan: through
    /// Foundation's `String(contentsOfFile:)` and a `Set<String>` this took a third of a small
    /// model's prepare time.
    static func osFeatures() -> CPUFeatures? { cachedOSFeatures }

    private static let cachedOSFeatures: CPUFeatures? = {
        let fd = open("/proc/cpuinfo", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // The first processor's block holds the flags line, within its first few KiB; reads
        // go on (to 64 KiB at most) only until a complete flags line is in.
        let capacity = 1 << 16
        var count = 0
        var found: CPUFeatures? = nil
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            while count < capacity, let base = raw.baseAddress {
                let n = read(fd, base + count, min(4096, capacity - count))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                count += n
                found = CPUFeatures(cpuinfo: UnsafeRawBufferPointer(rebasing: raw[0..<count]))
                if found != nil { break }
            }
            initialized = count
        }
        _ = bytes
        return found
    }()
    #endif

    private static func detect() -> InstructionSetTier {
        #if arch(x86_64)
        let processor = highest(with: processorFeatures())
        #if os(Linux)
        if let components = stateComponents() { return min(processor, highest(withStateComponents: components)) }
        guard let features = osFeatures() else { return .baseline }
        return min(processor, highest(with: features))
        #elseif canImport(Darwin)
        func has(_ name: String) -> Bool {
            var value: Int32 = 0
            var size = MemoryLayout<Int32>.size
            return sysctlbyname("hw.optional." + name, &value, &size, nil, 0) == 0 && value != 0
        }
        let avx2 = ["avx2_0", "fma", "f16c", "bmi1", "bmi2"].allSatisfy(has)
        let avx512 = avx2 && ["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl", "avx512vnni"].allSatisfy(has)
        return min(processor, avx512 ? .avx512 : avx2 ? .avx2 : .baseline)
        #else
        return .baseline
        #endif
        #else
        return .baseline
        #endif
    }
}
