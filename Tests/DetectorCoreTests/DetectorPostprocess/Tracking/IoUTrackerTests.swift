import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

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
        func reports(hitsAfterGap: Int) throws -> [Int?] {
            var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 3, hitsAfterGap: hitsAfterGap))
            var result: [Int?] = []
            for frame in 0..<9 {
                let visible = frame != 4   // one missed frame
                result.append(try tracker.update(visible ? [det(box(0, 0))] : []).first?.trackID)
            }
            return result
        }
        XCTAssertEqual(try reports(hitsAfterGap: 3), [1, 1, 1, 1, nil, nil, nil, 1, 1])
        XCTAssertEqual(try reports(hitsAfterGap: 2), [1, 1, 1, 1, nil, nil, 1, 1, 1])
        XCTAssertEqual(try reports(hitsAfterGap: 1), [1, 1, 1, 1, nil, 1, 1, 1, 1])
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
    }

    /// Without timestamps, updates count as 1/30 s apart: 100 ms is three missed updates.
    func testMaxAgeInMillisecondsWithoutTimestamps() throws {
        func idAfter(misses: Int) throws -> Int? {
            var tracker = try IoUTracker(configuration: TrackerConfiguration(maxAge: .milliseconds(100), minHits: 1))
            _ = try tracker.update([det(box(0, 0))])
            for _ in 0..<misses { _ = try tracker.update([]) }
            return try tracker.update([det(box(0, 0))]).first?.trackID
        }
        XCTAssertEqual(try idAfter(misses: 2), 1, "found again 100 ms after its last match")
        XCTAssertEqual(try idAfter(misses: 3), 2, "133 ms: expired, a new track")
    }

    /// maxAge in time: the same 0.5 s of coasting at 10 fps and at 30 fps.
    func testMaxAgeInTimeIsTheSameAtAnyFrameRate() throws {
        func survives(fps: Int, missedSeconds: Double) throws -> Bool {
            var tracker = try IoUTracker(configuration: TrackerConfiguration(maxAge: .milliseconds(500), minHits: 1))
            let interval = 1000 / Int64(fps)
            _ = try tracker.update([det(box(0, 0))], timestampMs: 0)
            let misses = Int(missedSeconds * Double(fps))
            for k in 1...misses { _ = try tracker.update([], timestampMs: Int64(k) * interval) }
            return try tracker.update([det(box(0, 0))], timestampMs: Int64(misses + 1) * interval).first?.trackID == 1
        }
        XCTAssertTrue(try survives(fps: 10, missedSeconds: 0.4))
        XCTAssertTrue(try survives(fps: 30, missedSeconds: 0.4))
        XCTAssertFalse(try survives(fps: 10, missedSeconds: 0.6))
        XCTAssertFalse(try survives(fps: 30, missedSeconds: 0.6))
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
        XCTAssertThrowsError(try IoUTracker(configuration: TrackerConfiguration(hitsAfterGap: 0)))
        XCTAssertThrowsError(try IoUTracker(configuration: TrackerConfiguration(labelHistoryLength: 0)))
        XCTAssertThrowsError(try IoUTracker(configuration: TrackerConfiguration(
            scoreSplit: .fixed(highScore: 0.3, lowScore: 0.6))))
        XCTAssertThrowsError(try IoUTracker(configuration: TrackerConfiguration(scoreSplit: .adaptive(quantile: 1))))
        XCTAssertThrowsError(try IoUTracker(configuration: TrackerConfiguration(centreDistanceWeight: -1)))
        XCTAssertThrowsError(try IoUTracker(configuration: TrackerConfiguration(lowScoreWeight: 0)))
        XCTAssertThrowsError(try IoUTracker(configuration: TrackerConfiguration(reacquisitionGate: .nan)))
        XCTAssertThrowsError(try IoUTracker(configuration: TrackerConfiguration(reacquisitionHeightRatio: 0.9)))
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

    func testLowScoresOnlyContinueTracks() throws {
        let split = TrackerConfiguration.ScoreSplit.fixed(highScore: 0.6, lowScore: 0.1)
        var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 1, scoreSplit: split))
        XCTAssertEqual(try tracker.update([det(box(0, 0), 0.9), det(box(300, 0), 0.3)]).map(\.trackID), [1],
                       "a low-score detection does not start a track")
        let objects = try tracker.update([det(box(2, 0), 0.3)])
        XCTAssertEqual(objects.map(\.trackID), [1], "but it continues one")
        // Without a split the 0.3 detection would have started its own track.
        var plain = try IoUTracker(configuration: TrackerConfiguration(minHits: 1, scoreSplit: nil))
        XCTAssertEqual(try plain.update([det(box(0, 0), 0.9), det(box(300, 0), 0.3)]).map(\.trackID), [1, 2])
    }

    /// The adaptive split follows the detector's score scale: with scores 0.30…0.39 (ten
    /// detections) the 0.2-quantile is 0.32, so the two weakest are low and start no track,
    /// as with scores 0.90…0.99.
    func testAdaptiveScoreSplitFollowsTheScoreScale() throws {
        for base: Float in [0.3, 0.9] {
            var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 1, scoreSplit: .adaptive(quantile: 0.2)))
            let detections = (0..<10).map { i in det(box(Float(i) * 100, 0), base + Float(i) / 100) }
            XCTAssertEqual(try tracker.update(detections).map(\.detectionIndex), Array(2..<10), "base \(base)")
        }
        var window = ScoreWindow(capacity: 4)
        XCTAssertEqual(window.quantile(0.5), -.infinity)
        for score: Float in [0.1, 0.9, 0.5, 0.7, 0.3] { window.add(score) }   // 0.1 has left the window
        XCTAssertEqual(window.quantile(0), 0.3)
        XCTAssertEqual(window.quantile(0.5), 0.7)
        XCTAssertEqual(window.quantile(0.99), 0.9)
        // Selection agrees with sorting, ties included.
        var rng = SplitMix64(seed: 3)
        var big = ScoreWindow(capacity: 500)
        var all: [Float] = []
        for _ in 0..<700 {
            let score = Float(Int.random(in: 0..<50, using: &rng)) / 50
            big.add(score)
            all.append(score)
        }
        let sorted = all.suffix(500).sorted()
        for q: Float in [0, 0.1, 0.15, 0.5, 0.9, 0.999] {
            XCTAssertEqual(big.quantile(q), sorted[Int((Float(500) * q).rounded(.down))], "q \(q)")
        }
    }

    /// The default relative split scales with the detector: scores {1, 0.9, 0.5, 0.05} × s.
    /// The reference (0.95-quantile of 4 scores: the 4th smallest) is s, so high is ≥ 0.65 s,
    /// low is [0.1 s, 0.65 s), a new track needs ≥ 0.8 s: the first two start tracks, the third
    /// only continues one, the fourth is ignored, for s = 0.95 (YOLOX-like) as for s = 0.4
    /// (SSD-like), where a fixed 0.6 split would start none.
    func testRelativeScoreSplitFollowsTheScoreScale() throws {
        for s: Float in [0.95, 0.4] {
            var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 1))
            let scores: [Float] = [1, 0.9, 0.5, 0.05].map { $0 * s }
            let first = (0..<4).map { i in det(box(Float(i) * 100, 0), scores[i]) }
            XCTAssertEqual(try tracker.update(first).map(\.detectionIndex), [0, 1], "scale \(s)")
            // Next frame: the low one (0.5 s) continues track 1 (IoU 38/42 = 0.90 ≥ 0.5).
            let next = [det(box(2, 0), scores[2]), det(box(100, 0), scores[1])]
            XCTAssertEqual(try tracker.update(next).map(\.trackID), [1, 2], "scale \(s)")
        }
        var fixed = try IoUTracker(configuration: TrackerConfiguration(minHits: 1, scoreSplit: .fixed(highScore: 0.6, lowScore: 0.1)))
        XCTAssertEqual(try fixed.update([det(box(0, 0), 0.4), det(box(100, 0), 0.36)]).count, 0)
    }

    /// A tentative track that misses one frame survives (as in SORT), and gets its ID on its
    /// third consecutive match after the gap.
    func testTentativeTrackSurvivesAMiss() throws {
        var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 2, confirmImmediatelyAtStart: false))
        XCTAssertEqual(try tracker.update([det(box(0, 0))]).count, 0)
        XCTAssertEqual(try tracker.update([]).count, 0)
        XCTAssertEqual(tracker.liveTrackCount, 1, "kept through the miss")
        XCTAssertEqual(try tracker.update([det(box(0, 0))]).count, 0, "streak restarts at 1")
        XCTAssertEqual(try tracker.update([det(box(0, 0))]).map(\.trackID), [1])
        XCTAssertEqual(tracker.liveTrackCount, 1, "the same track, not a second one")
    }

    /// One track (40×80 at x 0), two candidates: the same box shifted 10 px right (IoU 30/50 =
    /// 0.6, centres 10 px apart: penalty 2 · 10² / (50² + 80²) = 0.0225, score 0.5775) and a
    /// shorter box on the same centre (40×47.2, IoU 1888/3200 = 0.59, no penalty). Plain IoU
    /// takes the shifted box; with the centre term the centred one wins.
    func testCentreDistanceTermPrefersTheCentredDetection() throws {
        func matched(centreWeight: Float) throws -> Int? {
            var tracker = try IoUTracker(configuration: TrackerConfiguration(
                minHits: 1, scoreSplit: nil, centreDistanceWeight: centreWeight, footDistanceWeight: nil))
            _ = try tracker.update([det(box(0, 0))])
            let objects = try tracker.update([det(box(10, 0)), det(TrackBox(x: 0, y: 16.4, width: 40, height: 47.2))])
            return objects.first { $0.trackID == 1 }?.detectionIndex
        }
        XCTAssertEqual(try matched(centreWeight: 0), 0)
        XCTAssertEqual(try matched(centreWeight: 2), 1)
    }

    /// One track (40×80 at the origin, feet at (20, 80)), two candidates: A, the same box 6 px to
    /// the right (IoU 2720/3680 = 0.739, feet 6 px away, centres 6 px apart), and B, a shorter box
    /// (40×58.4 at y 21.6) standing on the same feet (IoU 58.4/80 = 0.730, centres 10.8 px apart).
    /// Plain IoU takes A; so does the centre term at weight 2 (A: 0.739 − 2·36/(46²+80²) = 0.731,
    /// B: 0.730 − 2·116.64/(40²+80²) = 0.701). The foot term at weight 3 takes B (A: 0.739 −
    /// 3·36/80² = 0.722, B: 0.730 − 0).
    func testFootDistanceTermPrefersTheDetectionStandingWhereTheTrackStands() throws {
        func matched(centre: Float, foot: Float?) throws -> Int? {
            var tracker = try IoUTracker(configuration: TrackerConfiguration(
                minHits: 1, scoreSplit: nil, centreDistanceWeight: centre, footDistanceWeight: foot))
            _ = try tracker.update([det(box(0, 0))])
            let objects = try tracker.update([det(box(6, 0)), det(TrackBox(x: 0, y: 21.6, width: 40, height: 58.4))])
            return objects.first { $0.trackID == 1 }?.detectionIndex
        }
        XCTAssertEqual(try matched(centre: 0, foot: nil), 0)
        XCTAssertEqual(try matched(centre: 0, foot: 0), 0)
        XCTAssertEqual(try matched(centre: 2, foot: nil), 0)
        XCTAssertEqual(try matched(centre: 0, foot: 3), 1)
        XCTAssertEqual(TrackerConfiguration().footDistanceWeight, 3, "the default")
        XCTAssertThrowsError(try IoUTracker(configuration: TrackerConfiguration(footDistanceWeight: -1)))
        XCTAssertThrowsError(try IoUTracker(configuration: TrackerConfiguration(footDistanceWeight: .nan)))
    }

    /// A track lost for two frames is not re-found by a box 1.5× its height at the same place
    /// (IoU 1/1.5 = 0.67, well above the threshold) but is by one 1.3× its height; a track
    /// that was not lost takes the 1.5× box.
    func testReacquisitionHeightRatio() throws {
        func continues(height: Float, missed: Int) throws -> Bool {
            var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 1, hitsAfterGap: 1, scoreSplit: nil))
            for _ in 0..<5 { _ = try tracker.update([det(box(0, 0, 40, 80))]) }
            for _ in 0..<missed { _ = try tracker.update([]) }
            return try tracker.update([det(box(0, 0, 40, height))]).first?.trackID == 1
        }
        XCTAssertFalse(try continues(height: 120, missed: 2))
        XCTAssertTrue(try continues(height: 104, missed: 2))
        XCTAssertTrue(try continues(height: 120, missed: 0))
    }

    /// The filtered box is reported, the detection's own box alongside it.
    func testReportsFilteredAndDetectionBoxes() throws {
        var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 1))
        _ = try tracker.update([det(box(0, 0))])
        let object = try XCTUnwrap(try tracker.update([det(box(4, 0))]).first)
        XCTAssertEqual(object.detectionBox, box(4, 0))
        XCTAssertGreaterThan(object.box.x, 0)
        XCTAssertLessThan(object.box.x, 4, "the filter blends prediction and measurement")
        var raw = try IoUTracker(configuration: TrackerConfiguration(minHits: 1, reportedBox: .detection))
        _ = try raw.update([det(box(0, 0))])
        XCTAssertEqual(try raw.update([det(box(4, 0))]).first?.box, box(4, 0))
    }

    /// ML Kit's reporting: a new object gets its ID in its first frame, a low-score one too.
    func testReportsFromFirstFrame() throws {
        var tracker = try IoUTracker(configuration: TrackerConfiguration(
            minHits: 3, scoreSplit: .fixed(highScore: 0.6, lowScore: 0.1), reportsFromFirstFrame: true))
        for _ in 0..<4 { _ = try tracker.update([det(box(0, 0))]) }
        let objects = try tracker.update([det(box(0, 0)), det(box(300, 0), 0.3)])
        XCTAssertEqual(objects.map(\.trackID), [1, 2])
    }

    /// OC-SORT's re-update: a track found again after a 4-frame gap ends in the state of a
    /// filter that saw detections on the straight line between its last box and the new one
    /// (x 18 → 38 in five steps: 22, 26, 30, 34, then 38), not in the state of one correction
    /// after four blind predictions.
    func testReupdateAfterGapRunsTheFilterOverTheGap() throws {
        func tracked(reupdate: Bool) throws -> TrackBox {
            var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 1, scoreSplit: nil, reupdateAfterGap: reupdate))
            for frame in 0..<10 { _ = try tracker.update([det(box(Float(frame) * 2, 0))]) }   // 2 px/frame
            for _ in 0..<4 { _ = try tracker.update([]) }
            _ = try tracker.update([det(box(38, 0))])
            XCTAssertEqual(tracker.liveTrackCount, 1)
            return tracker.tracks[0].motion.box
        }
        var expected = BoxMotionState(model: .kalman, box: box(0, 0))
        for frame in 1..<10 { expected.predict(dt: 1); expected.correct(with: box(Float(frame) * 2, 0)) }
        for x: Float in [22, 26, 30, 34, 38] { expected.predict(dt: 1); expected.correct(with: box(x, 0)) }
        let with = try tracked(reupdate: true), without = try tracked(reupdate: false)
        XCTAssertEqual(with.x, expected.box.x, accuracy: 1e-3)
        XCTAssertEqual(with.width, expected.box.width, accuracy: 1e-3)
        XCTAssertNotEqual(with.x, without.x, accuracy: 0.05)
    }

    /// A confirmed track, a high-score detection shifted 12 px (IoU 28/52 = 0.54) and a
    /// low-score one shifted 4 px (IoU 36/44 = 0.82): at weight 0.5 the low one scores 0.41 and
    /// the high one wins; at weight 1 the better overlap wins.
    func testLowScoreWeightFavoursHighScores() throws {
        func matched(weight: Float) throws -> Int? {
            var tracker = try IoUTracker(configuration: TrackerConfiguration(
                minHits: 1, scoreSplit: .fixed(highScore: 0.6, lowScore: 0.1), lowScoreWeight: weight, scoreWeightedMatching: false,
                centreDistanceWeight: 0, footDistanceWeight: nil))
            _ = try tracker.update([det(box(0, 0))])
            return try tracker.update([det(box(12, 0), 0.9), det(box(4, 0), 0.3)]).first { $0.trackID == 1 }?.detectionIndex
        }
        XCTAssertEqual(try matched(weight: 0.5), 0)
        XCTAssertEqual(try matched(weight: 1), 1)
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
