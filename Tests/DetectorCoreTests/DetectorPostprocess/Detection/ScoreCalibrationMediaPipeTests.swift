import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Facts recorded from the official runtimes (mediapipe 1.2.3 Tasks ObjectDetector and
/// ai-edge-litert 2.3.0, default resolver) on `shared/models/
/// coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_score_calibration.tflite` with
/// `cats_and_dogs.png` pre-resized to 300×300 (Pillow bilinear), so MediaPipe's own resize
/// is the identity and both runtimes saw the same input tensor. The model's metadata
/// zips `score_calibration_dummy.csv` (lines `1.0,1.0,0.0,-99`, line 4 empty); MediaPipe's
/// scores show the transformation is INVERSE_LOGISTIC (logit, then the sigmoid: the identity
/// up to rounding — the last score moves from 0.3203125 to 0.32031247).
final class ScoreCalibrationMediaPipeTests: XCTestCase {
    let rawLocations: [Float] = [
        0.6634611487388611, 0.0400872677564621, 0.9905776381492615, 0.37241506576538086,
        0.263071209192276, 0.49694299697875977, 1.007376790046692, 0.8632599115371704,
        0.6594198942184448, 0.21824628114700317, 1.0026533603668213, 0.3647730350494385,
        0.3841683566570282, 0.06742951273918152, 1.009692668914795, 0.5543005466461182,
        0.3470572531223297, 0.3155938982963562, 1.0139857530593872, 0.5498927235603333,
        0.6718552112579346, 0.7272772192955017, 0.999193549156189, 0.8988940119743347,
        0.7019795179367065, 0.14458227157592773, 1.0044448375701904, 0.3621146082878113,
        0.6312211751937866, 0.07897043228149414, 1.0127202272415161, 0.48536747694015503,
        0.6820509433746338, 0.6342223882675171, 0.9940186738967896, 0.9179645776748657,
        0.3464263081550598, 0.22922652959823608, 1.0115327835083008, 0.7376182675361633,
    ]
    let rawClasses: [Float] = [16, 16, 16, 17, 17, 16, 16, 16, 16, 17]
    let rawScores: [Float] = [0.66796875, 0.62109375, 0.5390625, 0.48828125, 0.4765625, 0.42578125,
                              0.33203125, 0.33203125, 0.33203125, 0.3203125]

    /// MediaPipe's output: pixel box (x, y, w, h), score, category name.
    let mediaPipe: [([Int], Float, String)] = [
        ([12, 199, 99, 98], 0.66796875, "cat"), ([149, 78, 109, 223], 0.62109375, "cat"),
        ([65, 197, 43, 102], 0.5390625, "cat"), ([20, 115, 146, 187], 0.48828125, "dog"),
        ([94, 104, 70, 200], 0.4765625, "dog"), ([218, 201, 51, 98], 0.42578125, "cat"),
        ([43, 210, 65, 90], 0.33203125, "cat"), ([23, 189, 121, 114], 0.33203125, "cat"),
        ([190, 204, 85, 93], 0.33203125, "cat"), ([68, 103, 152, 199], 0.3203124701976776, "dog"),
    ]

    func testDecodeWithCalibrationReproducesMediaPipeBitForBit() throws {
        let labels = LabelMap(fileContents: try String(contentsOf: SharedData.url("models/coco_ssd_mobilenet_v1_labelmap.txt"), encoding: .utf8))
        var file = [String](repeating: "1.0,1.0,0.0,-99", count: 89)
        file[3] = ""
        let calibration = try ScoreCalibration(transformation: .inverseLogistic, defaultScore: 0,
                                               fileContents: file.joined(separator: "\n"))
        let decoder = try SsdPostProcessDecoder(labels: labels, calibration: calibration)
        let found = try decoder.decode(locations: rawLocations, classes: rawClasses, scores: rawScores, count: [10])
        let pixels = DetectionProjection.identity.apply(found).map { PixelRect(truncating: $0.box, imageWidth: 300, imageHeight: 300) }
        XCTAssertEqual(found.count, mediaPipe.count)
        for (i, (box, score, name)) in mediaPipe.enumerated() where i < found.count {
            XCTAssertEqual([pixels[i].x, pixels[i].y, pixels[i].width, pixels[i].height], box, "detection \(i)")
            XCTAssertEqual(found[i].score, score, "detection \(i): calibrated score")
            XCTAssertEqual(found[i].label, name)
        }
    }
}
