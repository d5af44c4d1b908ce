import Foundation
import DetectorCore

/// `objdetect bench MODEL [options]` times a model's `invoke()` (inputs filled with seeded noise,
/// loading and input copies outside the timer); `objdetect bench --what decode FILE...` times
/// image decoding (from memory), `--what resize FILE...` resampling the decoded RGB pixels,
/// `--what detect FILE... --model M` the whole per-image pipeline of `objdetect FILE` (decode,
/// preprocess, invoke, postprocess; the file's bytes read before the timer). All use
/// `BenchTiming`, and print min/median/max or JSON lines.
enum BenchCommand {
    static let spec = CommandSpec(
        name: "bench", usage: "objdetect bench MODEL [options] | objdetect bench --what decode|resize|detect FILE... [options]",
        summary: "time a model's invoke(), image decoding, resizing, or the whole detection of an image",
        options: [
            OptionSpec("--what", .choice(["model", "decode", "resize", "detect"]), default: "model",
                       help: "model: MODEL's invoke() (an embedded name or a .tflite); decode: decoding each FILE; resize: resizing it; "
                           + "detect: decoding and detecting in it as `objdetect FILE` does (decode, preprocess, inference, postprocess)"),
            OptionSpec("--runs", .int(1...100_000), value: "N", default: "30 for model, 10 otherwise", help: "timed runs"),
            OptionSpec("--warmup", .int(0...100_000), value: "W", default: "3", help: "untimed runs first"),
            CommonOptions.threads.only(in: "model|detect"),
            CommonOptions.model(default: ModelCatalog.defaultModelName, help: "the detector, an embedded name or a .tflite").only(in: "detect"),
            CommonOptions.format(["json", "text"], default: "text"),
            CommonOptions.json,
            OptionSpec("--profile", .flag, help: "per-operator times (runs more invokes)", mode: "model"),
            OptionSpec("--encode", .flag, help: "also time PNG encoding of the decoded pixels (level 6 and fast)", mode: "decode"),
            OptionSpec("--size", .text, value: "WxH", default: "640x640", help: "output size", mode: "resize"),
            OptionSpec("--resample", .choice(["mediapipe", "pillow", "bilinear", "area"]), default: "pillow", help: "resampling filter", mode: "resize"),
        ],
        notes: ["""
            JSON lines: model {"model", "median_ms", "runs", "threads"}; decode {"file", "width", "height", "runs", "median_ms",
            "min_ms", "median_cpu_ms"} (with --encode also "encode_median_ms", "encode_median_cpu_ms", "encoded_bytes" for level 6
            and the same with "fast" for PNGEncoder's fast mode); resize the same as decode plus "size" and "resample";
            detect the same as decode plus "model", "threads", "objects" and the median split "decode_ms", "preprocess_ms",
            "inference_ms", "postprocess_ms". detect uses the default score threshold `objdetect FILE` uses.
            """],
        modeOption: "--what")

    static let subcommand = Subcommand(spec: spec, handler: run)

    static func run(_ args: ParsedOptions) throws -> Int32 {
        let what = args.string("--what") ?? "model"
        try args.rejectOptions(outside: what)
        let json = try CommonOptions.chosenFormat(args, fallback: "text") == "json"
        let warmup = args.int("--warmup") ?? 3
        let threads = args.int("--threads") ?? 1
        if what != "model" {
            guard !args.positional.isEmpty else { throw UsageError("bench --what \(what) needs at least one FILE") }
            let size = try outputSize(args.string("--size") ?? "640x640")
            let method = Resampler(name: args.string("--resample") ?? "pillow") ?? .pillowBilinear
            for path in args.positional {
                let runs = args.int("--runs") ?? 10
                if what == "decode" {
                    try decodeBench(path, runs: runs, warmup: warmup, encode: args.flag("--encode"), json: json)
                } else if what == "detect" {
                    try detectBench(path, model: args.string("--model") ?? ModelCatalog.defaultModelName, threads: threads,
                                    runs: runs, warmup: warmup, json: json)
                } else {
                    try resizeBench(path, size: size, method: method, runs: runs, warmup: warmup, json: json)
                }
            }
            return 0
        }
        guard args.positional.count == 1 else { throw UsageError("bench takes one MODEL, got \(args.positional.count)") }
        return try modelBench(args.positional[0], runs: args.int("--runs") ?? 30, warmup: warmup, threads: threads,
                              profile: args.flag("--profile"), json: json)
    }

    static func modelBench(_ model: String, runs: Int, warmup: Int, threads: Int, profile: Bool, json: Bool) throws -> Int32 {
        let loadStart = DispatchTime.now().uptimeNanoseconds
        let interpreter = try Interpreter(contentsOfFile: try CommonOptions.modelPath(model), options: .init(threadCount: threads))
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
        let timing = try BenchTiming.measure(runs: runs, warmup: warmup) { try interpreter.invoke() }
        if profile { try printProfile(interpreter, runs: runs) }
        if json {
            // `tier`: the kernels' instruction set (`InstructionSetTier`); `load_ms`: model open and prepare.
            try printJSON(ModelBenchJSON(model: model, medianMs: BenchTiming.milli(timing.median), runs: runs, threads: threads,
                                         tier: interpreter.tier.description, loadMs: BenchTiming.milli(loadMs)))
        } else {
            try writeLine(String(format: "%@: min %.3f ms, median %.3f ms, max %.3f ms (%d runs, %d threads, %@ kernels, load %.1f ms)",
                         model, timing.min, timing.median, timing.max, runs, threads, interpreter.tier.description, loadMs))
        }
        return 0
    }

    /// Per-op wall time over `runs` more invokes: the 15 most expensive ops, then totals per op type.
    static func printProfile(_ interpreter: Interpreter, runs: Int) throws {
        interpreter.profile = [Double](repeating: 0, count: interpreter.graph.operators.count)
        for _ in 0..<runs { try interpreter.invoke() }
        let ops = interpreter.graph.operators
        let ranked = (interpreter.profile ?? []).enumerated().sorted { $0.element > $1.element }.prefix(15)
        for (k, ms) in ranked {
            let out = ops[k].outputs.first.map { interpreter.tensorDescription($0).shape } ?? []
            let kernel = interpreter.kernelName(ofOperator: k).map { "  kernel " + $0 } ?? ""
            try writeLine(String(format: "op %4d %-20@ %8.3f ms  out %@%@", k, ops[k].opName, ms / Double(runs), "\(out)", kernel))
        }
        var byType: [String: (ms: Double, count: Int)] = [:]
        for (k, ms) in (interpreter.profile ?? []).enumerated() {
            let entry = byType[ops[k].opName, default: (0, 0)]
            byType[ops[k].opName] = (entry.ms + ms, entry.count + 1)
        }
        for (name, entry) in byType.sorted(by: { $0.value.ms > $1.value.ms }) {
            try writeLine(String(format: "type %-20@ %8.3f ms  (%d ops)", name, entry.ms / Double(runs), entry.count))
        }
        var folded: [String: Int] = [:]
        for k in ops.indices where interpreter.isFoldedAtPrepare(operator: k) { folded[ops[k].opName, default: 0] += 1 }
        if !folded.isEmpty {
            try writeLine("folded at prepare (no work per invoke): " + folded.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
        }
    }

    static func decodeBench(_ path: String, runs: Int, warmup: Int, encode: Bool, json: Bool) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure("cannot read \(path)") }
        let bytes = [UInt8](data)
        var decoded = try ImageDecoder.decode(bytes)   // fails early on bad files
        let timing = try BenchTiming.measure(runs: runs, warmup: warmup) { decoded = try ImageDecoder.decode(bytes) }
        var report = DecodeBenchJSON(file: path, width: decoded.image.width, height: decoded.image.height, runs: runs,
                                     medianMs: BenchTiming.milli(timing.median), minMs: BenchTiming.milli(timing.min),
                                     medianCPUMs: BenchTiming.milli(timing.medianCPU))
        if encode {
            let rgb = decoded.image.converted(to: .rgb8)
            var size = 0
            let encoding = try BenchTiming.measure(runs: runs, warmup: 0) { size = try PNGEncoder.encode(rgb).count }
            report.encodeMedianMs = BenchTiming.milli(encoding.median)
            report.encodeMedianCPUMs = BenchTiming.milli(encoding.medianCPU)
            report.encodedBytes = size
            let fast = try BenchTiming.measure(runs: runs, warmup: 0) { size = try PNGEncoder.encode(rgb, compression: .fast).count }
            report.encodeFastMedianMs = BenchTiming.milli(fast.median)
            report.encodeFastMedianCPUMs = BenchTiming.milli(fast.medianCPU)
            report.encodedFastBytes = size
        }
        if json {
            try printJSON(report)
        } else {
            try writeLine(String(format: "%@: %dx%d, min %.3f ms, median %.3f ms (%d runs)", path, decoded.image.width, decoded.image.height,
                         timing.min, timing.median, runs))
        }
    }
}

extension BenchCommand {
    /// "640x480" as (640, 480), each side 1...10000.
    static func outputSize(_ text: String) throws -> (width: Int, height: Int) {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let w = parts[0], let h = parts[1], (1...10_000).contains(w), (1...10_000).contains(h) else {
            throw UsageError("--size must be WIDTHxHEIGHT, each from 1 to 10000, got '\(text)'")
        }
        return (w, h)
    }

    static func resizeBench(_ path: String, size: (width: Int, height: Int), method: Resampler, runs: Int, warmup: Int, json: Bool) throws {
        let rgb = try ImageDecoder.decode(contentsOf: path).image.converted(to: .rgb8)
        let timing = try BenchTiming.measure(runs: runs, warmup: warmup) {
            _ = try rgb.resized(width: size.width, height: size.height, method: method)
        }
        if json {
            try printJSON(ResizeBenchJSON(file: path, width: rgb.width, height: rgb.height, size: "\(size.width)x\(size.height)",
                                          resample: method.rawValue, runs: runs, medianMs: BenchTiming.milli(timing.median),
                                          minMs: BenchTiming.milli(timing.min), medianCPUMs: BenchTiming.milli(timing.medianCPU)))
        } else {
            try writeLine(String(format: "%@: %dx%d to %dx%d (%@), min %.3f ms, median %.3f ms (%d runs)", path, rgb.width, rgb.height,
                         size.width, size.height, method.rawValue, timing.min, timing.median, runs))
        }
    }
}

/// The one timing loop of `bench`: `warmup` untimed calls, then `runs` timed ones (wall and
/// process CPU time), reported in milliseconds.
struct BenchTiming {
    var min: Double
    var median: Double
    var max: Double
    var medianCPU: Double

    static func measure(runs: Int, warmup: Int, _ body: () throws -> Void) throws -> BenchTiming {
        for _ in 0..<warmup { try body() }
        var wall: [Double] = [], cpu: [Double] = []
        for _ in 0..<Swift.max(runs, 1) {
            let cpuStart = processCPUMilliseconds()
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            wall.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            cpu.append(processCPUMilliseconds() - cpuStart)
        }
        wall.sort()
        return BenchTiming(min: wall[0], median: median(wall), max: wall[wall.count - 1], medianCPU: median(cpu.sorted()))
    }

    static func median(_ sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }

    /// Rounded to 0.1 µs, as the JSON lines print it (a model of a few microseconds needs the
    /// digit after the microsecond for a ratio).
    static func milli(_ ms: Double) -> Double { (ms * 10_000).rounded() / 10_000 }
}

/// CPU time used so far by the whole process (every thread), in milliseconds.
func processCPUMilliseconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1e3 + Double(ts.tv_nsec) / 1e6
}

/// `bench --json` for a model: `tier` is the kernels' instruction set, `load_ms` the model's
/// open and prepare.
struct ModelBenchJSON: Encodable {
    let model: String
    let medianMs: Double
    let runs: Int
    let threads: Int
    let tier: String
    let loadMs: Double
    enum CodingKeys: String, CodingKey { case model, medianMs = "median_ms", runs, threads, tier, loadMs = "load_ms" }
}

/// `bench --what decode --json`; the `encode…` keys only with `--encode`.
struct DecodeBenchJSON: Encodable {
    let file: String
    let width: Int
    let height: Int
    let runs: Int
    let medianMs: Double
    let minMs: Double
    let medianCPUMs: Double
    var encodeMedianMs: Double?
    var encodeMedianCPUMs: Double?
    var encodedBytes: Int?
    var encodeFastMedianMs: Double?
    var encodeFastMedianCPUMs: Double?
    var encodedFastBytes: Int?
    enum CodingKeys: String, CodingKey {
        case file, width, height, runs, medianMs = "median_ms", minMs = "min_ms", medianCPUMs = "median_cpu_ms"
        case encodeMedianMs = "encode_median_ms", encodeMedianCPUMs = "encode_median_cpu_ms", encodedBytes = "encoded_bytes"
        case encodeFastMedianMs = "encode_fast_median_ms", encodeFastMedianCPUMs = "encode_fast_median_cpu_ms"
        case encodedFastBytes = "encoded_fast_bytes"
    }
}

/// `bench --what detect --json`: the whole per-image pipeline and its median split by stage.
struct DetectBenchJSON: Encodable {
    let file: String
    let model: String
    let threads: Int
    let width: Int
    let height: Int
    let objects: Int
    let runs: Int
    let medianMs: Double
    let minMs: Double
    let medianCPUMs: Double
    let decodeMs: Double
    let preprocessMs: Double
    let inferenceMs: Double
    let postprocessMs: Double
    enum CodingKeys: String, CodingKey {
        case file, model, threads, width, height, objects, runs, medianMs = "median_ms", minMs = "min_ms", medianCPUMs = "median_cpu_ms"
        case decodeMs = "decode_ms", preprocessMs = "preprocess_ms", inferenceMs = "inference_ms", postprocessMs = "postprocess_ms"
    }
}

/// `bench --what resize --json`.
struct ResizeBenchJSON: Encodable {
    let file: String
    let width: Int
    let height: Int
    let size: String
    let resample: String
    let runs: Int
    let medianMs: Double
    let minMs: Double
    let medianCPUMs: Double
    enum CodingKeys: String, CodingKey {
        case file, width, height, size, resample, runs, medianMs = "median_ms", minMs = "min_ms", medianCPUMs = "median_cpu_ms"
    }
}

extension BenchCommand {
    /// The whole per-image pipeline of `objdetect FILE --model M`: decoding from memory, then the
    /// detector (the CLI's default score threshold included); the model is prepared before the
    /// timer. Prints the median time and its split by stage (each stage's median over the runs).
    static func detectBench(_ path: String, model: String, threads: Int, runs: Int, warmup: Int, json: Bool) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure("cannot read \(path)") }
        let bytes = [UInt8](data)
        var options = ObjectDetectorOptions(model: try CommonOptions.modelSource(model))
        options.threadCount = threads
        options.fallbackScoreThreshold = (ModelCatalog.isEmbedded(model) ? ModelCatalog.suggestedScoreThreshold(for: model) : nil)
            ?? ModelCatalog.genericScoreThreshold
        let detector = try ObjectDetector(options: options)
        let first = try ImageDecoder.decode(bytes)   // fails early on bad files
        var decodeMs: [Double] = [], stages: [StageTimings] = []
        var objects = 0
        var previous = detector.timings
        let timing = try BenchTiming.measure(runs: runs, warmup: warmup) {
            let start = DispatchTime.now().uptimeNanoseconds
            let decoded = try ImageDecoder.decode(bytes)
            decodeMs.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            objects = try detector.detect(image: decoded.image, orientation: decoded.orientation ?? .up).count
            let now = detector.timings
            stages.append(StageTimings(preprocessSeconds: now.preprocessSeconds - previous.preprocessSeconds,
                                       inferenceSeconds: now.inferenceSeconds - previous.inferenceSeconds,
                                       postprocessSeconds: now.postprocessSeconds - previous.postprocessSeconds, count: 1))
            previous = now
        }
        // The timed runs are the last `runs` calls (the warm-up ones came first).
        let timed = stages.suffix(runs)
        func median(_ values: [Double]) -> Double { BenchTiming.milli(BenchTiming.median(values.sorted())) }
        let decode = median(Array(decodeMs.suffix(runs)))
        let preprocess = median(timed.map { $0.preprocessSeconds * 1000 })
        let inference = median(timed.map { $0.inferenceSeconds * 1000 })
        let postprocess = median(timed.map { $0.postprocessSeconds * 1000 })
        if json {
            try printJSON(DetectBenchJSON(file: path, model: model, threads: threads, width: first.image.width, height: first.image.height,
                                          objects: objects, runs: runs, medianMs: BenchTiming.milli(timing.median),
                                          minMs: BenchTiming.milli(timing.min), medianCPUMs: BenchTiming.milli(timing.medianCPU),
                                          decodeMs: decode, preprocessMs: preprocess, inferenceMs: inference, postprocessMs: postprocess))
        } else {
            try writeLine(String(format: "%@ (%@, %d thread%@): %d objects, min %.3f ms, median %.3f ms (%d runs); median %.3f ms decode, %.3f ms preprocess, %.3f ms inference, %.3f ms postprocess",
                                 path, model, threads, threads == 1 ? "" : "s", objects, timing.min, timing.median, runs,
                                 decode, preprocess, inference, postprocess))
        }
    }
}
