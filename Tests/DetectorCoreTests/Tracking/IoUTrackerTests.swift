import XCTest
@testable import DetectorCore

final class IoUTrackerTests: XCTestCase {
    func box(_ x: Float, _ y: Float, _ w: Float = 40, _ h: Float = 80) -> TrackBox {
        TrackBox(x: x, y: y, width: w, height: h)
    }
    func det(_ b: TrackBox, _ score: Float = 0.9, _ cls: Int? = nil) -> TrackerDetection {
        TrackerDetection(box: b, score: score, classIndex: cls)
    }

    func testIoU() {
        XCTAssertEqual(box(0, 0, 10, 10).iou(box(0, 0, 10, 10)), 1)
        XCTAssertEqual(box(0, 0, 10, 10).iou(box(5, 0, 10, 10)), 50.0 / 150.0, accuracy: 1e-6)
        XCTAssertEqual(box(0, 0, 10, 10).iou(box(20, 20, 10, 10)), 0)
        XCTAssertEqual(box(0, 0, 0, 10).iou(box(0, 0, 10, 10)), 0)
        XCTAssertFalse(TrackBox(x: .nan, y: 0, width: 1, height: 1).isUsable)
    }

    /// Two objects moving right for 10 frames: two IDs, 1 and 2, kept throughout.
    func testStableIDsForMovingObjects() throws {
        var tracker = try IoUTracker()
        var seen: [[Int]] = []
        for frame in 0..<10 {
            let step = Float(frame) * 5
            let objects = try tracker.update([det(box(10 + step, 10)), det(box(200 + step, 50))])
            XCTAssertEqual(objects.map(\.detectionIndex), [0, 1], "confirmed at once during warm-up, then every frame")
            seen.append(objects.map(\.trackID))
        }
        XCTAssertTrue(seen.allSatisfy { $0 == [1, 2] }, "\(seen)")
    }

    func testMinHitsDelaysNewTracksAfterWarmUp() throws {
        var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 3))
        for _ in 0..<3 { _ = try tracker.update([det(box(0, 0))]) }   // warm-up: object 1
        var reportsOfNewObject: [Int?] = []
        for _ in 0..<4 {
            let objects = try tracker.update([det(box(0, 0)), det(box(300, 300))])
            reportsOfNewObject.append(objects.first(where: { $0.detectionIndex == 1 })?.trackID)
        }
        XCTAssertEqual(reportsOfNewObject, [nil, nil, 2, 2], "the new object needs 3 hits before it gets ID 2")
    }

    func testReconfirmationAfterAGap() throws {
        func reports(reconfirm: Bool) throws -> [Int?] {
            var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 3, reconfirmAfterGap: reconfirm))
            var result: [Int?] = []
            for frame in 0..<9 {
                let visible = frame != 4   // one missed frame
                result.append(try tracker.update(visible ? [det(box(0, 0))] : []).first?.trackID)
            }
            return result
        }
        XCTAssertEqual(try reports(reconfirm: true), [1, 1, 1, 1, nil, nil, nil, 1, 1])
        XCTAssertEqual(try reports(reconfirm: false), [1, 1, 1, 1, nil, 1, 1, 1, 1])
    }

    func testIDsIncreaseAndAreNeverReused() throws {
        var tracker = try IoUTracker(configuration: TrackerConfiguration(maxAge: .frames(0), minHits: 1))
        var ids: [Int] = []
        // An object that appears every other frame dies each time (maxAge 0) and comes back new.
        for frame in 0..<10 {
            let objects = try tracker.update(frame % 2 == 0 ? [det(box(0, 0))] : [])
            ids += objects.map(\.trackID)
        }
        XCTAssertEqual(ids, [1, 2, 3, 4, 5])
        tracker.reset()
        XCTAssertEqual(try tracker.update([det(box(0, 0))]).map(\.trackID), [6], "reset keeps counting")
    }

    func testMaxAgeInFrames() throws {
        var tracker = try IoUTracker(configuration: TrackerConfiguration(maxAge: .frames(2), minHits: 1))
        XCTAssertEqual(try tracker.update([det(box(0, 0))]).map(\.trackID), [1])
        _ = try tracker.update([])
        _ = try tracker.update([])
        XCTAssertEqual(try tracker.update([det(box(0, 0))]).map(\.trackID), [1], "2 missed frames: still alive")
        for _ in 0..<3 { _ = try tracker.update([]) }
        XCTAssertEqual(try tracker.update([det(box(0, 0))]).map(\.trackID), [2], "3 missed frames: a new track")
    }

    func testMaxAgeInMilliseconds() throws {
        var tracker = try IoUTracker(configuration: TrackerConfiguration(maxAge: .milliseconds(100), minHits: 1))
        XCTAssertEqual(try tracker.update([det(box(0, 0))], timestampMs: 0).map(\.trackID), [1])
        _ = try tracker.update([], timestampMs: 50)
        XCTAssertEqual(try tracker.update([det(box(0, 0))], timestampMs: 100).map(\.trackID), [1])
        _ = try tracker.update([], timestampMs: 201)
        XCTAssertEqual(try tracker.update([det(box(0, 0))], timestampMs: 202).map(\.trackID), [2])
        XCTAssertThrowsError(try tracker.update([])) { XCTAssertEqual($0 as? TrackerError, .timestampRequired) }
    }

    func testTimestampsMustIncrease() throws {
        var tracker = try IoUTracker()
        _ = try tracker.update([], timestampMs: 10)
        XCTAssertThrowsError(try tracker.update([], timestampMs: 10)) { error in
            XCTAssertEqual(error as? TrackerError, .timestampNotIncreasing(previousMs: 10, receivedMs: 10))
            XCTAssertTrue(String(describing: error).contains("not later"))
        }
    }

    func testInvalidConfigurationIsRejected() {
        XCTAssertThrowsError(try IoUTracker(configuration: TrackerConfiguration(iouThreshold: .nan)))
        XCTAssertThrowsError(try IoUTracker(configuration: TrackerConfiguration(iouThreshold: 0)))
        XCTAssertThrowsError(try IoUTracker(configuration: TrackerConfiguration(maxAge: .frames(-1))))
        XCTAssertThrowsError(try IoUTracker(configuration: TrackerConfiguration(minHits: 0)))
        XCTAssertThrowsError(try IoUTracker(configuration: TrackerConfiguration(labelHistoryLength: 0)))
        XCTAssertThrowsError(try IoUTracker(configuration: TrackerConfiguration(
            twoStage: .init(highScore: 0.3, lowScore: 0.6))))
    }

    func testLimitsBoundWork() throws {
        var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 1))
        let tooMany = Array(repeating: det(box(0, 0)), count: IoUTracker.maxDetectionsPerUpdate + 1)
        XCTAssertThrowsError(try tracker.update(tooMany)) { error in
            XCTAssertEqual(error as? TrackerError, .tooManyDetections(count: IoUTracker.maxDetectionsPerUpdate + 1,
                                                                     limit: IoUTracker.maxDetectionsPerUpdate))
        }
        // Identical boxes: one big group for the solver; every detection still gets its own track.
        let pile = Array(repeating: det(box(5, 5)), count: 60)
        let first = try tracker.update(pile)
        let second = try tracker.update(pile)
        XCTAssertEqual(Set(first.map(\.trackID)).count, 60)
        XCTAssertEqual(Set(second.map(\.trackID)), Set(first.map(\.trackID)))
        // Far apart boxes, many frames: live tracks never exceed the limit.
        var wide = try IoUTracker(configuration: TrackerConfiguration(maxAge: .frames(1_000), minHits: 1))
        for frame in 0..<3 {
            let spread = (0..<IoUTracker.maxDetectionsPerUpdate).map { i in det(box(Float(i) * 100, Float(frame) * 1_000)) }
            _ = try wide.update(spread)
            XCTAssertLessThanOrEqual(wide.liveTrackCount, IoUTracker.maxLiveTracks)
        }
    }

    func testUnusableBoxesAreIgnored() throws {
        var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 1))
        let objects = try tracker.update([
            det(TrackBox(x: .nan, y: 0, width: 10, height: 10)),
            det(TrackBox(x: 0, y: 0, width: -5, height: 10)),
            det(TrackBox(x: 0, y: 0, width: .infinity, height: 10)),
            det(box(0, 0), .nan),
            det(box(100, 100)),
        ])
        XCTAssertEqual(objects.map(\.detectionIndex), [4])
    }

    /// Labels flip between frames: the object keeps its ID (class-agnostic) and the reported
    /// class is the score-weighted majority.
    func testClassAgnosticMatchingAndLabelSmoothing() throws {
        var tracker = try IoUTracker()
        let classes = [18, 18, 88, 18, 88, 18]   // dog, dog, teddy bear, ...
        var reported: [(Int, Int?)] = []
        for (frame, cls) in classes.enumerated() {
            let objects = try tracker.update([det(box(Float(frame) * 4, 0), 0.8, cls)])
            reported += objects.map { ($0.trackID, $0.classIndex) }
        }
        XCTAssertEqual(reported.map(\.0), [1, 1, 1, 1, 1, 1])
        XCTAssertEqual(reported.map(\.1), [18, 18, 18, 18, 18, 18])
    }

    func testLabelHistoryTieGoesToMostRecent() {
        var history = LabelHistory(capacity: 4)
        history.add(classIndex: 1, score: 0.5)
        history.add(classIndex: 2, score: 0.5)
        XCTAssertEqual(history.smoothedClass, 2)
        history.add(classIndex: 1, score: 0.5)
        XCTAssertEqual(history.smoothedClass, 1)
        // The window forgets old votes.
        for _ in 0..<4 { history.add(classIndex: 3, score: 0.1) }
        XCTAssertEqual(history.smoothedClass, 3)
        history.add(classIndex: nil, score: 1)
        XCTAssertEqual(history.smoothedClass, 3)
    }

    func testClassAwareMatchingSeparatesClasses() throws {
        var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 1, classAware: true, labelHistoryLength: 1))
        let first = try tracker.update([det(box(0, 0), 0.9, 1)])
        let second = try tracker.update([det(box(0, 0), 0.9, 2)])
        XCTAssertEqual(first.map(\.trackID), [1])
        XCTAssertEqual(second.map(\.trackID), [2], "a different class does not continue the track")
    }

    func testTwoStageLowScoresOnlyContinueTracks() throws {
        let stages = TrackerConfiguration.TwoStage(highScore: 0.6, lowScore: 0.1)
        var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 1, twoStage: stages))
        XCTAssertEqual(try tracker.update([det(box(0, 0), 0.9), det(box(300, 0), 0.3)]).map(\.trackID), [1],
                       "a low-score detection does not start a track")
        let objects = try tracker.update([det(box(2, 0), 0.3)])
        XCTAssertEqual(objects.map(\.trackID), [1], "but it continues one")
        // Without two-stage the 0.3 detection would have started its own track.
        var plain = try IoUTracker(configuration: TrackerConfiguration(minHits: 1))
        XCTAssertEqual(try plain.update([det(box(0, 0), 0.9), det(box(300, 0), 0.3)]).map(\.trackID), [1, 2])
    }

    /// Two objects crossing: with motion prediction each keeps its ID through the crossing.
    func testKalmanPredictionCarriesTracksThroughMisses() throws {
        var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 1))
        var ids: [Int] = []
        for frame in 0..<20 {
            // Moves 10 px per frame; invisible in frames 10...12.
            if (10...12).contains(frame) { _ = try tracker.update([]); continue }
            ids += try tracker.update([det(box(Float(frame) * 10, 0, 30, 60))]).map(\.trackID)
        }
        XCTAssertEqual(Set(ids), [1], "the gap is bridged by the predicted box")
        // Without motion the box is left behind: IoU of a 30-wide box moved by 40 px is 0.
        var still = try IoUTracker(configuration: TrackerConfiguration(minHits: 1, motion: .none))
        ids = []
        for frame in 0..<20 {
            if (10...12).contains(frame) { _ = try still.update([]); continue }
            ids += try still.update([det(box(Float(frame) * 10, 0, 30, 60))]).map(\.trackID)
        }
        XCTAssertEqual(Set(ids), [1, 2])
    }

    func testConstantVelocityModelFollowsMotion() {
        var state = BoxMotionState(model: .constantVelocity, box: box(0, 0, 20, 20))
        for frame in 1...5 {
            state.predict(dt: 1)
            state.correct(with: box(Float(frame) * 8, 0, 20, 20))
        }
        state.predict(dt: 1)
        XCTAssertEqual(state.box.x, 48, accuracy: 0.5)
        var kalman = BoxMotionState(model: .kalman, box: box(0, 0, 20, 20))
        for frame in 1...10 {
            kalman.predict(dt: 1)
            kalman.correct(with: box(Float(frame) * 8, 0, 20, 20))
        }
        kalman.predict(dt: 1)
        XCTAssertEqual(kalman.box.x, 88, accuracy: 2)
        XCTAssertEqual(kalman.box.width, 20, accuracy: 0.5)
    }

    func testDeterministic() throws {
        var rng = SplitMix64(seed: 7)
        var frames: [[TrackerDetection]] = []
        for _ in 0..<40 {
            frames.append((0..<Int.random(in: 0...12, using: &rng)).map { _ in
                det(box(Float.random(in: 0...300, using: &rng), Float.random(in: 0...300, using: &rng),
                        Float.random(in: 20...80, using: &rng), Float.random(in: 20...80, using: &rng)),
                    Float.random(in: 0.3...1, using: &rng), Int.random(in: 0...3, using: &rng))
            })
        }
        func run() throws -> [[TrackedObject]] {
            var tracker = try IoUTracker()
            return try frames.map { try tracker.update($0) }
        }
        let first = try run()
        XCTAssertEqual(try run(), first)
        XCTAssertGreaterThan(first.joined().count, 0)
    }
}
