// Fuzz target of the TFLite reader: FlatBuffers, the schema, FlexBuffers custom options,
// metadata and the ZIP of associated files.
import Foundation
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

func fuzzTFLiteReader(_ bytes: [UInt8]) {
    let data = Data(bytes)
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
}
