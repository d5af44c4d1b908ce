import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class PostProcessingTests: XCTestCase {
    // MARK: letterbox removal and projection

    func testCenteredPaddingAndRemoval() throws {
        // 1200×600 into 128×128: full width, 64 of 128 rows used → 0.25 top and bottom.
        let pad = try XCTUnwrap(LetterboxPadding.centered(imageWidth: 1200, imageHeight: 600, inputWidth: 128, inputHeight: 128))
        XCTAssertEqual(pad, LetterboxPadding(left: 0, top: 0.25, right: 0, bottom: 0.25))
        let tall = try XCTUnwrap(LetterboxPadding.centered(imageWidth: 300, imageHeight: 600, inputWidth: 192, inputHeight: 192))
        XCTAssertEqual(tall, LetterboxPadding(left: 0.25, top: 0, right: 0.25, bottom: 0))
        XCTAssertNil(LetterboxPadding.centered(imageWidth: 0, imageHeight: 1, inputWidth: 1, inputHeight: 1))

        let d = Detection(box: BoundingBox(xmin: 0.5, ymin: 0.25, width: 0.25, height: 0.5), score: 1, classIndex: 0,
                          keypoints: [Keypoint(x: 0.5, y: 0.75)])
        let out = try LetterboxRemoval.apply([d], padding: pad)
        XCTAssertEqual(out[0].box, BoundingBox(xmin: 0.5, ymin: 0, width: 0.25, height: 1))
        XCTAssertEqual(out[0].keypoints, [Keypoint(x: 0.5, y: 1)])
        XCTAssertThrowsError(try LetterboxRemoval.apply([d], padding: LetterboxPadding(left: 0.5, top: 0, right: 0.5, bottom: 0)))
        XCTAssertEqual(try LetterboxRemoval.apply([d], padding: .none), [d])
    }

    func testProjectionAndPixelTruncation() throws {
        // MediaPipe: identity projection, then origin and size truncated separately and clamped.
        let d = Detection(box: BoundingBox(xmin: 0.04269294, ymin: 0.66346115, xmax: 0.3698094, ymax: 0.99057764), score: 1, classIndex: 16)
        let projected = DetectionProjection.identity.apply([d])[0]
        let px = PixelRect(truncating: projected.box, imageWidth: 1200, imageHeight: 600)
        XCTAssertEqual(px, PixelRect(x: 51, y: 398, width: 392, height: 196))
        // Negative origins clamp to 0, oversize to the image size, NaN to 0.
        let outside = PixelRect(truncating: BoundingBox(xmin: -0.1, ymin: 0.5, width: 2, height: .nan), imageWidth: 100, imageHeight: 50)
        XCTAssertEqual(outside, PixelRect(x: 0, y: 25, width: 100, height: 0))
        // Truncation is toward zero: 0.999 · 10 → 9.
        XCTAssertEqual(PixelRect(truncating: BoundingBox(xmin: 0.0999, ymin: 0, width: 0.999, height: 1), imageWidth: 10, imageHeight: 1),
                       PixelRect(x: 0, y: 0, width: 9, height: 1))
        // A scale + translate projection maps corners and keypoints.
        let m = try DetectionProjection(matrix: [2, 0, 0, 0.1, 0, 0.5, 0, 0.2, 0, 0, 1, 0, 0, 0, 0, 1])
        let p = m.apply([Detection(box: BoundingBox(xmin: 0.1, ymin: 0.2, width: 0.2, height: 0.4), score: 1, classIndex: 0,
                                   keypoints: [Keypoint(x: 0.5, y: 0.5)])])[0]
        XCTAssertEqual(p.box.xmin, 0.3, accuracy: 1e-6)
        XCTAssertEqual(p.box.width, 0.4, accuracy: 1e-6)
        XCTAssertEqual(p.box.ymin, 0.3, accuracy: 1e-6)
        XCTAssertEqual(p.box.height, 0.2, accuracy: 1e-6)
        XCTAssertEqual(p.keypoints[0].x, 1.1, accuracy: 1e-6)
        XCTAssertThrowsError(try DetectionProjection(matrix: [1, 2, 3]))
    }

    // MARK: score calibration

    func testScoreCalibrationFormulas() throws {
        let file = "1.0,1.0,0.0\n\n0.8,2.0,-1.0,0.3\n"
        let identity = try ScoreCalibration(transformation: .identity, defaultScore: 0.05, fileContents: file)
        XCTAssertEqual(identity.sigmoids.count, 4)   // trailing newline → empty last entry
        XCTAssertEqual(try identity.calibrate(score: 0, classIndex: 0), 0.5)
        XCTAssertEqual(try identity.calibrate(score: 0.9, classIndex: 1), 0.05)        // no parameters
        XCTAssertEqual(try identity.calibrate(score: 0.2, classIndex: 2), 0.05)        // below min_score
        // 0.8 / (1 + exp(−(2·0.5 − 1))) = 0.4
        XCTAssertEqual(try identity.calibrate(score: 0.5, classIndex: 2), 0.4, accuracy: 1e-7)
        // Negative argument branch: 1 / (1 + exp(2)) with x = −2.
        XCTAssertEqual(try identity.calibrate(score: -2, classIndex: 0), Float(1 / (1 + exp(2.0))), accuracy: 1e-7)

        let log = try ScoreCalibration(transformation: .log, defaultScore: 0, fileContents: "1,1,0")
        // log(0.25) → sigmoid(log 0.25) = 0.25 / 1.25 = 0.2
        XCTAssertEqual(try log.calibrate(score: 0.25, classIndex: 0), 0.2, accuracy: 1e-6)
        let logistic = try ScoreCalibration(transformation: .inverseLogistic, defaultScore: 0, fileContents: "1,1,0")
        // Inverse logistic then the logistic: the identity.
        XCTAssertEqual(try logistic.calibrate(score: 0.7, classIndex: 0), 0.7, accuracy: 1e-6)
        // Below 1e-16 the clamped log stays finite and ordered.
        let tiny = try log.calibrate(score: 0, classIndex: 0)
        XCTAssertTrue(tiny.isFinite && tiny >= 0 && tiny < 1e-10)

        XCTAssertThrowsError(try identity.calibrate(score: 0.5, classIndex: 4))
        XCTAssertThrowsError(try identity.calibrate(score: 0.5, classIndex: -1))
        XCTAssertThrowsError(try ScoreCalibration(transformation: .log, defaultScore: 0, fileContents: ""))
        XCTAssertThrowsError(try ScoreCalibration(transformation: .log, defaultScore: 0, fileContents: "1,2"))
        XCTAssertThrowsError(try ScoreCalibration(transformation: .log, defaultScore: 0, fileContents: "1,x,3"))
        XCTAssertThrowsError(try ScoreCalibration(transformation: .log, defaultScore: 0, fileContents: "-1,1,0")) { error in
            XCTAssertEqual((error as? DetectionError)?.description.contains("line 1"), true)
        }
    }

    // MARK: SSD post-process filters

    let labels = LabelMap(names: ["person", "cat", "dog", "cat", "???"])

    /// Five model detections in score order: cat(1), dog(2), person(0), cat(3, the duplicate label), ???(4).
    func sample() -> (locations: [Float], classes: [Float], scores: [Float], count: [Float]) {
        let boxes: [[Float]] = [[0.1, 0.2, 0.5, 0.6], [0.0, 0.0, 1.0, 1.0], [0.2, 0.2, 0.4, 0.4], [0.3, 0.1, 0.6, 0.2], [0.5, 0.5, 0.6, 0.6]]
        return (boxes.flatMap { $0 }, [1, 2, 0, 3, 4], [0.9, 0.6, 0.45, 0.4, 0.2], [5])
    }

    func testSsdDecodeReadsTFLiteCornerOrderAndLabels() throws {
        let s = sample()
        let decoder = try SsdPostProcessDecoder(labels: labels)
        let out = try decoder.decode(locations: s.locations, classes: s.classes, scores: s.scores, count: s.count)
        XCTAssertEqual(out.count, 5)
        // [ymin, xmin, ymax, xmax] → x 0.2…0.6, y 0.1…0.5
        XCTAssertEqual(out[0].box.xmin, 0.2)
        XCTAssertEqual(out[0].box.ymin, 0.1)
        XCTAssertEqual(out[0].box.width, 0.6 - 0.2)
        XCTAssertEqual(out.map(\.label), ["cat", "dog", "person", "cat", "???"])
        XCTAssertEqual(out.map(\.classIndex), [1, 2, 0, 3, 4])
        // count limits the valid rows.
        XCTAssertEqual(try decoder.decode(locations: s.locations, classes: s.classes, scores: s.scores, count: [2]).count, 2)
        XCTAssertEqual(try decoder.decode(locations: s.locations, classes: s.classes, scores: s.scores, count: [99]).count, 5)
        // A metadata index [0, 1, 2, 3] reads [xmin, ymin, xmax, ymax].
        let xyxy = try SsdPostProcessDecoder(labels: labels, cornerIndices: XCTUnwrap(BoxCornerIndices(metadataIndex: [0, 1, 2, 3])))
        XCTAssertEqual(try xyxy.decode(locations: s.locations, classes: s.classes, scores: s.scores, count: s.count)[0].box.xmin, 0.1)
        XCTAssertNil(BoxCornerIndices(metadataIndex: [0, 0, 1, 2]))
    }

    func testSsdFilterOrderThresholdAllowDenyMaxResults() throws {
        let s = sample()
        let decoded = try SsdPostProcessDecoder(labels: labels).decode(locations: s.locations, classes: s.classes, scores: s.scores, count: s.count)
        func run(scoreThreshold: Float? = nil, maxResults: Int? = nil, categoryAllowlist: [String] = [], categoryDenylist: [String] = []) throws -> [String?] {
            try DetectionFilter(scoreThreshold: scoreThreshold, maxResults: maxResults, categoryAllowlist: categoryAllowlist,
                                categoryDenylist: categoryDenylist, labels: labels).apply(decoded).map(\.label)
        }
        XCTAssertEqual(try run(scoreThreshold: 0.45), ["cat", "dog", "person"])   // inclusive
        XCTAssertEqual(try run(maxResults: 2), ["cat", "dog"])
        XCTAssertEqual(try run(maxResults: -1), ["cat", "dog", "person", "cat", "???"], "-1: no limit")
        // max results counts kept detections only: filters first, then the cut.
        XCTAssertEqual(try run(maxResults: 2, categoryDenylist: ["dog"]), ["cat", "person"])
        // "cat" maps to the FIRST index with that label (1): index 3, also "cat", is not allowed.
        XCTAssertEqual(try DetectionFilter(categoryAllowlist: ["cat"], labels: labels).apply(decoded).map(\.classIndex), [1])
        XCTAssertEqual(try run(categoryDenylist: ["cat"]), ["dog", "person", "cat", "???"])
        XCTAssertEqual(try run(categoryAllowlist: ["unknown"]), [])
        XCTAssertEqual(try run(scoreThreshold: 0.3, maxResults: 5, categoryAllowlist: ["cat", "dog"]), ["cat", "dog"])
    }

    func testSsdOptionErrors() throws {
        XCTAssertThrowsError(try DetectionFilter(maxResults: 0))
        XCTAssertThrowsError(try DetectionFilter(scoreThreshold: .nan))
        XCTAssertThrowsError(try DetectionFilter(categoryAllowlist: ["cat"], labels: LabelMap(names: []))) { error in
            XCTAssertEqual(error as? DetectionError, .categoryFilterWithoutLabels)
        }
        let d = try SsdPostProcessDecoder(labels: labels)
        XCTAssertThrowsError(try d.decode(locations: [0, 0, 1], classes: [0], scores: [0.5], count: [1]))
        XCTAssertThrowsError(try d.decode(locations: [0, 0, 1, 1], classes: [0, 1], scores: [0.5], count: [1]))
        XCTAssertThrowsError(try d.decode(locations: [0, 0, 1, 1], classes: [0], scores: [0.5], count: [.nan]))
        // Bad class values and inverted boxes are skipped, never a trap.
        let out = try d.decode(locations: [0, 0, 1, 1, 0.5, 0.5, 0.4, 0.6, 0, 0, 1, 1], classes: [.infinity, 1, -3], scores: [0.9, 0.8, 0.7], count: [3])
        XCTAssertEqual(out.count, 1)
        XCTAssertEqual(out[0].classIndex, -3)
        XCTAssertNil(out[0].label)
    }

    func testAllowAndDenyTogetherIsMediaPipesError() throws {
        XCTAssertThrowsError(try DetectionFilter(scoreThreshold: 0.3, categoryAllowlist: ["cat"], categoryDenylist: ["dog"], labels: labels)) { error in
            XCTAssertEqual(error as? DetectionError, .allowlistAndDenylist)
            XCTAssertEqual("\(error)", "`categoryAllowlist` and `categoryDenylist` are mutually exclusive options.")
        }
        // Same message as the golden recorded from MediaPipe.
        let golden = try GoldenTensors.detectionGolden("ssd_mobilenet_v1__allow_and_deny_error")
        let expected = try XCTUnwrap((golden["expected_error"] as? [String: Any])?["message"] as? String)
        XCTAssertEqual(DetectionError.allowlistAndDenylist.description, expected.replacingOccurrences(of: "category_allowlist", with: "categoryAllowlist")
            .replacingOccurrences(of: "category_denylist", with: "categoryDenylist"))
    }

    func testCalibrationIsAppliedBeforeTheThreshold() throws {
        let s = sample()
        // Class-wise: score' = sigmoid(score) for classes 0 and 1, default 0.01 for the others.
        let cal = try ScoreCalibration(transformation: .identity, defaultScore: 0.01, fileContents: "1,1,0\n1,1,0\n\n\n")
        let d = try SsdPostProcessDecoder(labels: labels, calibration: cal)
        let out = try DetectionFilter(scoreThreshold: 0.5).apply(d.decode(locations: s.locations, classes: s.classes, scores: s.scores, count: s.count))
        // cat 0.9 → 0.711, dog → 0.01 (no params), person 0.45 → 0.61, cat(3) → 0.01, ??? → 0.01
        XCTAssertEqual(out.map(\.classIndex), [1, 0])
        XCTAssertEqual(out[0].score, Float(1 / (1 + exp(-0.9))), accuracy: 1e-6)
        XCTAssertEqual(out[1].score, Float(1 / (1 + exp(-0.45))), accuracy: 1e-6)
    }

    func testLabelMapParsing() {
        let m = LabelMap(fileContents: "a\r\nb\n\nc\n", displayNamesContents: "A\nB\n")
        XCTAssertEqual(m.names, ["a", "b", "", "c"])
        XCTAssertEqual(m.displayName(at: 1), "B")
        XCTAssertNil(m.displayName(at: 3))
        XCTAssertNil(m.name(at: -1))
        XCTAssertEqual(m.firstIndex(of: "c"), 3)
    }
}

final class ScoreCalibrationLineEndingTests: XCTestCase {
    func testWindowsLineEndings() throws {
        let cal = try ScoreCalibration(transformation: .identity, defaultScore: 0.1, fileContents: "1,1,0\r\n\r\n1,1,0")
        XCTAssertEqual(cal.sigmoids.count, 3)
        XCTAssertNil(cal.sigmoids[1])
        XCTAssertEqual(try cal.calibrate(score: 0, classIndex: 2), 0.5)
    }
}
