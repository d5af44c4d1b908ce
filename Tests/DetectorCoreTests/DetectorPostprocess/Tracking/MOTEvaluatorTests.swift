import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The evaluator behind `objdetect eval`: small cases worked out by hand, then equality with
/// the reference scripts (`../shared/reference/mot17_eval.py`: py-motmetrics 1.4.0 and
/// TrackEval 1.3.0; `mot_eval.py` for MOT15) on every shared MOT17 sequence, whose numbers were
/// produced by running those scripts and are kept in `Tests/EvaluationReference/`.
final class MOTEvaluatorTests: XCTestCase {
    static let referenceFolder = SharedData.repositoryRoot.appendingPathComponent("Tests/EvaluationReference")

    func box(_ frame: Int, _ id: Int, _ x: Double, _ y: Double = 0, _ w: Double = 10, _ h: Double = 10,
             consider: Double = 1, classID: Int? = nil) -> MOTBox {
        MOTBox(frame: frame, id: id, x: x, y: y, width: w, height: h, confidence: consider, classID: classID)
    }

    // MARK: Hand-made cases

    /// Object 1 is followed by hypothesis 7, lost for a frame, then taken by hypothesis 8 (one
    /// switch, one fragmentation); object 2 is hypothesis 5 throughout, except in frame 3 where 5
    /// sits 6 px off (IoU 4/16 < 0.5: a miss and a false positive).
    func testClearAndIdentityCountsByHand() throws {
        let gt = (1...4).flatMap { f in [box(f, 1, 0), box(f, 2, 100)] }
        let res = [box(1, 7, 0), box(3, 8, 0), box(4, 8, 0),
                   box(1, 5, 100), box(2, 5, 100), box(3, 5, 106), box(4, 5, 100)]
        let s = try MOTEvaluator.evaluate([MOTSequence(name: "hand", groundTruth: gt, results: res)]).combined
        XCTAssertEqual(s.groundTruthBoxes, 8)
        XCTAssertEqual(s.resultBoxes, 7)
        XCTAssertEqual(s.misses, 2)          // object 1 in frame 2, object 2 in frame 3
        XCTAssertEqual(s.falsePositives, 1)  // hypothesis 5 in frame 3
        XCTAssertEqual(s.idSwitches, 1)      // object 1: 7 -> 8
        XCTAssertEqual(s.fragmentations, 2)  // both objects: tracked, missed, tracked again
        XCTAssertEqual(s.mota, 1 - 4.0 / 8.0, accuracy: 1e-12)
        XCTAssertEqual(s.motp, 0, accuracy: 1e-12)  // every match is exact
        // Identities: 2↔5 (3 frames), 1↔8 (2 frames): 5 of 8 truths and 7 results.
        XCTAssertEqual(s.idf1, 10.0 / 15.0, accuracy: 1e-12)
        XCTAssertEqual(s.idp, 5.0 / 7.0, accuracy: 1e-12)
        XCTAssertEqual(s.idr, 5.0 / 8.0, accuracy: 1e-12)
        XCTAssertEqual(s.mostlyTracked, 0)   // object 1: 3 of 4 frames (75 %), object 2: 3 of 4
        XCTAssertEqual(s.partiallyTracked, 2)
    }

    /// A correspondence is kept while it stays admissible even when another pairing would be closer.
    func testPreviousMatchIsKeptOverACloserBox() throws {
        let gt = [box(1, 1, 0), box(2, 1, 0)]
        // Frame 2: hypothesis 7 moved 2 px (IoU 8/12), hypothesis 9 sits exactly on the object.
        let res = [box(1, 7, 0), box(2, 7, 2), box(2, 9, 0)]
        let s = try MOTEvaluator.evaluate([MOTSequence(name: "keep", groundTruth: gt, results: res)]).combined
        XCTAssertEqual(s.idSwitches, 0)
        XCTAssertEqual(s.falsePositives, 1)
        XCTAssertEqual(s.motp, (1 - 8.0 / 12.0) / 2, accuracy: 1e-12)
    }

    /// One object seen exactly by hypothesis A in frame 1 and B in frame 2. Every alpha: 2 true
    /// positives, DetA 1; each pair's alignment is 1 / (2 + 1 - 1), so AssA = 0.5, HOTA = √0.5.
    func testHOTAByHand() throws {
        let gt = [box(1, 1, 0), box(2, 1, 0)]
        let res = [box(1, 4, 0), box(2, 6, 0)]
        let s = try MOTEvaluator.evaluate([MOTSequence(name: "hota", groundTruth: gt, results: res)]).combined
        XCTAssertEqual(s.detA, 1, accuracy: 1e-12)
        XCTAssertEqual(s.assA, 0.5, accuracy: 1e-12)
        XCTAssertEqual(s.hota, 0.5.squareRoot(), accuracy: 1e-12)
        XCTAssertEqual(s.locA, 1, accuracy: 1e-12)
        // A box at IoU 0.6 counts for alpha 0.05…0.6 (12 of 19 thresholds) only.
        let shifted = [box(1, 4, 2.5), box(2, 4, 2.5)]       // IoU 7.5/12.5 = 0.6
        let t = try MOTEvaluator.evaluate([MOTSequence(name: "loc", groundTruth: gt, results: shifted)]).combined
        XCTAssertEqual(t.detA, 12.0 / 19.0, accuracy: 1e-12)
        XCTAssertEqual(t.assA, 12.0 / 19.0, accuracy: 1e-12)
        XCTAssertEqual(t.locA, (12 * 0.6 + 7 * 1) / 19, accuracy: 1e-12)   // LocA is 1 where nothing matched
    }

    /// MOT17 preprocessing: a result on a static person (class 7) is removed, not a false positive;
    /// a result on a car (class 3) is a false positive; a pedestrian with consider 0 is not scored.
    func testMOT17PreprocessingByHand() throws {
        let gt = [box(1, 1, 0, classID: 1), box(1, 2, 100, classID: 7), box(1, 3, 200, classID: 3),
                  box(1, 4, 300, consider: 0, classID: 1)]
        let res = [box(1, 10, 0), box(1, 11, 100), box(1, 12, 200), box(1, 13, 300)]
        let report = try MOTEvaluator.evaluate([MOTSequence(name: "mot17", groundTruth: gt, results: res)])
        XCTAssertEqual(report.sequences[0].groundTruthProtocol, .mot17)
        let s = report.combined
        XCTAssertEqual(s.removedDistractorMatches, 1)
        XCTAssertEqual(s.groundTruthBoxes, 1)
        XCTAssertEqual(s.resultBoxes, 3)
        XCTAssertEqual(s.falsePositives, 2)   // the car and the ignored pedestrian's box
        XCTAssertEqual(s.misses, 0)
        // The same rows as MOT15 (no classes): consider 0 dropped, nothing removed.
        let plain = gt.map { MOTBox(frame: $0.frame, id: $0.id, x: $0.x, y: $0.y, width: $0.width, height: $0.height, confidence: $0.confidence, classID: -1) }
        let m15 = try MOTEvaluator.evaluate([MOTSequence(name: "mot15", groundTruth: plain, results: res)])
        XCTAssertEqual(m15.sequences[0].groundTruthProtocol, .mot15)
        XCTAssertEqual(m15.combined.groundTruthBoxes, 3)
        XCTAssertEqual(m15.combined.falsePositives, 1)
        XCTAssertEqual(m15.combined.removedDistractorMatches, 0)
    }

    /// Only nine-column rows (MOT16/17/20 ground truth) carry a class; MOT15's tenth column means
    /// its 8th is a world coordinate.
    func testClassColumnIsReadFromNineColumnRowsOnly() throws {
        let rows = try MOTBox.parse("1,2,10,20,30,40,1,7,0.5\n1,3,88,99,61.08,218.56,1,4.4852,5.5016,0\n1,4,1,2,3,4,1,-1,-1,-1\n# note\n\n2,5,1,2,3,4\n")
        XCTAssertEqual(rows.map(\.classID), [7, nil, nil, nil])
        XCTAssertEqual(rows.map(\.frame), [1, 1, 1, 2])
        XCTAssertEqual(rows[1].width, 61.08)
        XCTAssertEqual(rows[3].confidence, 1)
        XCTAssertEqual(MOTGroundTruthProtocol.detect(in: rows), .mot17)
        XCTAssertEqual(MOTGroundTruthProtocol.detect(in: Array(rows.dropFirst())), .mot15)
    }

    func testBadInputIsATypedError() throws {
        XCTAssertThrowsError(try MOTBox.parse("1,1,10,20\n")) { XCTAssertTrue("\($0)".contains("line 1"), "\($0)") }
        XCTAssertThrowsError(try MOTBox.parse("1,1,10,20,nan,5\n"))
        XCTAssertThrowsError(try MOTBox.parse("0,1,10,20,5,5\n"))
        let gt = [box(1, 1, 0)]
        XCTAssertThrowsError(try MOTEvaluator.evaluate([MOTSequence(name: "s", groundTruth: gt, results: [box(1, 2, 0), box(1, 2, 5)])])) {
            XCTAssertEqual($0 as? MOTEvaluationError, .duplicateID(sequence: "s", file: .results, frame: 1, id: 2))
        }
        XCTAssertThrowsError(try MOTEvaluator.evaluate([MOTSequence(name: "s", groundTruth: gt, results: [box(3, 2, 0)], length: 2)])) {
            XCTAssertEqual($0 as? MOTEvaluationError, .frameOutOfRange(sequence: "s", file: .results, frame: 3, length: 2))
        }
        XCTAssertThrowsError(try MOTEvaluator.evaluate([MOTSequence(name: "s", groundTruth: gt, results: [box(1, -1, 0)])]))
        // Nothing reported: every truth is missed; HOTA 0, no crash on empty matrices.
        let empty = try MOTEvaluator.evaluate([MOTSequence(name: "s", groundTruth: gt, results: [])]).combined
        XCTAssertEqual(empty.misses, 1)
        XCTAssertEqual(empty.hota, 0)
        XCTAssertTrue(empty.motp.isNaN)
    }

    // MARK: Equality with the reference scripts

    /// Every metric of `mot17_eval.py` per sequence and combined: counts exactly, ratios to
    /// 0.0005 (0.05 percentage points), on the two anchors' outputs for the four shared MOT17
    /// sequences and on one output of ours (`objdetect track` on MOT17-11's det.txt); MOT15 with
    /// `mot_eval.py` (and TrackEval with its MOT15 settings for HOTA) on three of our outputs.
    func testEqualsReferenceScripts() throws {
        let shared = try SharedData.require()
        let expected = try JSONSerialization.jsonObject(
            with: Data(contentsOf: Self.referenceFolder.appendingPathComponent("reference-scores.json"))) as? [String: Any]
        let runs = try XCTUnwrap(expected?["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.count, 4)
        var worst: [String: Double] = [:]
        for run in runs {
            let name = try XCTUnwrap(run["name"] as? String)
            func resolve(_ path: String) -> String {
                path.hasPrefix("shared/") ? shared.appendingPathComponent(String(path.dropFirst(7))).path
                                          : Self.referenceFolder.appendingPathComponent(path).path
            }
            let gt = resolve(try XCTUnwrap(run["gt"] as? String)), results = resolve(try XCTUnwrap(run["results"] as? String))
            let reference = try XCTUnwrap(run["output"] as? [String: Any])
            let referenceSequences = try XCTUnwrap(reference["sequences"] as? [String: [String: Any]])
            let locations = try MOTSequenceLoader.locate(groundTruth: gt, results: results, only: Array(referenceSequences.keys))
            XCTAssertEqual(locations.count, referenceSequences.count, name)
            let started = Date()
            let report = try MOTEvaluator.evaluate(try locations.map { try MOTSequenceLoader.load($0) })
            print(String(format: "eval %@: %d sequences in %.2f s", name, locations.count, Date().timeIntervalSince(started)))
            let compared = report.sequences.map { ($0.name, $0.scores) } + [("combined", report.combined)]
            for (sequence, scores) in compared {
                let label = "\(name) \(sequence)"
                let want = try XCTUnwrap(sequence == "combined" ? reference["combined"] as? [String: Any] : referenceSequences[sequence], label)
                for (key, value) in scores.referenceKeyedValues {
                    guard let target = want[key] else { continue }   // no HOTA in mot_eval.py
                    let keyLabel = "\(label) \(key)"
                    guard let value, let wanted = (target as? NSNumber)?.doubleValue else {
                        XCTAssertTrue(value == nil && target is NSNull, "\(keyLabel): ours \(String(describing: value)), reference \(target)")
                        continue
                    }
                    if MOTScores.isCountKey(key) {
                        XCTAssertEqual(value, wanted, keyLabel)
                    } else {
                        XCTAssertEqual(value, wanted, accuracy: 0.0005, keyLabel)
                    }
                    worst[key] = max(worst[key] ?? 0, abs(value - wanted))
                }
            }
        }
        print("eval: largest difference from the reference per metric: " +
              worst.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.2g", $0.value))" }.joined(separator: ", "))
    }
}
