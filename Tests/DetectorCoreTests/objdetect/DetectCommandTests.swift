import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The `objdetect` CLI end to end: single mode on the committed fixture (works on a fresh clone),
/// stream mode from a frame directory and from piped PPM frames, labeling, and the exit codes.
final class DetectCommandTests: XCTestCase {
    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func testSingleModeOnTheFixtureFindsTheFace() throws {
        let result = try CLIRunner.run([SharedData.fixture("astronaut.png").path, "--mode", "single", "--model", "face"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let d = try json(result.stdout)
        XCTAssertEqual(d["width"] as? Int, 512)
        XCTAssertEqual(d["height"] as? Int, 512)
        let objects = try XCTUnwrap(d["objects"] as? [[String: Any]])
        XCTAssertEqual(objects.count, 1)
        let frame = try XCTUnwrap(objects[0]["box"] as? [String: Double])
        // The golden (MediaPipe, dense full range) puts this face at x 174.8, y 70.4, 105×105.
        XCTAssertEqual(frame["x"] ?? 0, 174.8, accuracy: 2)
        XCTAssertEqual(frame["y"] ?? 0, 70.4, accuracy: 2)
        XCTAssertEqual(frame["width"] ?? 0, 105, accuracy: 2)
        XCTAssertNil(objects[0]["trackingID"], "no tracking IDs in single mode")
        XCTAssertEqual((objects[0]["keypoints"] as? [Any])?.count, 6)
        XCTAssertEqual((objects[0]["category"] as? [String: Any])?["text"] as? String, "face")
        XCTAssertEqual((objects[0]["labels"] as? [Any])?.count, 0, "labels are the classifier's, and there is none")
    }

    func testTextFormatAndAnnotatedOutput() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("annotated-\(ProcessInfo.processInfo.processIdentifier).png")
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLIRunner.run([SharedData.fixture("astronaut.png").path, "--mode", "single", "--format", "text",
                                        "--model", "face", "--annotate", out.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        // One line per object: source, label, score, box (x,y WxH), the same numbers as the JSON.
        let lines = result.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, result.stdout)
        XCTAssertTrue(lines[0].hasPrefix("\(SharedData.fixture("astronaut.png").path): face 0."), result.stdout)
        XCTAssertTrue(lines[0].hasSuffix(" at 174.8,70.4 105.0x105.0"), result.stdout)
        let annotated = try ImageDecoder.decode(contentsOf: out.path).image
        let original = try ImageDecoder.decode(contentsOf: SharedData.fixture("astronaut.png").path).image.converted(to: .rgba8)
        XCTAssertEqual(annotated.width, 512)
        XCTAssertEqual(annotated.height, 512)
        // Pixels changed on the box outline (left edge at x ≈ 175) and not far from it.
        func pixel(_ img: ImageBuffer, _ x: Int, _ y: Int) -> [UInt8] { Array(img.pixels[(y * img.width + x) * 4 ..< (y * img.width + x) * 4 + 4]) }
        XCTAssertNotEqual(pixel(annotated, 175, 120), pixel(original, 175, 120))
        XCTAssertEqual(pixel(annotated, 450, 450), pixel(original, 450, 450))
    }

    func testStreamModeOverPipedPPMFrames() throws {
        // Three 320×320 crops of the fixture, moving 8 px right per frame, as ffmpeg's image2pipe writes them.
        let image = try ImageDecoder.decode(contentsOf: SharedData.fixture("astronaut.png").path).image.converted(to: .rgb8)
        var stream: [UInt8] = []
        for k in 0..<3 {
            stream += PPMEncoder.encode(try image.cropped(x: 8 * k, y: 0, width: 320, height: 320))
        }
        let result = try CLIRunner.run(["-", "--mode", "stream", "--model", "face-short", "--fps", "10"], stdin: Data(stream))
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3)
        var ids: [Int] = []
        for (i, line) in lines.enumerated() {
            let d = try json(line)
            XCTAssertEqual(d["frameIndex"] as? Int, i + 1)
            XCTAssertEqual(d["timestampMs"] as? Int, i * 100)
            XCTAssertEqual(d["width"] as? Int, 320)
            let objects = try XCTUnwrap(d["objects"] as? [[String: Any]])
            XCTAssertEqual(objects.count, 1, line)
            ids.append(try XCTUnwrap(objects.first?["trackingID"] as? Int))
        }
        XCTAssertEqual(Set(ids).count, 1, "the face keeps its tracking ID: \(ids)")
    }

    func testStreamModeOverAFrameDirectoryInMOTFormat() throws {
        let folder = try SharedData.url("sequences/pan_cats_and_dogs").path
        let model = try SharedData.url("models/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite").path
        let result = try CLIRunner.run([folder, "--mode", "stream", "--model", model, "--score-threshold", "0.3", "--format", "mot"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let rows = try MOTFormat.parse(result.stdout)
        XCTAssertEqual(Set(rows.map(\.frame)), Set(1...30))
        XCTAssertTrue(rows.allSatisfy { $0.id > 0 })
    }

    /// `detect --mode stream --state-out` over frames 1–15 of the pan and `--state-in` over
    /// frames 16–30 give the IDs and boxes of one run over all 30 (frames timed at 25 fps, so the
    /// resumed clock lands on the same milliseconds); `--live` refuses the state options.
    func testStreamModeStateOutThenStateInEqualsOneRun() throws {
        let folder = try SharedData.url("sequences/pan_cats_and_dogs")
        let model = try SharedData.url("models/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite").path
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stream-state-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let frames = (1...30).map { folder.appendingPathComponent(String(format: "frame_%04d.png", $0)).path }
        let listA = directory.appendingPathComponent("a.txt"), listB = directory.appendingPathComponent("b.txt")
        try Data((frames[..<15].joined(separator: "\n") + "\n").utf8).write(to: listA)
        try Data((frames[15...].joined(separator: "\n") + "\n").utf8).write(to: listB)
        let state = directory.appendingPathComponent("state.json")
        let common = ["--mode", "stream", "--model", model, "--score-threshold", "0.3", "--format", "mot", "--fps", "25"]
        let whole = try CLIRunner.run([folder.path] + common)
        XCTAssertEqual(whole.status, 0, whole.stderr)
        let first = try CLIRunner.run(common + ["--paths-from", listA.path, "--state-out", state.path])
        XCTAssertEqual(first.status, 0, first.stderr)
        let second = try CLIRunner.run(common + ["--paths-from", listB.path, "--state-in", state.path])
        XCTAssertEqual(second.status, 0, second.stderr)
        let expected = try MOTFormat.parse(whole.stdout)
        let got = try MOTFormat.parse(first.stdout) + MOTFormat.parse(second.stdout).map { row in
            var row = row
            row.frame += 15
            return row
        }
        XCTAssertGreaterThan(expected.count, 60)
        XCTAssertEqual(got, expected)
        let live = try CLIRunner.run(common + ["--paths-from", listA.path, "--live", "--state-out", state.path].filter { $0 != "--fps" && $0 != "25" })
        XCTAssertEqual(live.status, 2, live.stderr)
    }

    func testLabelCommandWithTheAutoMLFixture() throws {
        let manifest = SharedData.fixture("automl_flowers/manifest.json").path
        let result = try CLIRunner.run(["label", SharedData.fixture("astronaut.png").path, "--model", manifest, "--max-results", "3"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let labels = try XCTUnwrap(try json(result.stdout)["labels"] as? [[String: Any]])
        XCTAssertEqual(labels.count, 3)
        let scores = labels.compactMap { $0["confidence"] as? Double }
        XCTAssertEqual(scores, scores.sorted(by: >))
        // The fixture's labels come from its dict.txt.
        let names = ["daisy", "dandelion", "roses", "sunflowers", "tulips"]
        XCTAssertTrue(labels.allSatisfy { names.contains($0["text"] as? String ?? "") })
        // A manifest naming a missing model file is a clear error.
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(ProcessInfo.processInfo.processIdentifier).json")
        try Data(#"{"modelFile": "missing.tflite", "labelsFile": "dict.txt"}"#.utf8).write(to: broken)
        defer { try? FileManager.default.removeItem(at: broken) }
        let bad = try CLIRunner.run(["label", SharedData.fixture("astronaut.png").path, "--model", broken.path])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("missing.tflite"), bad.stderr)
    }

    func testExitCodesOnBadInput() throws {
        let fixture = SharedData.fixture("astronaut.png").path
        let cases: [([String], Int32)] = [
            (["/nonexistent.png", "--mode", "single"], 1),
            ([fixture, "--mode", "single", "--model", "/nonexistent.tflite"], 1),
            ([fixture, "--mode", "single", "--model", "no-such-embedded"], 1),
            ([fixture, "--mode", "single", "--allow", "a", "--deny", "b"], 2),
            ([fixture, "--mode", "single", "--max-results", "0"], 2),
            ([fixture, "--mode", "sideways"], 2),
            ([fixture, "--mode", "single", "--orientation", "9"], 2),
            ([fixture, "--mode", "single", "--bogus"], 2),
            ([SharedData.fixture("README.md").path, "--mode", "single"], 1),
            ([fixture, "--mode", "single", "--decoder", "yolov5"], 1),
        ]
        for (args, expected) in cases {
            let r = try CLIRunner.run(args)
            XCTAssertEqual(r.status, expected, "\(args): \(r.stderr)")
            let lines = r.stderr.split(separator: "\n")
            XCTAssertFalse(lines.isEmpty, "\(args) printed no error")
            XCTAssertTrue(lines.first?.hasPrefix("objdetect: ") ?? false, "\(args): \(r.stderr)")
        }
    }
}
