import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Hand-derived cases: six anchors of size 1 at x = 0.5 (three), 10.5 (two) and 100.5 (one);
/// encodings shift some boxes by ±0.1 in x, so boxes 1-3 and 4-5 overlap (IoU ≈ 0.82 > 0.5).
final class DetectionPostProcessTests: XCTestCase {
    let encodings: [Float] = [0, 0, 0, 0,  0, 1, 0, 0,  0, -1, 0, 0,  0, 0, 0, 0,  0, 1, 0, 0,  0, 0, 0, 0]
    let anchors: [Float] = [0.5, 0.5, 1, 1,  0.5, 0.5, 1, 1,  0.5, 0.5, 1, 1,  0.5, 10.5, 1, 1,  0.5, 10.5, 1, 1,  0.5, 100.5, 1, 1]
    // Background column then two classes.
    let scores: [Float] = [0, 0.9, 0.8,  0, 0.75, 0.72,  0, 0.6, 0.5,  0, 0.93, 0.95,  0, 0.5, 0.4,  0, 0.3, 0.2]

    func op(regular: Bool, scoreThreshold: Float) -> DetectionPostProcess {
        DetectionPostProcess(options: DetectionPostProcessOptions(
            maxDetections: 3, maxClassesPerDetection: 1, detectionsPerClass: 100, useRegularNMS: regular,
            nmsScoreThreshold: scoreThreshold, nmsIOUThreshold: 0.5, numClasses: 2,
            yScale: 10, xScale: 10, hScale: 5, wScale: 5))
    }

    func decoded(_ p: DetectionPostProcess) -> [DetectionPostProcess.Box] {
        p.decode(encodings: { i in (self.encodings[i * 4], self.encodings[i * 4 + 1], self.encodings[i * 4 + 2], self.encodings[i * 4 + 3]) },
                 anchors: { i in (self.anchors[i * 4], self.anchors[i * 4 + 1], self.anchors[i * 4 + 2], self.anchors[i * 4 + 3]) },
                 count: 6)
    }

    func testDecodeCenterSize() {
        let boxes = decoded(op(regular: false, scoreThreshold: 0))
        XCTAssertEqual(boxes[0], .init(ymin: 0, xmin: 0, ymax: 1, xmax: 1))
        XCTAssertEqual(boxes[1].xmin, 0.1, accuracy: 1e-6)   // x shifted by 1 / x_scale * anchor width
        XCTAssertEqual(boxes[2].xmax, 0.9, accuracy: 1e-6)
        XCTAssertEqual(boxes[5], .init(ymin: 0, xmin: 100, ymax: 1, xmax: 101))
    }

    func testFastNMSKeepsBestClassPerAnchor() {
        let p = op(regular: false, scoreThreshold: 0)
        let r = p.run(boxes: decoded(p), scores: scores, classesWithBackground: 3)
        XCTAssertEqual(r.count, 3)
        XCTAssertEqual(r.classes, [1, 0, 0])
        XCTAssertEqual(r.scores, [0.95, 0.9, 0.3])
        XCTAssertEqual(r.boxes, [0, 10, 1, 11,  0, 0, 1, 1,  0, 100, 1, 101])
    }

    func testFastNMSScoreThresholdLeavesZeroSlots() {
        let p = op(regular: false, scoreThreshold: 0.4)
        let r = p.run(boxes: decoded(p), scores: scores, classesWithBackground: 3)
        XCTAssertEqual(r.count, 2)
        XCTAssertEqual(r.scores, [0.95, 0.9, 0])
        XCTAssertEqual(Array(r.boxes[8...]), [0, 0, 0, 0])
    }

    func testRegularNMSMergesClassesByScore() {
        let p = op(regular: true, scoreThreshold: 0)
        let r = p.run(boxes: decoded(p), scores: scores, classesWithBackground: 3)
        XCTAssertEqual(r.count, 3)
        XCTAssertEqual(r.classes, [1, 0, 0])
        XCTAssertEqual(r.scores, [0.95, 0.93, 0.9])
        XCTAssertEqual(r.boxes, [0, 10, 1, 11,  0, 10, 1, 11,  0, 0, 1, 1])
    }

    func testTiesKeepLowerIndexFirst() {
        // Three disjoint boxes with equal scores: the stable sort keeps anchor order; in regular
        // NMS the earlier class wins a tie in the merge.
        var p = op(regular: false, scoreThreshold: 0)
        let boxes = [DetectionPostProcess.Box(ymin: 0, xmin: 0, ymax: 1, xmax: 1),
                     .init(ymin: 0, xmin: 5, ymax: 1, xmax: 6), .init(ymin: 0, xmin: 9, ymax: 1, xmax: 10)]
        let tied: [Float] = [0, 0.5, 0.5,  0, 0.5, 0.5,  0, 0.5, 0.5]
        let fast = p.run(boxes: boxes, scores: tied, classesWithBackground: 3)
        XCTAssertEqual(fast.boxes, [0, 0, 1, 1,  0, 5, 1, 6,  0, 9, 1, 10])
        XCTAssertEqual(fast.classes, [0, 0, 0])  // first maximum wins the class
        p.options.useRegularNMS = true
        let regular = p.run(boxes: boxes, scores: tied, classesWithBackground: 3)
        XCTAssertEqual(regular.classes, [0, 0, 0])
        XCTAssertEqual(regular.boxes, [0, 0, 1, 1,  0, 5, 1, 6,  0, 9, 1, 10])
    }
}
