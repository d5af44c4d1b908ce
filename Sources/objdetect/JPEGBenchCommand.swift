import Foundation
import DetectorCore

/// `objdetect jpeg-bench FILE… [--runs N]`: decodes each JPEG N times (default 20) after three
/// warm-up decodes and prints one JSON line per file with the median and best wall time and the median
/// process CPU time (all threads) in milliseconds. Used by `Tests/Benchmarks/jpeg_vs_pillow.py`.
func runJPEGBench(_ arguments: [String]) throws -> Int32 {
    let args = try ArgumentReader(arguments, valueOptions: ["--runs"], flagOptions: [])
    let runs = try args.int("--runs") ?? 20
    guard runs >= 1 else { throw UsageError("--runs must be at least 1") }
    guard !args.positional.isEmpty else { throw UsageError("jpeg-bench needs at least one JPEG file") }
    for path in args.positional {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("cannot read \(path)")
        }
        let bytes = [UInt8](data)
        let first = try JPEGDecoder.decode(bytes)
        for _ in 0..<2 { _ = try JPEGDecoder.decode(bytes) }   // more warm-up: allocator and thread pool
        var times: [Double] = [], cpuTimes: [Double] = []
        for _ in 0..<runs {
            let cpuStart = processCPUMilliseconds()
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try JPEGDecoder.decode(bytes)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            cpuTimes.append(processCPUMilliseconds() - cpuStart)
        }
        times.sort()
        cpuTimes.sort()
        try printJSON(["file": path, "width": first.image.width, "height": first.image.height, "runs": runs,
                       "median_ms": times[times.count / 2], "min_ms": times[0], "median_cpu_ms": cpuTimes[cpuTimes.count / 2]])
    }
    return 0
}

/// CPU time used so far by the whole process (every thread), in milliseconds.
func processCPUMilliseconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1e3 + Double(ts.tv_nsec) / 1e6
}
