import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Measures (never asserts) how long opening a model and reading its metadata and labels takes.
/// Runs only with OBJDETECT_BENCH=1, e.g.
/// `OBJDETECT_BENCH=1 swift test -c release -Xswiftc -enable-testing --scratch-path .build/tests --filter TFLiteReaderBenchmark`.
final class TFLiteReaderBenchmark: XCTestCase {
    func testOpenSSDModelWithMetadataAndLabels() throws {
        guard ProcessInfo.processInfo.environment["OBJDETECT_BENCH"] == "1" else {
            throw XCTSkip("set OBJDETECT_BENCH=1 to measure")
        }
        let path = try SharedData.url("models/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite").path
        func measure(_ label: String, runs: Int = 50, _ body: () throws -> Void) rethrows {
            var times: [Double] = []
            for _ in 0..<runs {
                let t0 = DispatchTime.now().uptimeNanoseconds
                try body()
                times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            }
            times.sort()
            print(String(format: "%@: median %.3f ms, min %.3f ms, max %.3f ms (%d runs)", label, times[runs / 2], times[0], times[runs - 1], runs))
        }
        try measure("open (mmap) + parse graph") { _ = try TFLiteModel(contentsOfFile: path) }
        try measure("open + parse + metadata + labels + family") {
            let model = try TFLiteModel(contentsOfFile: path)
            let assets = try ModelAssets(model: model)
            let labels = try assets.labels()
            _ = ModelFamilyDetector.detect(model)
            if labels?.count != 90 { XCTFail("labels") }
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try measure("parse from Data (one aligned copy)") { _ = try TFLiteModel(data: data) }
    }
}
