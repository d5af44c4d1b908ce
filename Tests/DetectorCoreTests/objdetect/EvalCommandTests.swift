import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// `objdetect eval` end to end: the forms GT and RESULTS take, its JSON against the reference
/// scores of `Tests/EvaluationReference/`, and exit codes for bad input.
final class EvalCommandTests: XCTestCase {
    func reference(_ run: String) throws -> [String: Any] {
        let url = MOTEvaluatorTests.referenceFolder.appendingPathComponent("reference-scores.json")
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let runs = try XCTUnwrap(document?["runs"] as? [[String: Any]])
        return try XCTUnwrap(runs.first { $0["name"] as? String == run }?["output"] as? [String: Any])
    }

    func json(_ arguments: [String]) throws -> [String: Any] {
        let r = try CLIRunner.run(arguments)
        XCTAssertEqual(r.status, 0, r.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout)
    }

    func testFoldersFilesAndJSON() throws {
        let shared = try SharedData.require()
        let gt = shared.appendingPathComponent("mot17").path
        let results = shared.appendingPathComponent("mot17/baselines/bytetrack").path
        let expected = try reference("bytetrack")
        let all = try json(["eval", gt, results, "--format", "json"])
        let sequences = try XCTUnwrap(all["sequences"] as? [String: [String: Any]])
        XCTAssertEqual(sequences.keys.sorted(), ["MOT17-02", "MOT17-04", "MOT17-09", "MOT17-11"])
        let combined = try XCTUnwrap(all["combined"] as? [String: Any])
        let want = try XCTUnwrap(expected["combined"] as? [String: Any])
        for key in ["MOTA", "IDF1", "HOTA", "DetA", "AssA", "LocA", "MOTP"] {
            XCTAssertEqual(try XCTUnwrap(combined[key] as? Double), try XCTUnwrap(want[key] as? Double), accuracy: 1e-9, key)
        }
        XCTAssertEqual(combined["num_switches"] as? Int, 96)
        XCTAssertEqual(combined["num_false_positives"] as? Int, want["num_false_positives"] as? Int)
        XCTAssertEqual(sequences["MOT17-02"]?["protocol"] as? String, "mot17")

        // One sequence three ways: its folder, its gt.txt with one results file, --sequences.
        let seq09 = try XCTUnwrap((expected["sequences"] as? [String: [String: Any]])?["MOT17-09"])
        let viaFolder = try json(["eval", gt + "/MOT17-09", results, "--json"])
        let viaFile = try json(["eval", gt + "/MOT17-09/gt/gt.txt", results + "/MOT17-09.txt", "--json"])
        let viaList = try json(["eval", gt, results, "--sequences", "MOT17-09", "--json"])
        for output in [viaFolder, viaFile, viaList] {
            let row = try XCTUnwrap((output["sequences"] as? [String: [String: Any]])?["MOT17-09"], "\(output)")
            XCTAssertEqual(row["num_switches"] as? Int, seq09["num_switches"] as? Int)
            XCTAssertEqual(try XCTUnwrap(row["HOTA"] as? Double), try XCTUnwrap(seq09["HOTA"] as? Double), accuracy: 1e-9)
            XCTAssertEqual(try XCTUnwrap(row["MOTA"] as? Double), try XCTUnwrap(seq09["MOTA"] as? Double), accuracy: 1e-9)
        }

        // The table: one row per sequence, a combined row when there are several.
        let table = try CLIRunner.run(["eval", gt, results])
        XCTAssertEqual(table.status, 0, table.stderr)
        let lines = table.stdout.split(separator: "\n")
        XCTAssertTrue(lines[0].hasPrefix("sequence") && lines[0].contains("HOTA"), table.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("MOT17-09") && $0.contains("  82.9  77.8  65.4 ") }, table.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("combined  78.9  81.4  70.2 ") }, table.stdout)

        // MOT15 (no class columns): the committed output of ours, scored as mot_eval.py did.
        let mot15 = try json(["eval", shared.appendingPathComponent("mot").path,
                              MOTEvaluatorTests.referenceFolder.appendingPathComponent("ours-mot15").path,
                              "--sequences", "TUD-Campus,TUD-Stadtmitte,KITTI-17", "--json"])
        let want15 = try XCTUnwrap(try reference("ours-mot15")["combined"] as? [String: Any])
        let got15 = try XCTUnwrap(mot15["combined"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(got15["MOTA"] as? Double), try XCTUnwrap(want15["MOTA"] as? Double), accuracy: 1e-9)
        XCTAssertEqual(got15["num_switches"] as? Int, want15["num_switches"] as? Int)
        XCTAssertEqual((mot15["sequences"] as? [String: [String: Any]])?["KITTI-17"]?["protocol"] as? String, "mot15")
    }

    func testBadInputGivesExitCodesAndOneLine() throws {
        let shared = try SharedData.require()
        let gt = shared.appendingPathComponent("mot17").path
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("eval-cli-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let malformed = directory.appendingPathComponent("MOT17-09.txt")
        try Data("1,1,10,20,30,40,1\n2,1,10,20\n".utf8).write(to: malformed)
        let late = directory.appendingPathComponent("late.txt")
        try Data("300,1,10,20,30,40,1\n".utf8).write(to: late)

        let cases: [([String], Int32, String)] = [
            (["eval", gt], 2, "eval takes GT and RESULTS, got 1 argument"),
            (["eval", gt, directory.path, "--format", "csv"], 2, "--format must be one of text, json"),
            (["eval", gt, directory.path, "--pretty"], 2, "--pretty applies to --format json only"),
            (["eval", gt + "/nothing", directory.path], 1, "no file or folder at"),
            (["eval", gt, directory.path], 1, "no results for MOT17-02"),
            (["eval", gt, directory.path, "--sequences", "MOT17-99"], 1, "sequence MOT17-99 is not under"),
            (["eval", gt, malformed.path], 1, "holds 4 sequences"),
            (["eval", gt, directory.path, "--sequences", "MOT17-09"], 1, "line 2 is malformed"),
            (["eval", gt + "/MOT17-09", late.path], 1, "frame 300, outside the sequence's frames 1...262"),
        ]
        for (args, status, message) in cases {
            let r = try CLIRunner.run(args)
            XCTAssertEqual(r.status, status, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stdout.isEmpty, "\(args): \(r.stdout)")
        }
    }
}
