import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Tracker state as a value: snapshot, resume, reset, and refusal of damaged states.
final class TrackerStateTests: XCTestCase {
    typealias Frame = [TrackerDetection]

    func frames(_ relative: String) throws -> [Frame] {
        let rows = try MOTFormat.parse(String(contentsOf: try SharedData.url(relative), encoding: .utf8))
        return MOTFormat.groupByFrame(rows).map { $0.map { TrackerDetection(box: $0.box, score: $0.score) } }
    }

    /// (frame, id, box) of every reported object, frames timed at 30 fps from `first`.
    func run(_ tracker: inout IoUTracker, _ frames: ArraySlice<Frame>) throws -> [String] {
        var lines: [String] = []
        for k in frames.indices {
            for o in try tracker.update(frames[k], timestampMs: Int64(k) * 33) {
                lines.append("\(k),\(o.trackID),\(o.box),\(o.detectionBox),\(o.hits)")
            }
        }
        return lines
    }

    /// The round trip the issue asks for: a sequence tracked in one run, and the same sequence
    /// split in two with the state saved as JSON after the first half and a new tracker made from
    /// it for the second, give the same tracks (IDs, boxes, frames), on MOT15 and MOT17 data.
    func testSplitRunResumedFromJSONGivesTheSameTracks() throws {
        // The frame widths of the two sequences' seqinfo.ini, so the ground-plane gate (its fit and
        // every track's ground filter) is part of the state carried across.
        for (relative, width) in [("mot17/MOT17-09/det/det.txt", 1920.0), ("mot/TUD-Stadtmitte/det.txt", 640.0)] {
            let all = try frames(relative)
            var whole = try IoUTracker()
            whole.frameWidth = width
            let expected = try run(&whole, all[...])
            XCTAssertGreaterThan(expected.count, 500, relative)

            let cut = all.count / 2
            var first = try IoUTracker()
            first.frameWidth = width
            var got = try run(&first, all[..<cut])
            XCTAssertEqual(first.state.groundFit?.count, 9, "a fitted ground plane is saved")
            XCTAssertTrue(first.state.tracks.allSatisfy { $0.ground?.count == 20 }, "every track's ground filter is saved")
            let data = try JSONEncoder().encode(first.state)
            let decoded = try JSONDecoder().decode(TrackerState.self, from: data)
            XCTAssertEqual(decoded, first.state, "the state survives JSON unchanged")
            var second = try IoUTracker(state: decoded)
            XCTAssertEqual(second.nextTrackID, first.nextTrackID)
            XCTAssertEqual(second.liveTrackCount, first.liveTrackCount)
            got += try run(&second, all[cut...])
            XCTAssertEqual(got, expected, relative)
        }
    }

    /// Without shared data: IDs stay unique across a resume, and a resumed tracker refuses a
    /// timestamp that is not later than the snapshot's.
    func testResumedIDsStayUniqueAndTimestampsContinue() throws {
        var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 1))
        let a = TrackerDetection(box: TrackBox(x: 0, y: 0, width: 40, height: 80), score: 0.9)
        let b = TrackerDetection(box: TrackBox(x: 300, y: 0, width: 40, height: 80), score: 0.9)
        XCTAssertEqual(try tracker.update([a], timestampMs: 0).map(\.trackID), [1])
        var resumed = try IoUTracker(state: tracker.state)
        XCTAssertThrowsError(try resumed.update([a], timestampMs: 0))
        // The old object keeps ID 1; the new one gets 2, never a reused 1.
        XCTAssertEqual(try resumed.update([a, b], timestampMs: 33).map(\.trackID), [1, 2])
    }

    /// `reset()` forgets tracks and the clock (a new stream may start at timestamp 0) and keeps
    /// handing out new IDs.
    func testResetStartsNewIDsWithoutReloading() throws {
        var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 1))
        let a = TrackerDetection(box: TrackBox(x: 0, y: 0, width: 40, height: 80), score: 0.9)
        XCTAssertEqual(try tracker.update([a], timestampMs: 100).map(\.trackID), [1])
        tracker.reset()
        XCTAssertEqual(tracker.liveTrackCount, 0)
        XCTAssertNil(tracker.lastUpdateTimestampMs)
        XCTAssertEqual(try tracker.update([a], timestampMs: 0).map(\.trackID), [2], "same box, new stream, new ID")
    }

    /// A state saved before `footDistanceWeight` existed (no such key in its configuration)
    /// still loads, without the foot term (nil), so it resumes with the matching it was saved with.
    func testStateWithoutFootDistanceWeightLoadsWithoutTheFootTerm() throws {
        var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 1, centreDistanceWeight: 4))
        _ = try tracker.update([TrackerDetection(box: TrackBox(x: 0, y: 0, width: 40, height: 80), score: 0.9)], timestampMs: 0)
        let data = try JSONEncoder().encode(tracker.state)
        guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              var configuration = object["configuration"] as? [String: Any] else {
            return XCTFail("the state does not encode as a JSON object with a configuration object")
        }
        XCTAssertEqual(configuration["footDistanceWeight"] as? Double, 3)
        configuration.removeValue(forKey: "footDistanceWeight")
        object["configuration"] = configuration
        let old = try JSONDecoder().decode(TrackerState.self, from: try JSONSerialization.data(withJSONObject: object))
        XCTAssertNil(old.configuration.footDistanceWeight)
        XCTAssertEqual(old.configuration.centreDistanceWeight, 4)
        XCTAssertNoThrow(try IoUTracker(state: old))
    }

    /// Damaged states are refused with a reason, never trusted (no crash on hand-edited JSON).
    func testDamagedStatesAreRefused() throws {
        var tracker = try IoUTracker(configuration: TrackerConfiguration(minHits: 1))
        tracker.frameWidth = 640
        _ = try tracker.update([TrackerDetection(box: TrackBox(x: 0, y: 0, width: 40, height: 80), score: 0.9, classIndex: 3)], timestampMs: 0)
        let good = tracker.state
        XCTAssertEqual(good.tracks.first?.ground?.count, 20)
        XCTAssertEqual(good.tracks.count, 1)
        var cases: [(String, TrackerState)] = []
        var s = good; s.formatVersion = 99; cases.append(("version", s))
        s = good; s.nextTrackID = 1; cases.append(("ID not below next ID", s))
        s = good; s.tracks.append(good.tracks[0]); cases.append(("duplicate ID", s))
        s = good; s.tracks[0].motion.kalman = [1, 2]; cases.append(("short filter", s))
        s = good; s.tracks[0].motion.current[0] = .nan; cases.append(("NaN", s))
        s = good; s.tracks[0].missedUpdates = -1; cases.append(("negative counter", s))
        s = good; s.tracks[0].lastDetection.width = 0; cases.append(("empty box", s))
        s = good; s.configuration.iouThreshold = 2; cases.append(("configuration", s))
        s = good; s.recentScores = [Float](repeating: 0.5, count: 5_000); cases.append(("score window", s))
        s = good; s.tracks[0].ground = [1, 2, 3]; cases.append(("short ground filter", s))
        s = good; s.tracks[0].ground?[5] = .infinity; cases.append(("infinite ground covariance", s))
        s = good; s.groundFit = [1, 2, 3, 4, 5, 6, 0.5, 0, 400]; cases.append(("ground slope not positive", s))
        s = good; s.groundFit = [-1, 2, 3, 4, 5, 6, 0]; cases.append(("negative ground count", s))
        s = good; s.groundFit = [1, 2, 3, 4, 5, 6, 1.5]; cases.append(("R² above 1", s))
        s = good; s.frameWidth = -640; cases.append(("negative frame width", s))
        s = good; s.configuration.groundPlane?.gate = .nan; cases.append(("ground gate", s))
        for (name, state) in cases {
            XCTAssertThrowsError(try IoUTracker(state: state), name) { error in
                XCTAssertTrue(error is TrackerError, name)
                XCTAssertTrue(String(describing: error).hasSuffix("."), "one sentence: \(error)")
            }
        }
        XCTAssertNoThrow(try IoUTracker(state: good))
        XCTAssertThrowsError(try JSONDecoder().decode(TrackerState.self, from: Data("{\"formatVersion\":1}".utf8)))
    }
}
