import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Timings of the resamplers on real photos, printed as one JSON line per case. Measured, never
/// asserted: skipped unless `OBJDETECT_BENCH=1`. Compare with `Tests/Benchmarks/resize_vs_pillow.py`.
///
///     OBJDETECT_BENCH=1 swift test -c release -Xswiftc -enable-testing --scratch-path .build/tests --filter ResizeBenchmarkTests
final class ResizeBenchmarkTests: XCTestCase {
    func testResizeTimings() throws {
        guard ProcessInfo.processInfo.environment["OBJDETECT_BENCH"] == "1" else {
            throw XCTSkip("benchmark: set OBJDETECT_BENCH=1 (release build) to run")
        }
        let root = try SharedData.require()
        let runs = 15
        func median(_ body: () throws -> Void) rethrows -> Double {
            var times = [Double]()
            for _ in 0..<runs {
                let t0 = DispatchTime.now().uptimeNanoseconds
                try body()
                times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            }
            return times.sorted()[runs / 2]
        }
        for name in ["zidane", "bus", "cats_and_dogs", "chelsea"] {
            let rgb = try ImageDecoder.decode(contentsOf: root.appendingPathComponent("images/png/\(name).png").path).image.converted(to: .rgb8)
            let cases: [(String, () throws -> Void)] = [
                ("pillow_640", { _ = try rgb.resized(width: 640, height: 640, method: .pillowBilinear) }),
                ("pillow_224", { _ = try rgb.resized(width: 224, height: 224, method: .pillowBilinear) }),
                ("mediapipe_300", { _ = try rgb.resized(width: 300, height: 300, method: .mediaPipe) }),
                ("bilinear_640", { _ = try rgb.resized(width: 640, height: 640, method: .bilinear) }),
                ("area_224", { _ = try rgb.resized(width: 224, height: 224, method: .area) }),
                ("letterbox_mediapipe_192_float", {
                    _ = try ImageToTensor.convert(rgb, options: ImageToTensorOptions(width: 192, height: 192, resizeMode: .letterbox, letterboxFill: 0,
                                                                                     inputType: .float32(.range(min: -1, max: 1))))
                }),
                ("orientation_right", { _ = rgb.applyingOrientation(.right) }),
            ]
            for (label, body) in cases {
                let ms = try median(body)
                print(String(format: "{\"image\": \"%@\", \"case\": \"%@\", \"median_ms\": %.3f}", name, label, ms))
            }
        }
    }
}
