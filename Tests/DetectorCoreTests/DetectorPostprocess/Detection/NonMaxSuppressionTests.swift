import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class NonMaxSuppressionTests: XCTestCase {
    func det(_ x: Float, _ y: Float, _ w: Float, _ h: Float, _ score: Float, _ cls: Int = 0,
             keypoints: [Keypoint] = []) -> Detection {
        Detection(box: BoundingBox(xmin: x, ymin: y, width: w, height: h), score: score, classIndex: cls, keypoints: keypoints)
    }

    // MARK: boxes

    func testIoUAreaAndIntersection() {
        let a = BoundingBox(xmin: 0, ymin: 0, width: 0.5, height: 0.5)
        let b = BoundingBox(xmin: 0.25, ymin: 0.25, width: 0.5, height: 0.5)
        XCTAssertEqual(a.area, 0.25)
        XCTAssertEqual(a.intersectionArea(with: b), 0.0625)
        XCTAssertEqual(a.intersectionOverUnion(with: b), 0.0625 / 0.4375, accuracy: 1e-7)
        XCTAssertEqual(a.overlapSimilarity(with: b, type: .intersectionOverUnion), 0.0625 / 0.4375, accuracy: 1e-7)
        // JACCARD normalizes by the bounding rectangle (0.75²), MODIFIED_JACCARD by the second box.
        XCTAssertEqual(a.overlapSimilarity(with: b, type: .jaccard), 0.0625 / 0.5625, accuracy: 1e-7)
        let small = BoundingBox(xmin: 0.25, ymin: 0.25, width: 0.25, height: 0.25)
        XCTAssertEqual(a.overlapSimilarity(with: small, type: .modifiedJaccard), 1, accuracy: 1e-7)
        XCTAssertEqual(small.overlapSimilarity(with: a, type: .modifiedJaccard), 0.25, accuracy: 1e-7)
        XCTAssertEqual(a.intersection(with: b), BoundingBox(xmin: 0.25, ymin: 0.25, width: 0.25, height: 0.25))
        XCTAssertNil(a.intersection(with: BoundingBox(xmin: 0.5, ymin: 0, width: 1, height: 1)))  // touching
    }

    func testZeroAreaAndInvertedBoxesAreSafe() {
        let point = BoundingBox(xmin: 0.3, ymin: 0.3, width: 0, height: 0)
        let inverted = BoundingBox(xmin: 0.5, ymin: 0.5, width: -0.2, height: 0.3)
        let nan = BoundingBox(xmin: .nan, ymin: 0, width: 1, height: 1)
        let a = BoundingBox(xmin: 0, ymin: 0, width: 1, height: 1)
        XCTAssertEqual(point.area, 0)
        XCTAssertEqual(inverted.area, 0)
        XCTAssertEqual(point.intersectionOverUnion(with: point), 0)
        XCTAssertEqual(point.intersectionOverUnion(with: a), 0)
        XCTAssertEqual(inverted.intersectionOverUnion(with: a), 0)
        XCTAssertEqual(nan.intersectionOverUnion(with: a), 0)
        for type in OverlapType.allCases {
            XCTAssertEqual(point.overlapSimilarity(with: point, type: type), 0)
            XCTAssertEqual(inverted.overlapSimilarity(with: a, type: type), 0)
            XCTAssertEqual(a.overlapSimilarity(with: nan, type: type), 0)
        }
    }

    // MARK: hard NMS

    func testIdenticalBoxesKeepTheFirstOfEqualScores() {
        let input = [det(0, 0, 0.5, 0.5, 0.8, 1), det(0, 0, 0.5, 0.5, 0.8, 2), det(0, 0, 0.5, 0.5, 0.9, 3)]
        let kept = NonMaxSuppression.hard(input, iouThreshold: 0.5)
        XCTAssertEqual(kept.map(\.classIndex), [3])
        // Ties: equal scores keep input order (stable), in hard and in score ordering.
        let ties = [det(0, 0, 0.1, 0.1, 0.5, 7), det(0.5, 0.5, 0.1, 0.1, 0.5, 8), det(0.2, 0.2, 0.1, 0.1, 0.5, 9)]
        XCTAssertEqual(NonMaxSuppression.hard(ties, iouThreshold: 0.5).map(\.classIndex), [7, 8, 9])
        let tiedOverlap = [det(0, 0, 0.5, 0.5, 0.5, 1), det(0, 0, 0.5, 0.5, 0.5, 2)]
        XCTAssertEqual(NonMaxSuppression.hard(tiedOverlap, iouThreshold: 0.5).map(\.classIndex), [1])
    }

    func testSuppressionIsStrictlyGreaterThanThreshold() {
        // IoU exactly 0.5: two 1×0.5 halves overlapping by... a = [0,1]×[0,1], b = [0,1]×[0,0.5] → IoU 0.5.
        let input = [det(0, 0, 1, 1, 0.9), det(0, 0, 1, 0.5, 0.8)]
        XCTAssertEqual(NonMaxSuppression.hard(input, iouThreshold: 0.5).count, 2)
        XCTAssertEqual(NonMaxSuppression.hard(input, iouThreshold: 0.49).count, 1)
    }

    func testZeroAreaBoxesNeverSuppress() {
        let input = [det(0.2, 0.2, 0, 0, 0.9), det(0.2, 0.2, 0, 0, 0.8), det(0.1, 0.1, 0.3, 0.3, 0.7)]
        XCTAssertEqual(NonMaxSuppression.hard(input, iouThreshold: 0.1).count, 3)
    }

    func testClassAwareVersusAgnostic() {
        let input = [det(0, 0, 0.5, 0.5, 0.9, 0), det(0.01, 0, 0.5, 0.5, 0.8, 1), det(0.02, 0, 0.5, 0.5, 0.7, 0)]
        XCTAssertEqual(NonMaxSuppression.hard(input, iouThreshold: 0.5).map(\.score), [0.9])
        XCTAssertEqual(NonMaxSuppression.hard(input, iouThreshold: 0.5, classAware: true).map(\.score), [0.9, 0.8])
        // Per-class results are merged by descending score and cut to maxDetections.
        let many = [det(0, 0, 0.1, 0.1, 0.3, 0), det(0.5, 0.5, 0.1, 0.1, 0.6, 1), det(0.8, 0.8, 0.1, 0.1, 0.5, 0)]
        XCTAssertEqual(NonMaxSuppression.hard(many, iouThreshold: 0.5, classAware: true).map(\.score), [0.6, 0.5, 0.3])
        XCTAssertEqual(NonMaxSuppression.hard(many, iouThreshold: 0.5, classAware: true, maxDetections: 2).map(\.score), [0.6, 0.5])
    }

    func testMaxDetectionsAndMinScoreThreshold() {
        let scores: [Float] = [0.9, 0.8, 0.7, 0.6, 0.5]
        let input = (0..<5).map { det(Float($0) * 0.2, 0, 0.1, 0.1, scores[$0]) }
        XCTAssertEqual(NonMaxSuppression.hard(input, iouThreshold: 0.5, maxDetections: 3).count, 3)
        XCTAssertEqual(NonMaxSuppression.hard(input, iouThreshold: 0.5, maxDetections: -1).count, 5)
        XCTAssertEqual(NonMaxSuppression.hard(input, iouThreshold: 0.5, maxDetections: 0).count, 0)
        XCTAssertEqual(NonMaxSuppression.hard(input, iouThreshold: 0.5, minScoreThreshold: 0.65).map(\.score), [0.9, 0.8, 0.7])
        XCTAssertEqual(NonMaxSuppression.hard([], iouThreshold: 0.5).count, 0)
    }

    // MARK: weighted NMS

    func testWeightedAveragesBoxesAndKeypointsByScore() {
        let a = det(0.0, 0.0, 0.4, 0.4, 0.75, 0, keypoints: [Keypoint(x: 0.1, y: 0.2)])
        let b = det(0.1, 0.1, 0.4, 0.4, 0.25, 0, keypoints: [Keypoint(x: 0.3, y: 0.4)])
        let far = det(0.8, 0.8, 0.1, 0.1, 0.5, 0, keypoints: [Keypoint(x: 0.85, y: 0.85)])
        // IoU(a, b) = 0.09 / 0.23 ≈ 0.39 > 0.3.
        let out = NonMaxSuppression.weighted([b, far, a], iouThreshold: 0.3)
        XCTAssertEqual(out.count, 2)
        XCTAssertEqual(out[0].score, 0.75)     // the top score is kept, not averaged
        XCTAssertEqual(out[0].box.xmin, 0.025, accuracy: 1e-6)   // (0·0.75 + 0.1·0.25) / 1
        XCTAssertEqual(out[0].box.ymin, 0.025, accuracy: 1e-6)
        XCTAssertEqual(out[0].box.width, 0.4, accuracy: 1e-6)    // xmax 0.425 − 0.025
        XCTAssertEqual(out[0].keypoints[0].x, 0.15, accuracy: 1e-6)
        XCTAssertEqual(out[0].keypoints[0].y, 0.25, accuracy: 1e-6)
        // A lone candidate is "averaged" with itself: same box up to Float rounding.
        XCTAssertEqual(out[1].score, far.score)
        XCTAssertEqual(out[1].box.xmin, far.box.xmin, accuracy: 1e-6)
        XCTAssertEqual(out[1].box.width, far.box.width, accuracy: 1e-6)
        XCTAssertEqual(out[1].keypoints[0].x, 0.85, accuracy: 1e-6)
    }

    func testWeightedWithIdenticalBoxesAndTies() {
        let a = det(0.2, 0.2, 0.2, 0.2, 0.6, 4)
        let b = det(0.2, 0.2, 0.2, 0.2, 0.6, 5)
        let out = NonMaxSuppression.weighted([a, b], iouThreshold: 0.3)
        XCTAssertEqual(out.count, 1)
        XCTAssertEqual(out[0].classIndex, 4)   // first of the tie is the top
        XCTAssertEqual(out[0].box.xmin, 0.2, accuracy: 1e-7)
        XCTAssertEqual(out[0].box.width, 0.2, accuracy: 1e-7)
    }

    func testWeightedStopsAtAZeroAreaTopBoxLikeMediaPipe() {
        // The zero-area top box overlaps nothing, not even itself: MediaPipe outputs it and stops.
        let input = [det(0.5, 0.5, 0, 0, 0.9), det(0.1, 0.1, 0.2, 0.2, 0.8)]
        let out = NonMaxSuppression.weighted(input, iouThreshold: 0.3)
        XCTAssertEqual(out.count, 1)
        XCTAssertEqual(out[0].score, 0.9)
        // A zero-area box that is not on top is never merged into another box; it comes
        // out on its own (unchanged) when it becomes the top one.
        let point = det(0.15, 0.15, 0, 0, 0.5)
        let later = NonMaxSuppression.weighted([input[1], point], iouThreshold: 0.3)
        XCTAssertEqual(later.count, 2)
        XCTAssertEqual(later[0].box.xmin, 0.1, accuracy: 1e-6)
        XCTAssertEqual(later[0].box.width, 0.2, accuracy: 1e-6)
        XCTAssertEqual(later[1], point)
    }

    func testWeightedMinScoreThresholdAndEmptyInput() {
        let input = [det(0, 0, 0.1, 0.1, 0.9), det(0.5, 0.5, 0.1, 0.1, 0.4)]
        XCTAssertEqual(NonMaxSuppression.weighted(input, iouThreshold: 0.3, minScoreThreshold: 0.5).count, 1)
        XCTAssertEqual(NonMaxSuppression.weighted([], iouThreshold: 0.3).count, 0)
    }
}
