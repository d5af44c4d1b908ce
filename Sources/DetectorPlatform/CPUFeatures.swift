/// The x86-64 features the instruction-set tiers depend on, as a bit set: what CPUID reports,
/// or what the OS lists on the `flags` line of `/proc/cpuinfo`.
///
/// ```swift
/// let features = CPUFeatures(names: ["avx2", "fma", "avx512_vnni"])
/// features.contains(.avx512vnni)   // true
/// ```
struct CPUFeatures: OptionSet, Sendable {
    let rawValue: UInt32

    static let avx = CPUFeatures(rawValue: 1 << 0)
    static let avx2 = CPUFeatures(rawValue: 1 << 1)
    static let fma = CPUFeatures(rawValue: 1 << 2)
    static let f16c = CPUFeatures(rawValue: 1 << 3)
    static let bmi1 = CPUFeatures(rawValue: 1 << 4)
    static let bmi2 = CPUFeatures(rawValue: 1 << 5)
    /// LZCNT (`abm` in `/proc/cpuinfo`).
    static let abm = CPUFeatures(rawValue: 1 << 6)
    static let movbe = CPUFeatures(rawValue: 1 << 7)
    static let avx512f = CPUFeatures(rawValue: 1 << 8)
    static let avx512bw = CPUFeatures(rawValue: 1 << 9)
    static let avx512cd = CPUFeatures(rawValue: 1 << 10)
    static let avx512dq = CPUFeatures(rawValue: 1 << 11)
    static let avx512vl = CPUFeatures(rawValue: 1 << 12)
    /// `avx512_vnni` in `/proc/cpuinfo`.
    static let avx512vnni = CPUFeatures(rawValue: 1 << 13)
    static let avx512vbmi = CPUFeatures(rawValue: 1 << 14)
    /// AMX tiles and their 8-bit dot products (`amx_tile`, `amx_int8`): CPUID only, the OS
    /// grants them per process (`InstructionSetTier.hasTileMatrixBytes`).
    static let amxTile = CPUFeatures(rawValue: 1 << 15)
    static let amxInt8 = CPUFeatures(rawValue: 1 << 16)

    init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Each feature with its name as `/proc/cpuinfo` spells it.
    static let named: [(name: StaticString, feature: CPUFeatures)] = [
        ("avx", .avx), ("avx2", .avx2), ("fma", .fma), ("f16c", .f16c), ("bmi1", .bmi1), ("bmi2", .bmi2),
        ("abm", .abm), ("movbe", .movbe), ("avx512f", .avx512f), ("avx512bw", .avx512bw), ("avx512cd", .avx512cd),
        ("avx512dq", .avx512dq), ("avx512vl", .avx512vl), ("avx512_vnni", .avx512vnni), ("avx512vbmi", .avx512vbmi),
    ]

    /// The features among `names` (other names are ignored).
    init<S: Sequence>(names: S) where S.Element: StringProtocol {
        var features: CPUFeatures = []
        for name in names {
            let utf8 = Array(name.utf8)
            if let feature = utf8.withUnsafeBytes({ Self.feature(named: $0) }) {
                features.insert(feature)
            }
        }
        self = features
    }

    /// The feature whose `/proc/cpuinfo` name is exactly `token`, or nil.
    static func feature(named token: UnsafeRawBufferPointer) -> CPUFeatures? {
        for (name, feature) in named where name.utf8CodeUnitCount == token.count {
            let same = name.withUTF8Buffer { spelled in
                spelled.elementsEqual(token)
            }
            if same { return feature }
        }
        return nil
    }

    /// The features on the first complete `flags` line of `/proc/cpuinfo` text
    /// (`flags\t\t: fpu vme ... avx2 ...`), or nil when `text` holds no complete such line yet.
    init?(cpuinfo text: UnsafeRawBufferPointer) {
        let newline = UInt8(ascii: "\n"), space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
        var lineStart = 0
        while lineStart < text.count {
            guard let lineEnd = text[lineStart...].firstIndex(of: newline) else { return nil }
            let isFlags = lineEnd - lineStart > 5 && text[lineStart..<(lineStart + 5)].elementsEqual("flags".utf8)
                && (text[lineStart + 5] == space || text[lineStart + 5] == tab || text[lineStart + 5] == UInt8(ascii: ":"))
            if isFlags, let colon = text[lineStart..<lineEnd].firstIndex(of: UInt8(ascii: ":")) {
                var features: CPUFeatures = []
                var i = colon + 1
                while i < lineEnd {
                    while i < lineEnd && (text[i] == space || text[i] == tab) { i += 1 }
                    let tokenStart = i
                    while i < lineEnd && text[i] != space && text[i] != tab { i += 1 }
                    if i > tokenStart, let feature = Self.feature(named: UnsafeRawBufferPointer(rebasing: text[tokenStart..<i])) {
                        features.insert(feature)
                    }
                }
                self = features
                return
            }
            lineStart = lineEnd + 1
        }
        return nil
    }
}
