import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class RawAnchorDecoderTests: XCTestCase {
    /// One anchor at (0.5, 0.25), size 1×1 (fixed), scales 100.
    func makeDecoder(reverse: Bool = true, keypoints: Int = 1, sigmoid: Bool = true, clip: Float? = 2,
                     minScore: Float? = nil, flip: Bool = false, exponential: Bool = false,
                     anchor: Anchor = Anchor(xCenter: 0.5, yCenter: 0.25, width: 1, height: 1)) throws -> RawAnchorDecoder {
        let o = RawAnchorDecoderOptions(numClasses: 2, numBoxes: 1, numCoords: 4 + 2 * keypoints, keypointCoordOffset: 4,
                                        numKeypoints: keypoints, sigmoidScore: sigmoid, scoreClippingThresh: clip,
                                        reverseOutputOrder: reverse, xScale: 100, yScale: 100, wScale: 100, hScale: 100,
                                        applyExponentialOnBoxSize: exponential, minScoreThresh: minScore, flipVertically: flip)
        return try RawAnchorDecoder(options: o, anchors: [anchor])
    }

    func testDecodesCentreSizeAndKeypointsInXYWHOrder() throws {
        let d = try makeDecoder()
        // x 10, y -5, w 20, h 40, keypoint (x 30, y 50); scores: class 0 = 0, class 1 = 1.
        let out = try d.decode(boxes: [10, -5, 20, 40, 30, 50], boxesShape: [1, 1, 6], scores: [0, 1], scoresShape: [1, 1, 2])
        XCTAssertEqual(out.count, 1)
        let det = try XCTUnwrap(out.first)
        // centre (0.5 + 0.1, 0.25 − 0.05), size (0.2, 0.4)
        XCTAssertEqual(det.box.xmin, 0.5, accuracy: 1e-6)
        XCTAssertEqual(det.box.ymin, 0.0, accuracy: 1e-6)
        XCTAssertEqual(det.box.width, 0.2, accuracy: 1e-6)
        XCTAssertEqual(det.box.height, 0.4, accuracy: 1e-6)
        XCTAssertEqual(det.keypoints.count, 1)
        XCTAssertEqual(det.keypoints[0].x, 0.8, accuracy: 1e-6)
        XCTAssertEqual(det.keypoints[0].y, 0.75, accuracy: 1e-6)
        XCTAssertEqual(det.classIndex, 1)
        XCTAssertEqual(det.score, Float(1 / (1 + exp(-1.0))), accuracy: 1e-7)
    }

    func testYXHWOrderSwapsAxes() throws {
        let d = try makeDecoder(reverse: false)
        let out = try d.decode(boxes: [10, -5, 20, 40, 30, 50], boxesShape: [1, 1, 6], scores: [0, 1], scoresShape: [1, 1, 2])
        let det = try XCTUnwrap(out.first)
        // y centre 0.25 + 0.1, x centre 0.5 − 0.05, h 0.2, w 0.4; keypoint y 0.25 + 0.3, x 0.5 + 0.5
        XCTAssertEqual(det.box.xmin, 0.45 - 0.2, accuracy: 1e-6)
        XCTAssertEqual(det.box.ymin, 0.35 - 0.1, accuracy: 1e-6)
        XCTAssertEqual(det.box.width, 0.4, accuracy: 1e-6)
        XCTAssertEqual(det.keypoints[0].x, 1.0, accuracy: 1e-6)
        XCTAssertEqual(det.keypoints[0].y, 0.55, accuracy: 1e-6)
    }

    func testScoreClippingAndThreshold() throws {
        let d = try makeDecoder(clip: 2, minScore: 0.85)
        // Raw 50 is clipped to 2 → sigmoid 0.8808; passes 0.85.
        let hit = try d.decode(boxes: [0, 0, 10, 10, 0, 0], boxesShape: [1, 1, 6], scores: [50, -50], scoresShape: [1, 1, 2])
        XCTAssertEqual(try XCTUnwrap(hit.first).score, Float(1 / (1 + exp(-2.0))), accuracy: 1e-7)
        // Raw 1.5 → 0.8176 < 0.85: dropped.
        let miss = try d.decode(boxes: [0, 0, 10, 10, 0, 0], boxesShape: [1, 1, 6], scores: [1.5, -50], scoresShape: [1, 1, 2])
        XCTAssertTrue(miss.isEmpty)
        // The threshold is inclusive (score < threshold is dropped).
        let exact = try makeDecoder(sigmoid: false, clip: nil, minScore: 0.5)
        XCTAssertEqual(try exact.decode(boxes: [0, 0, 10, 10, 0, 0], boxesShape: [1, 1, 6], scores: [0.5, 0.1], scoresShape: [1, 1, 2]).count, 1)
    }

    func testFirstMaximumWinsAndClassFilters() throws {
        let d = try makeDecoder(sigmoid: false, clip: nil)
        let out = try d.decode(boxes: [0, 0, 10, 10, 0, 0], boxesShape: [1, 1, 6], scores: [0.7, 0.7], scoresShape: [1, 1, 2])
        XCTAssertEqual(out.first?.classIndex, 0)
        var o = d.options
        o.ignoreClasses = [0]
        let ignoring = try RawAnchorDecoder(options: o, anchors: d.anchors)
        XCTAssertEqual(try ignoring.decode(boxes: [0, 0, 10, 10, 0, 0], boxesShape: [1, 1, 6], scores: [0.9, 0.2], scoresShape: [1, 1, 2]).first?.classIndex, 1)
    }

    func testFlipExponentialAndNegativeSizes() throws {
        let flip = try makeDecoder(flip: true)
        let f = try XCTUnwrap(flip.decode(boxes: [0, 10, 20, 20, 0, 20], boxesShape: [1, 1, 6], scores: [3, 0], scoresShape: [1, 1, 2]).first)
        // y centre 0.35, h 0.2 → ymax 0.45 → flipped ymin 0.55; keypoint y 0.45 → 0.55.
        XCTAssertEqual(f.box.ymin, 0.55, accuracy: 1e-6)
        XCTAssertEqual(f.keypoints[0].y, 0.55, accuracy: 1e-6)

        let exponential = try makeDecoder(exponential: true, anchor: Anchor(xCenter: 0.5, yCenter: 0.5, width: 0.1, height: 0.2))
        let e = try XCTUnwrap(exponential.decode(boxes: [0, 0, 100, 0, 0, 0], boxesShape: [1, 1, 6], scores: [3, 0], scoresShape: [1, 1, 2]).first)
        XCTAssertEqual(e.box.width, Float(0.1 * exp(1.0)), accuracy: 1e-6)
        XCTAssertEqual(e.box.height, 0.2, accuracy: 1e-6)

        // A negative size (the model's prediction) is dropped, as MediaPipe does.
        let d = try makeDecoder()
        XCTAssertTrue(try d.decode(boxes: [0, 0, -10, 10, 0, 0], boxesShape: [1, 1, 6], scores: [3, 0], scoresShape: [1, 1, 2]).isEmpty)
        XCTAssertTrue(try d.decode(boxes: [0, 0, .nan, 10, 0, 0], boxesShape: [1, 1, 6], scores: [3, 0], scoresShape: [1, 1, 2]).isEmpty)
    }

    func testShapeAndOptionErrors() throws {
        let d = try makeDecoder()
        XCTAssertThrowsError(try d.decode(boxes: [0, 0, 0, 0, 0], boxesShape: [1, 1, 5], scores: [0, 0], scoresShape: [1, 1, 2]))
        XCTAssertThrowsError(try d.decode(boxes: [0, 0, 0, 0, 0, 0], boxesShape: [1, 1, 6], scores: [0], scoresShape: [1, 1, 2]))
        XCTAssertNoThrow(try d.decode(boxes: [0, 0, 0, 0, 0, 0], boxesShape: [1, 1, 1, 6], scores: [0, 0], scoresShape: [1, 1, 1, 2]))
        XCTAssertThrowsError(try d.decode(boxes: [0, 0, 0, 0, 0, 0], boxesShape: [2, 1, 6], scores: [0, 0], scoresShape: [1, 1, 2]))

        var o = d.options
        o.numCoords = 7
        XCTAssertThrowsError(try RawAnchorDecoder(options: o, anchors: d.anchors))
        o = d.options
        o.xScale = 0
        XCTAssertThrowsError(try RawAnchorDecoder(options: o, anchors: d.anchors))
        o = d.options
        o.keypointCoordOffset = 5
        XCTAssertThrowsError(try RawAnchorDecoder(options: o, anchors: d.anchors))
        XCTAssertThrowsError(try RawAnchorDecoder(options: d.options, anchors: d.anchors + d.anchors))
    }

    func testMaxResultsStopsEarly() throws {
        var o = try makeDecoder(sigmoid: false, clip: nil).options
        o.numBoxes = 3
        o.maxResults = 2
        let anchors = [Anchor](repeating: Anchor(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1), count: 3)
        let d = try RawAnchorDecoder(options: o, anchors: anchors)
        let out = try d.decode(boxes: [Float](repeating: 1, count: 18), boxesShape: [1, 3, 6],
                               scores: [0.1, 0, 0.2, 0, 0.9, 0], scoresShape: [1, 3, 2])
        XCTAssertEqual(out.map(\.score), [0.1, 0.2])   // box order, not score order
    }
}

final class DetectionRobustnessTests: XCTestCase {
    func testHostileOptionsAndValuesThrowOrDegradeGracefully() throws {
        var o = DetectorDecoderConfig.faceShortRange.decoding!
        o.numKeypoints = Int.max / 2
        XCTAssertThrowsError(try o.validate())
        o = DetectorDecoderConfig.faceShortRange.decoding!
        o.numBoxes = Int.max
        XCTAssertThrowsError(try o.validate())
        var a = DetectorDecoderConfig.faceShortRange.anchors!
        a.numLayers = 1; a.strides = [8]; a.featureMapWidth = [0]; a.featureMapHeight = [Int.max]
        XCTAssertThrowsError(try SsdAnchorGenerator.generate(a))
        // Huge count values and NaN scores.
        let ssd = try SsdPostProcessDecoder(labels: LabelMap(names: ["a"]))
        XCTAssertEqual(try ssd.decode(locations: [0, 0, 1, 1], classes: [0], scores: [0.5], count: [1e30]).count, 1)
        XCTAssertEqual(try ssd.decode(locations: [0, 0, 1, 1], classes: [0], scores: [0.5], count: [-1e30]).count, 0)
        let nan = Detection(box: BoundingBox(xmin: 0, ymin: 0, width: 1, height: 1), score: .nan, classIndex: 0)
        let ok = Detection(box: BoundingBox(xmin: 0, ymin: 0, width: 1, height: 1), score: 0.5, classIndex: 0)
        XCTAssertEqual(NonMaxSuppression.hard([nan, ok, nan], iouThreshold: 0.5).first?.score, 0.5)
        XCTAssertEqual(NonMaxSuppression.weighted([nan, ok], iouThreshold: 0.5).first?.score, 0.5)
        XCTAssertThrowsError(try DetectorDecoderConfig.faceShortRange.check(inputShape: [1, 128, 128, 3],
                                                                            outputShapes: [[Int.max, 2, 16], [1, 896, 1]]))
    }
}
