// The libFuzzer entry point of the one fuzz binary (`Tests/Fuzz/build.sh`): every target is
// compiled in, and `FUZZ_TARGET` (environment) picks the one this run exercises. Not part of
// the package.
import Foundation
@testable import DetectorCore

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
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    selectedTarget?.run(bytes)
    return 0
}

/// The pixel cap of the image targets: small, so a run stays short (the cap itself is checked
/// before any pixel memory is allocated).
let fuzzMaxPixels = 1 << 20
