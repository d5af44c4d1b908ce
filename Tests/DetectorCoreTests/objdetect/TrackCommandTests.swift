import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Runs the built `objdetect track` executable (next to the test bundle) end to end.
final class TrackCommandTests: XCTestCase {
    func executable() throws -> URL { try CLIRunner.executable() }

    func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try CLIRunner.run(arguments)
    }

    func testTracksTUDCampusDetections() throws {
        let detections = try SharedData.url("mot/TUD-Campus/det.txt")
        let result = try run(["track", "--detections", detections.path, "--format", "mot"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let rows = try MOTFormat.parse(result.stdout)
        XCTAssertGreaterThan(rows.count, 200)
        XCTAssertTrue(rows.allSatisfy { $0.id > 0 && $0.frame >= 1 && $0.frame <= 71 })
        XCTAssertTrue(result.stdout.split(separator: "\n").allSatisfy { $0.hasSuffix(",-1,-1,-1") })
        // The CLI and the library agree; the CLI times frames at the 25 fps of the seqinfo.ini
        // next to det.txt and takes the frame width (640) for the ground-plane gate from it.
        var tracker = try IoUTracker()
        tracker.frameWidth = 640
        var expected: [MOTRow] = []
        let input = try MOTFormat.parse(String(contentsOf: detections, encoding: .utf8))
        for (offset, frame) in MOTFormat.groupByFrame(input).enumerated() {
            let objects = try tracker.update(frame.map { TrackerDetection(box: $0.box, score: $0.score) },
                                             timestampMs: Int64(offset) * 40)
            expected += objects.sorted { $0.trackID < $1.trackID }
                .map { MOTRow(frame: offset + 1, id: $0.trackID, box: $0.box, score: $0.score) }
        }
        XCTAssertEqual(rows.map(\.id), expected.map(\.id))
        XCTAssertEqual(rows.map(\.frame), expected.map(\.frame))
        let explicit = try run(["track", "--detections", detections.path, "--fps", "25"])
        XCTAssertEqual(explicit.stdout, result.stdout, "seqinfo.ini's frameRate is 25")
        let width = try run(["track", "--detections", detections.path, "--frame-width", "640"])
        XCTAssertEqual(width.stdout, result.stdout, "seqinfo.ini's imWidth is 640")
        let ungated = try run(["track", "--detections", detections.path, "--ground-gate", "0"])
        XCTAssertEqual(ungated.status, 0, ungated.stderr)
        XCTAssertNotEqual(ungated.stdout, result.stdout, "the ground-plane gate changes some matches")
        let slower = try run(["track", "--detections", detections.path, "--fps", "5"])
        XCTAssertNotEqual(slower.stdout, result.stdout, "the frame rate changes how long tracks coast")
    }

    /// `track --state-out` on the first half of a detection file and `track --state-in` on the
    /// second half give the rows of one run over the whole file; a damaged state is refused.
    func testStateOutThenStateInEqualsOneRun() throws {
        let detections = try SharedData.url("mot17/MOT17-09/det/det.txt")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("track-state-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let lines = try String(contentsOf: detections, encoding: .utf8).split(separator: "\n")
        let firstHalf = lines.filter { Int($0.split(separator: ",")[0]) ?? 0 <= 130 }
        let secondHalf = lines.filter { Int($0.split(separator: ",")[0]) ?? 0 > 130 }
        let a = directory.appendingPathComponent("a.txt"), b = directory.appendingPathComponent("b.txt")
        try Data((firstHalf.joined(separator: "\n") + "\n").utf8).write(to: a)
        try Data((secondHalf.joined(separator: "\n") + "\n").utf8).write(to: b)
        let state = directory.appendingPathComponent("state.json")

        let whole = try run(["track", "--detections", detections.path, "--fps", "30"])
        XCTAssertEqual(whole.status, 0, whole.stderr)
        // The halves have no seqinfo.ini beside them: the first is given MOT17-09's frame width
        // (the whole run reads it from seqinfo.ini), the second gets it from the saved state.
        let one = try run(["track", "--detections", a.path, "--fps", "30", "--frame-width", "1920", "--state-out", state.path])
        XCTAssertEqual(one.status, 0, one.stderr)
        let two = try run(["track", "--detections", b.path, "--fps", "30", "--state-in", state.path])
        XCTAssertEqual(two.status, 0, two.stderr)
        XCTAssertGreaterThan(whole.stdout.count, 10_000)
        XCTAssertEqual(one.stdout + two.stdout, whole.stdout)
        XCTAssertEqual(try run(["track", "--detections", b.path, "--state-in", state.path, "--min-hits", "2"]).status, 2,
                       "the state carries the settings")
        try Data("{\"formatVersion\": 1}".utf8).write(to: state)
        let damaged = try run(["track", "--detections", b.path, "--state-in", state.path])
        XCTAssertEqual(damaged.status, 1)
        XCTAssertTrue(damaged.stderr.contains("tracker state"), damaged.stderr)
        let unwritable = try run(["track", "--detections", a.path, "--state-out", directory.appendingPathComponent("no/such/dir.json").path])
        XCTAssertEqual(unwritable.status, 1, "a state that cannot be written is an error")
    }

    func testBadInputGivesExitCodesNotCrashes() throws {
        _ = try executable()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("track-cli-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let malformed = directory.appendingPathComponent("bad.txt")
        try Data("1,-1,10,20\n".utf8).write(to: malformed)
        let binary = directory.appendingPathComponent("bin.txt")
        try Data([0xFF, 0xFE, 0x00, 0x80, 0x81]).write(to: binary)

        XCTAssertEqual(try run(["track"]).status, 2)
        XCTAssertEqual(try run(["track", "--detections", malformed.path, "--min-hits", "0"]).status, 2)
        XCTAssertEqual(try run(["track", "--detections", malformed.path, "--motion", "teleport"]).status, 2)
        let bad = try run(["track", "--detections", malformed.path])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("line 1"), bad.stderr)
        XCTAssertEqual(try run(["track", "--detections", binary.path]).status, 1)
        XCTAssertEqual(try run(["track", "--detections", directory.appendingPathComponent("missing.txt").path]).status, 1)
    }
}
