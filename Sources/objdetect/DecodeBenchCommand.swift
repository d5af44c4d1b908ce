import Foundation
import DetectorCore

/// `objdetect decode-bench FILE... [--runs N]`: decodes each file (from memory) N times after
/// one warm-up and prints one JSON line per file with the median and minimum wall time.
/// With `--encode`, also times `PNGEncoder` on the decoded pixels (as RGB8) and reports the size.
/// Used by `Tests/Benchmarks/png_vs_pillow.py`.
enum DecodeBenchCommand {
    static var subcommand: Subcommand { Subcommand(
        name: "decode-bench",
        summary: "time image decoding: one JSON line per FILE with median_ms (--runs N, default 10; --encode)",
        run: run) }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ArgumentReader(arguments, valueOptions: ["--runs"], flagOptions: ["--encode"])
        guard !args.positional.isEmpty else { throw UsageError("decode-bench needs at least one FILE") }
        let runs = try args.int("--runs") ?? 10
        guard runs >= 1, runs <= 100_000 else { throw UsageError("--runs must be 1 to 100000") }
        for path in args.positional {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandFailure("cannot read \(path)")
            }
            let bytes = [UInt8](data)
            var decoded = try ImageDecoder.decode(bytes)   // warm-up, and fails early on bad files
            var times: [Double] = []
            for _ in 0..<runs {
                let start = DispatchTime.now().uptimeNanoseconds
                decoded = try ImageDecoder.decode(bytes)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            var report: [String: Any] = [
                "file": path,
                "width": decoded.image.width,
                "height": decoded.image.height,
                "runs": runs,
                "median_ms": median(times),
                "min_ms": ((times.min() ?? 0) * 1000).rounded() / 1000,
            ]
            if args.flag("--encode") {
                let rgb = decoded.image.converted(to: .rgb8)
                var encodeTimes: [Double] = []
                var size = 0
                for _ in 0..<runs {
                    let start = DispatchTime.now().uptimeNanoseconds
                    size = try PNGEncoder.encode(rgb).count
                    encodeTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                }
                report["encode_median_ms"] = median(encodeTimes)
                report["encoded_bytes"] = size
            }
            try printJSON(report)
        }
        return 0
    }

    private static func median(_ values: [Double]) -> Double {
        let t = values.sorted()
        guard !t.isEmpty else { return 0 }
        let m = t.count % 2 == 1 ? t[t.count / 2] : (t[t.count / 2 - 1] + t[t.count / 2]) / 2
        return (m * 1000).rounded() / 1000
    }
}
