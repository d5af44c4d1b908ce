import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// How the kernels' instruction-set tier is chosen, and what machine code each tier module
/// really holds (read back from this test binary with `objdump`).
final class InstructionSetTierTests: XCTestCase {
    func testTierFromCPUFlags() {
        let v3: Set<String> = ["sse2", "avx", "avx2", "fma", "f16c", "bmi1", "bmi2", "abm", "movbe"]
        let v4 = v3.union(["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"])
        XCTAssertEqual(InstructionSetTier.highest(withFlags: ["sse2", "sse4_2"]), .baseline)
        XCTAssertEqual(InstructionSetTier.highest(withFlags: v3), .avx2)
        XCTAssertEqual(InstructionSetTier.highest(withFlags: v3.subtracting(["fma"])), .baseline, "AVX2 without FMA")
        // AVX-512 without VNNI (Skylake-SP) runs the AVX2 kernels; with it, the AVX-512 ones.
        XCTAssertEqual(InstructionSetTier.highest(withFlags: v4), .avx2)
        XCTAssertEqual(InstructionSetTier.highest(withFlags: v4.union(["avx512_vnni"])), .avx512)
        XCTAssertEqual(InstructionSetTier.highest(withFlags: v4.union(["avx512_vnni"]).subtracting(["avx512bw"])), .avx2)
    }

    /// XCR0's state components → the tier the OS allows; on Linux x86-64 the `arch_prctl`
    /// reading and the `/proc/cpuinfo` flags give the same tier on this machine.
    func testTierFromStateComponents() {
        XCTAssertEqual(InstructionSetTier.highest(withStateComponents: 0b11), .baseline)        // x87, SSE
        XCTAssertEqual(InstructionSetTier.highest(withStateComponents: 0b111), .avx2)           // + AVX
        XCTAssertEqual(InstructionSetTier.highest(withStateComponents: 0b1110_0111), .avx512)   // + opmask, ZMM
        XCTAssertEqual(InstructionSetTier.highest(withStateComponents: 0b0110_0111), .avx2)     // a ZMM part missing
        XCTAssertEqual(InstructionSetTier.highest(withStateComponents: 0b1110_0011), .baseline) // ZMM without YMM
        #if os(Linux) && arch(x86_64)
        if let components = InstructionSetTier.stateComponents(), let flags = InstructionSetTier.osFeatures() {
            let processor = InstructionSetTier.highest(with: InstructionSetTier.processorFeatures())
            XCTAssertEqual(min(processor, InstructionSetTier.highest(withStateComponents: components)),
                           min(processor, InstructionSetTier.highest(with: flags)), "state components \(String(components, radix: 16))")
        } else {
            print("skipped: arch_prctl(ARCH_GET_XCOMP_SUPP) or /proc/cpuinfo unavailable")
        }
        #endif
    }

    /// The byte scan of `/proc/cpuinfo`: the first complete `flags` line, whole tokens only.
    func testFeaturesFromCPUInfoText() {
        func parse(_ text: String) -> CPUFeatures? {
            Array(text.utf8).withUnsafeBytes { CPUFeatures(cpuinfo: $0) }
        }
        let text = "processor\t: 0\nflagship\t: movbe\nflags\t\t: fpu avx  avx2\tfma avx512_vnni avx512vnni avx512f_x bmi1\nbugs\t\t: spectre_v1\n"
            + "processor\t: 1\nflags\t\t: avx512bw\n"
        XCTAssertEqual(parse(text), [.avx, .avx2, .fma, .avx512vnni, .bmi1])
        // A flags line not ended yet (the rest of the file not read yet) is not taken.
        XCTAssertNil(parse("processor\t: 0\nflags\t\t: fpu avx avx2"))
        XCTAssertNil(parse(""))
        XCTAssertEqual(parse("flags:\n"), [])
        XCTAssertEqual(CPUFeatures(names: ["abm", "movbe", "avx512vbmi", "sse2", "AVX2"]), [.abm, .movbe, .avx512vbmi])
        #if os(Linux)
        // The same features as Foundation's reading and splitting of the real file.
        if let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
           let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }),
           let colon = line.firstIndex(of: ":") {
            let names = line[line.index(after: colon)...].split(whereSeparator: { $0 == " " || $0 == "\t" })
            XCTAssertEqual(InstructionSetTier.osFeatures(), CPUFeatures(names: names))
            XCTAssertEqual(parse(cpuinfo), CPUFeatures(names: names))
        }
        #endif
    }

    func testTierNamesAndLimits() {
        XCTAssertEqual(InstructionSetTier(name: "SSE2"), .baseline)
        XCTAssertEqual(InstructionSetTier(name: "avx2"), .avx2)
        XCTAssertEqual(InstructionSetTier(name: "avx512"), .avx512)
        XCTAssertNil(InstructionSetTier(name: "avx10"))
        for tier in InstructionSetTier.allCases {
            XCTAssertLessThanOrEqual(InstructionSetTier.resolved(tier), InstructionSetTier.supported)
            XCTAssertEqual(InstructionSetTier(name: tier.description), tier)
        }
        XCTAssertLessThanOrEqual(InstructionSetTier.best, InstructionSetTier.supported)
        // What CPUID reports covers what is supported (the OS's word can only lower it).
        XCTAssertGreaterThanOrEqual(InstructionSetTier.highest(with: InstructionSetTier.processorFeatures()),
                                    InstructionSetTier.supported)
        #if !arch(x86_64)
        XCTAssertEqual(InstructionSetTier.supported, .baseline)
        #endif
    }

    func testInterpreterUsesTheRequestedTierAtMost() throws {
        var g = GraphBuilder()
        let x = g.input([1, 4])
        g.outputs = g.op(.fullyConnected, [x, g.constant([Float](repeating: 0.5, count: 12), shape: [3, 4])])
        for tier in InstructionSetTier.allCases {
            let interpreter = try Interpreter(graph: g.build(), options: .init(tier: tier))
            XCTAssertEqual(interpreter.tier, min(tier, InstructionSetTier.supported))
        }
    }

    /// Per module of this binary: instructions, those with VEX/EVEX encodings (mnemonics
    /// starting with "v"), ymm and zmm operands, FMAs, `vpdpwssd`, and calls to `fmaf`.
    struct InstructionCounts {
        var total = 0, vex = 0, ymm = 0, zmm = 0, fma = 0, vnni = 0, fmafCalls = 0
    }

    /// The x86-64 machine code of DetectorCore and its layers stays baseline (no VEX/EVEX instruction at all,
    /// so it runs on any x86-64 CPU), the AVX2 module uses ymm FMAs and no zmm register, the
    /// AVX-512 module zmm FMAs and VNNI; no module calls `fmaf` (what `addingProduct` becomes
    /// without hardware FMA).
    func testEachTierModuleHoldsItsInstructionSet() throws {
        #if arch(x86_64) && os(Linux)
        guard let objdump = ["/usr/bin/objdump", "/usr/local/bin/objdump"].first(where: FileManager.default.isExecutableFile) else {
            if ProcessInfo.processInfo.environment["CI"] == "true" { XCTFail("objdump not found (binutils)") }
            throw XCTSkip("objdump not found")
        }
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let data = try Self.output(of: objdump, ["-d", "--no-show-raw-insn", binary])
        var counts: [String: InstructionCounts] = [:]
        var module: String?
        var functions: [String: Set<String>] = [:]
        var current = ""
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            if line.hasSuffix(">:"), let open = line.firstIndex(of: "<") {
                current = String(line[line.index(after: open)..<line.index(line.endIndex, offsetBy: -2)])
                module = (Self.baselineModules + ["KernelsAVX2", "KernelsAVX512", "KernelsAVX512VBMI"])
                    .first { current.hasPrefix("$s\($0.utf8.count)\($0)") }
                    .map { Self.baselineModules.contains($0) ? "baseline" : $0 }
                continue
            }
            guard let module, let tab = line.firstIndex(of: "\t") else { continue }
            let instruction = line[line.index(after: tab)...].trimmingCharacters(in: .whitespaces)
            let mnemonic = instruction.prefix { !$0.isWhitespace }
            var c = counts[module, default: InstructionCounts()]
            c.total += 1
            if mnemonic.hasPrefix("v") { c.vex += 1 }
            if instruction.contains("%ymm") { c.ymm += 1 }
            if instruction.contains("%zmm") { c.zmm += 1 }
            if mnemonic.hasPrefix("vfmadd") {
                c.fma += 1
                functions[module + (instruction.contains("%zmm") ? " zmm fma" : " ymm fma"), default: []].insert(current)
            }
            if mnemonic.hasPrefix("vpdpwssd") {
                c.vnni += 1
                functions[module + " vnni", default: []].insert(current)
            }
            if mnemonic.hasPrefix("vpdpbusd") { functions[module + " vnni bytes", default: []].insert(current) }
            if mnemonic.hasPrefix("vpermi2b") || mnemonic.hasPrefix("vpermt2b") { functions[module + " vbmi", default: []].insert(current) }
            if mnemonic.hasPrefix("call"), instruction.contains("<fmaf") { c.fmafCalls += 1 }
            counts[module] = c
        }
        let core = try XCTUnwrap(counts["baseline"]), avx2 = try XCTUnwrap(counts["KernelsAVX2"])
        let avx512 = try XCTUnwrap(counts["KernelsAVX512"])
        XCTAssertGreaterThan(core.total, 100_000)
        XCTAssertEqual(core.vex, 0, "DetectorCore and its layers must stay SSE2-only")
        XCTAssertEqual(core.fmafCalls, 0)
        XCTAssertEqual(avx2.zmm, 0, "no AVX-512 register in the AVX2 module")
        XCTAssertEqual(avx2.fmafCalls, 0)
        XCTAssertEqual(avx512.fmafCalls, 0)
        // The float GEMM tiles use FMAs at their width, the AVX-512 integer tile uses VNNI.
        XCTAssertTrue(functions["KernelsAVX2 ymm fma", default: []].contains { $0.contains("TierFloatGEMM") && $0.contains("tile6") },
                      "AVX2 float tile: \(functions)")
        XCTAssertTrue(functions["KernelsAVX512 zmm fma", default: []].contains { $0.contains("TierFloatGEMM") && $0.contains("tile8") },
                      "AVX-512 float tile: \(functions)")
        XCTAssertTrue(functions["KernelsAVX512 vnni", default: []].contains { $0.contains("TierIntegerGemm") && $0.contains("tile8") },
                      "AVX-512 integer tile: \(functions)")
        XCTAssertTrue(functions["KernelsAVX512 vnni bytes", default: []].contains { $0.contains("TierByteGemm") && $0.contains("panelRequantized") },
                      "AVX-512 byte tile: \(functions)")
        XCTAssertNil(functions["KernelsAVX2 vnni bytes"], "no VNNI in the AVX2 module")
        // The byte table lookups permute bytes with VBMI, in their own module only.
        XCTAssertTrue(functions["KernelsAVX512VBMI vbmi", default: []].contains { $0.contains("TierByteTable") },
                      "VBMI table lookup: \(functions)")
        XCTAssertNil(functions["KernelsAVX512 vbmi"], "no VBMI in the AVX-512 module")
        XCTAssertNil(functions["KernelsAVX2 vbmi"], "no VBMI in the AVX2 module")
        #else
        throw XCTSkip("the tier modules exist on x86-64; machine code is read with objdump on Linux")
        #endif
    }

    /// No global or weak code symbol is defined by two of DetectorCore, KernelsAVX2 and
    /// KernelsAVX512 with different machine code: the linker keeps one copy of a symbol defined
    /// twice (a specialization of the same generic, say), and the other module would then
    /// silently run that copy, compiled for another instruction set. A compiler helper whose
    /// bytes are the same in every module that defines it (`__swift_instantiateGenericMetadata`,
    /// a call into the runtime) is harmless: any copy is every module's.
    func testTierModulesShareNoCodeSymbols() throws {
        #if arch(x86_64) && os(Linux)
        guard let nm = ["/usr/bin/nm", "/usr/local/bin/nm"].first(where: FileManager.default.isExecutableFile) else {
            if ProcessInfo.processInfo.environment["CI"] == "true" { XCTFail("nm not found (binutils)") }
            throw XCTSkip("nm not found")
        }
        let buildDirectory = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .deletingLastPathComponent()
        var symbols: [String: Set<String>] = [:]
        var objectFiles: [String: [String]] = [:]
        for module in Self.baselineModules + ["KernelsAVX2", "KernelsAVX512", "KernelsAVX512VBMI"] {
            let folder = buildDirectory.appendingPathComponent("\(module).build")
            let objects = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".o") }
                .map { folder.appendingPathComponent($0).path }
            XCTAssertFalse(objects.isEmpty, "no object files in \(folder.path)")
            objectFiles[module] = objects
            let listing = String(decoding: try Self.output(of: nm, ["--defined-only", "-P"] + objects), as: UTF8.self)
            // `-P`: "name type value size"; T/W are global and weak code.
            symbols[module] = Set(listing.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: " ")
                return fields.count >= 2 && (fields[1] == "T" || fields[1] == "W") ? String(fields[0]) : nil
            })
        }
        // Symbols defined in more than one group (core, each tier) whose bytes are the same in
        // every object file that defines them.
        let groups = [Self.baselineModules, ["KernelsAVX2"], ["KernelsAVX512"], ["KernelsAVX512VBMI"]]
        let groupSymbols = groups.map { $0.reduce(into: Set<String>()) { $0.formUnion(symbols[$1, default: []]) } }
        var counts: [String: Int] = [:]
        for names in groupSymbols { for name in names { counts[name, default: 0] += 1 } }
        var sameEverywhere = Set<String>()
        let shared = counts.filter { $0.value > 1 }.map(\.key)
        if !shared.isEmpty {
            guard let objdump = ["/usr/bin/objdump", "/usr/local/bin/objdump"].first(where: FileManager.default.isExecutableFile) else {
                if ProcessInfo.processInfo.environment["CI"] == "true" { XCTFail("objdump not found (binutils)") }
                throw XCTSkip("objdump not found")
            }
            for name in shared {
                var bodies = Set<[String]>()
                for (module, names) in symbols where names.contains(name) {
                    let listing = String(decoding: try Self.output(of: objdump, ["-d", "--disassemble=\(name)"] + objectFiles[module, default: []]),
                                         as: UTF8.self)
                    // Each copy's instruction bytes (the second tab-separated field of its lines);
                    // call targets are relocations, 0 in the object files.
                    var body: [String]? = nil
                    for line in listing.split(separator: "\n") {
                        if line.hasSuffix("<\(name)>:") {
                            if let body { bodies.insert(body) }
                            body = []
                            continue
                        }
                        let fields = line.split(separator: "\t")
                        if body != nil, fields.count >= 2, fields[0].hasSuffix(":") {
                            body?.append(fields[1].trimmingCharacters(in: .whitespaces))
                        } else if body != nil, !line.hasPrefix(" ") {
                            bodies.insert(body ?? []); body = nil
                        }
                    }
                    if let body { bodies.insert(body) }
                }
                if bodies.count == 1, let body = bodies.first, !body.isEmpty { sameEverywhere.insert(name) }
            }
        }
        let core = Self.baselineModules.reduce(into: Set<String>()) { $0.formUnion(symbols[$1, default: []]) }
            .subtracting(sameEverywhere)
        let avx2 = symbols["KernelsAVX2", default: []].subtracting(sameEverywhere)
        let avx512 = symbols["KernelsAVX512", default: []].subtracting(sameEverywhere)
        XCTAssertFalse(avx2.isEmpty); XCTAssertFalse(avx512.isEmpty)
        XCTAssertEqual(avx2.intersection(avx512), [])
        XCTAssertEqual(core.intersection(avx2), [])
        XCTAssertEqual(core.intersection(avx512), [])
        let vbmi = symbols["KernelsAVX512VBMI", default: []].subtracting(sameEverywhere)
        XCTAssertFalse(vbmi.isEmpty)
        XCTAssertEqual(vbmi.intersection(core.union(avx2).union(avx512)), [])
        #else
        throw XCTSkip("the tier modules exist on x86-64")
        #endif
    }

    /// DetectorCore, the layers beneath it and the baseline tier's kernels: compiled with no
    /// instruction-set flags (the baseline tier).
    static let baselineModules = ["KernelsBaseline", "DetectorPlatform", "DetectorZlib", "DetectorModelFile", "DetectorImage",
                                  "DetectorInterpreter", "DetectorPostprocess", "DetectorCore"]

    /// Standard output of a tool run to its end.
    static func output(of tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(tool) \(arguments.prefix(3))")
        return data
    }
}
