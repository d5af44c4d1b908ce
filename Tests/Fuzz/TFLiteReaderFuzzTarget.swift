// libFuzzer entry point for the TFLite reader. Not part of the package: built by run_fuzzer.sh
// together with the reader's sources (swiftc -sanitize=fuzzer,address).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTFLiteReader(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let data = Data(bytes: start, count: count)
    do {
        let model = try TFLiteModel(data: data)
        for t in model.mainSubgraph.tensors { _ = model.constantBytes(of: t) }
        _ = ModelFamilyDetector.detect(model)
        for op in model.mainSubgraph.operators where op.code.isCustom {
            _ = try? FlexBuffers.decode(model.customOptionsBytes(of: op))
            _ = try? DetectionPostProcessOptions(model: model, operator: op)
        }
        let assets = try ModelAssets(model: model)
        _ = try? assets.labels()
        _ = try? assets.scoreCalibration()
        for entry in assets.archive?.entries ?? [] { _ = try? assets.archive?.contents(of: entry) }
    } catch {
        _ = String(describing: error)
    }
    // FlexBuffers on the raw input too.
    _ = try? data.withUnsafeBytes { try FlexBuffers.decode($0) }
    return 0
}
