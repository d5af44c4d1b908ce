import Foundation
import DetectorCore

/// `objdetect bench MODEL [--runs N] [--warmup W] [--threads T] [--json]`: times `invoke()`
/// (inputs filled with seeded noise, loading and input copies outside the timer) and prints
/// min/median/max ms, or one JSON line `{"model", "median_ms", "runs", "threads", "tier", "load_ms"}`
/// (`tier`: the kernels' instruction set, see `InstructionSetTier`; `load_ms`: model open and
/// prepare).
enum BenchCommand {
    static let usage = "usage: objdetect bench MODEL [--runs N] [--warmup W] [--threads T] [--json] [--profile]"

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ArgumentReader(arguments, valueOptions: ["--runs", "--warmup", "--threads"], flagOptions: ["--json", "--profile"])
        guard args.positional.count == 1 else { throw UsageError(usage) }
        let path = args.positional[0]
        let runs = try args.int("--runs") ?? 30
        let warmup = try args.int("--warmup") ?? 3
        let threads = try args.int("--threads") ?? 1
        guard runs >= 1, runs <= 100_000 else { throw UsageError("--runs must be between 1 and 100000") }
        guard warmup >= 0, warmup <= 100_000 else { throw UsageError("--warmup must be between 0 and 100000") }
        guard threads >= 1, threads <= 64 else { throw UsageError("--threads must be between 1 and 64") }
        let loadStart = DispatchTime.now().uptimeNanoseconds
        let interpreter = try Interpreter(contentsOfFile: path, options: .init(threadCount: threads))
        let loadMs = Double(DispatchTime.now().uptimeNanoseconds - loadStart) / 1e6
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for (i, input) in interpreter.inputs.enumerated() {
            var bytes = [UInt8](repeating: 0, count: input.byteCount)
            if input.type == .float32 {
                bytes.withUnsafeMutableBytes { raw in
                    let f = raw.bindMemory(to: Float.self)
                    for j in 0..<f.count {
                        seed = seed &* 6364136223846793005 &+ 1442695040888963407
                        f[j] = Float(seed >> 40) / Float(1 << 24) * 2 - 1
                    }
                }
            } else {
                for j in 0..<bytes.count {
                    seed = seed &* 6364136223846793005 &+ 1442695040888963407
                    bytes[j] = UInt8(truncatingIfNeeded: seed >> 56)
                }
            }
            try interpreter.copyInput(bytes, at: i)
        }
        for _ in 0..<warmup { try interpreter.invoke() }
        var times: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            try interpreter.invoke()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        times.sort()
        if args.flag("--profile") {
            // Per-op wall time over `runs` more invokes, the 15 most expensive ops.
            interpreter.profile = [Double](repeating: 0, count: interpreter.graph.operators.count)
            for _ in 0..<runs { try interpreter.invoke() }
            let ops = interpreter.graph.operators
            let ranked = (interpreter.profile ?? []).enumerated().sorted { $0.element > $1.element }.prefix(15)
            for (k, ms) in ranked {
                let out = ops[k].outputs.first.map { interpreter.tensorDescription($0).shape } ?? []
                print(String(format: "op %4d %-20@ %8.3f ms  out %@", k, ops[k].opName, ms / Double(runs), "\(out)"))
            }
            // Totals per op type, most expensive first.
            var byType: [String: (ms: Double, count: Int)] = [:]
            for (k, ms) in (interpreter.profile ?? []).enumerated() {
                let entry = byType[ops[k].opName, default: (0, 0)]
                byType[ops[k].opName] = (entry.ms + ms, entry.count + 1)
            }
            for (name, entry) in byType.sorted(by: { $0.value.ms > $1.value.ms }) {
                print(String(format: "type %-20@ %8.3f ms  (%d ops)", name, entry.ms / Double(runs), entry.count))
            }
        }
        let median = times.count % 2 == 1 ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
        if args.flag("--json") {
            try printJSON(["model": path, "median_ms": (median * 1000).rounded() / 1000, "runs": runs, "threads": threads,
                           "tier": interpreter.tier.description, "load_ms": (loadMs * 1000).rounded() / 1000])
        } else {
            print(String(format: "%@: min %.3f ms, median %.3f ms, max %.3f ms (%d runs, %d threads, %@ kernels, load %.1f ms)",
                         path, times.first ?? 0, median, times.last ?? 0, runs, threads, interpreter.tier.description, loadMs))
        }
        return 0
    }
}
