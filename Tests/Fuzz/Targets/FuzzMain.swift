// The libFuzzer entry point of the one fuzz binary (`Tests/Fuzz/build.sh`): every target is
// compiled in, and `FUZZ_TARGET` (environment) picks the one this run exercises. Not part of
// the package.
import Foundation
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// One fuzz target: a name (what `FUZZ_TARGET` says) and a function of one input.
struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable ([UInt8]) -> Void
}

/// Every target, by name.
let fuzzTargets: [FuzzTarget] = [
    FuzzTarget(name: "png", run: fuzzPNG),
    FuzzTarget(name: "jpeg", run: fuzzJPEG),
    FuzzTarget(name: "image", run: fuzzImageDecoder),
    FuzzTarget(name: "ppm_stream", run: fuzzPPMStream),
    FuzzTarget(name: "image_stream", run: fuzzImageStream),
    FuzzTarget(name: "inflate", run: fuzzInflate),
    FuzzTarget(name: "zip", run: fuzzZip),
    FuzzTarget(name: "tflite", run: fuzzTFLiteReader),
    FuzzTarget(name: "model", run: fuzzModelInvoke),
    FuzzTarget(name: "mot", run: fuzzMOT),
    FuzzTarget(name: "decoder_config", run: fuzzDecoderConfig),
    FuzzTarget(name: "automl", run: fuzzAutoMLManifest),
    FuzzTarget(name: "cli", run: fuzzCommandLine),
]

nonisolated(unsafe) var selectedTarget: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
    guard let target = fuzzTargets.first(where: { $0.name == name }) else {
        FileHandle.standardError.write(Data("FUZZ_TARGET must be one of: \(fuzzTargets.map(\.name).joined(separator: " ")) (got '\(name)')\n".utf8))
        exit(2)
    }
    selectedTarget = target
    atexit { reportSlowestInput() }
    return 0
}

/// CPU time one input may take (FUZZ_CPU_LIMIT_MS, 1000 by default).
let cpuLimitNanoseconds = UInt64(ProcessInfo.processInfo.environment["FUZZ_CPU_LIMIT_MS"].flatMap { UInt64($0) } ?? 1000) * 1_000_000

/// The slowest input of this process so far and its CPU time (libFuzzer's own figure is
/// wall time in whole seconds).
nonisolated(unsafe) var slowest: (nanoseconds: UInt64, input: [UInt8]) = (0, [])

/// Prints the slowest input's time and size (run_all.sh reads the line) and saves it to
/// `FUZZ_SLOWEST_FILE` when set.
func reportSlowestInput() {
    let line = String(format: "slowest_input_cpu_ms: %.3f bytes: %d\n", Double(slowest.nanoseconds) / 1e6, slowest.input.count)
    FileHandle.standardError.write(Data(line.utf8))
    if let path = ProcessInfo.processInfo.environment["FUZZ_SLOWEST_FILE"] {
        _ = FileManager.default.createFile(atPath: path, contents: Data(slowest.input))
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let start = threadCPUNanoseconds()
    selectedTarget?.run(bytes)
    let elapsed = threadCPUNanoseconds() - start
    if elapsed > slowest.nanoseconds { slowest = (elapsed, bytes) }
    if elapsed > cpuLimitNanoseconds {
        // libFuzzer's -timeout counts wall time, which other processes on a busy machine
        // stretch; this limit counts this thread's CPU time. Trapping saves the input as a crash.
        FileHandle.standardError.write(Data("input of \(count) bytes took \(elapsed / 1_000_000) ms of CPU, more than the limit of \(cpuLimitNanoseconds / 1_000_000) ms (FUZZ_CPU_LIMIT_MS)\n".utf8))
        abort()
    }
    return 0
}

/// The pixel cap of the image targets: small, so a run stays short (the cap itself is checked
/// before any pixel memory is allocated).
let fuzzMaxPixels = 1 << 14
