import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Runs the tracker with its default settings on the MOT15 TUD-Campus detections and scores it
/// against the ground truth with the in-test evaluator (`MOTMetrics`).
final class MOTQualityTests: XCTestCase {
    func rows(_ relative: String) throws -> [MOTRow] {
        let url = try SharedData.url(relative)
        return try MOTFormat.parse(String(contentsOf: url, encoding: .utf8))
    }

    func track(_ detections: [MOTRow], configuration: TrackerConfiguration = TrackerConfiguration()) throws -> [MOTRow] {
        var tracker = try IoUTracker(configuration: configuration)
        var results: [MOTRow] = []
        for (offset, frame) in MOTFormat.groupByFrame(detections).enumerated() {
            let objects = try tracker.update(frame.map { TrackerDetection(box: $0.box, score: $0.score) },
                                             timestampMs: Int64(offset) * 40)
            results += objects.map { MOTRow(frame: offset + 1, id: $0.trackID, box: $0.box, score: $0.score) }
        }
        return results
    }

    /// The evaluator itself, on a hand-made case with known answers.
    func testEvaluatorOnHandMadeCase() throws {
        let a = TrackBox(x: 0, y: 0, width: 10, height: 10), b = TrackBox(x: 100, y: 0, width: 10, height: 10)
        let gt = (1...4).flatMap { f in [MOTRow(frame: f, id: 1, box: a, score: 1), MOTRow(frame: f, id: 2, box: b, score: 1)] }
        // Object 1: hyp 7 in frames 1-2, hyp 8 in frames 3-4 (one switch). Object 2: missed in
        // frame 4. One false positive far away in frame 1.
        let res = [
            MOTRow(frame: 1, id: 7, box: a, score: 1), MOTRow(frame: 2, id: 7, box: a, score: 1),
            MOTRow(frame: 3, id: 8, box: a, score: 1), MOTRow(frame: 4, id: 8, box: a, score: 1),
            MOTRow(frame: 1, id: 5, box: b, score: 1), MOTRow(frame: 2, id: 5, box: b, score: 1),
            MOTRow(frame: 3, id: 5, box: b, score: 1),
            MOTRow(frame: 1, id: 9, box: TrackBox(x: 300, y: 300, width: 5, height: 5), score: 1),
        ]
        let m = try MOTMetrics.evaluate(groundTruth: gt, results: res)
        XCTAssertEqual(m.objects, 8)
        XCTAssertEqual(m.matches, 7)
        XCTAssertEqual(m.misses, 1)
        XCTAssertEqual(m.falsePositives, 1)
        XCTAssertEqual(m.switches, 1)
        XCTAssertEqual(m.mota, 1 - 3.0 / 8.0, accuracy: 1e-12)
        // Identity matching: 1↔7 (2 frames) or 1↔8 (2), 2↔5 (3): IDTP 5 of 8 + 8 boxes.
        XCTAssertEqual(m.idTruePositives, 5)
        XCTAssertEqual(m.idf1, 10.0 / 16.0, accuracy: 1e-12)
    }

    /// TUD-Campus with the defaults chosen in issue 29 (Tracking/README.md): MOTA 65.2 %, IDF1
    /// 76.8 %, 1 ID switch (bars a box or two below).
    func testTUDCampusWithDefaults() throws {
        let detections = try rows("mot/TUD-Campus/det.txt")
        let groundTruth = try rows("mot/TUD-Campus/gt.txt")
        XCTAssertEqual(detections.count, 321)
        XCTAssertEqual(groundTruth.count, 359)
        let results = try track(detections)
        let m = try MOTMetrics.evaluate(groundTruth: groundTruth, results: results)
        print("TUD-Campus: MOTA \(m.mota) IDF1 \(m.idf1) switches \(m.switches) FP \(m.falsePositives) misses \(m.misses)")
        XCTAssertGreaterThanOrEqual(m.mota, 0.65)
        XCTAssertGreaterThanOrEqual(m.idf1, 0.765)
        XCTAssertLessThanOrEqual(m.switches, 1)
        // Output rules: positive IDs, at most once per frame.
        XCTAssertTrue(results.allSatisfy { $0.id > 0 })
        XCTAssertEqual(Set(results.map { "\($0.frame)/\($0.id)" }).count, results.count)
    }

    /// The naive IoU tracker baseline (no motion, every detection reported) must score worse:
    /// shows the evaluator can tell trackers apart.
    func testNaiveBaselineScoresWorse() throws {
        let detections = try rows("mot/TUD-Campus/det.txt")
        let groundTruth = try rows("mot/TUD-Campus/gt.txt")
        let naive = TrackerConfiguration(maxAge: .frames(0), minHits: 1, motion: .none, reportedBox: .detection)
        let m = try MOTMetrics.evaluate(groundTruth: groundTruth, results: try track(detections, configuration: naive))
        XCTAssertLessThan(m.idf1, 0.65)
        XCTAssertGreaterThan(m.switches, 2)
    }
}
