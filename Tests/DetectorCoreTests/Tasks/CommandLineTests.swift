import Foundation
import XCTest
@testable import DetectorCore

/// The CLI's option layer and help: every subcommand's `--help` and each bad invocation of issue 17 with its exit code and one-line message.
final class CommandLineTests: XCTestCase {
    static let commands = ["detect", "label", "track", "inspect", "run", "bench", "image-info", "help"]

    func testEveryCommandHasHelp() throws {
        let top = try CLIRunner.run(["--help"])
        XCTAssertEqual(top.status, 0)
        for name in Self.commands {
            XCTAssertTrue(top.stdout.contains("\n  \(name) "), "top-level help lists \(name)")
            for flag in ["--help", "-h"] {
                let r = try CLIRunner.run([name, flag])
                XCTAssertEqual(r.status, 0, "\(name) \(flag): \(r.stderr)")
                XCTAssertTrue(r.stdout.hasPrefix("usage: objdetect"), "\(name) \(flag): \(r.stdout)")
                XCTAssertTrue(r.stderr.isEmpty, r.stderr)
            }
        }
        // Help wins wherever it stands, also after an image path; `help detect` is the same text.
        let detect = try CLIRunner.run(["detect", "--help"])
        XCTAssertEqual(try CLIRunner.run([SharedData.fixture("astronaut.png").path, "-h"]).stdout, detect.stdout)
        XCTAssertEqual(try CLIRunner.run(["help", "detect"]).stdout, detect.stdout)
        for option in ["--mode", "--model", "--score-threshold", "--max-results", "--allow", "--deny", "--threads", "--format",
                       "--pretty", "--annotate", "--paths-from", "--quiet", "--fps", "--track-iou", "--nms-iou"] {
            XCTAssertTrue(detect.stdout.contains("\n  \(option) "), "detect --help lists \(option)")
        }
    }

    /// Issue 17's "Why" list: each bad invocation, its exit code and the start of its message.
    func testBadInvocationsGiveUsageErrorsWithOneMessage() throws {
        let image = SharedData.fixture("astronaut.png").path
        let cases: [([String], Int32, String)] = [
            (["inspcet", "M"], 2, "unknown command 'inspcet'; did you mean 'inspect'?"),
            (["-m", "M"], 2, "unknown option -m for 'detect' (options are long, e.g. --mode, --model"),
            ([image, "--model", "--json"], 2, "--model needs a value, got the option '--json'"),
            ([image, "--scor-threshold", "0.5"], 2, "unknown option --scor-threshold for 'detect'; did you mean --score-threshold?"),
            ([image, "--model", "face", "--model", "palm"], 2, "--model is given more than once"),
            ([image, "--fps", "10"], 2, "--fps applies to --mode stream only, not --mode single"),
            ([image, "--mode", "stream", "--annotate", "x.png"], 2, "--annotate in stream mode needs a folder or -"),
            ([image, "--annotate", "x.jpg"], 2, "--annotate writes PNG: give a .png file, a folder or -, got 'x.jpg'"),
            ([image, "--multiple"], 2, "unknown option --multiple for 'detect'"),
            ([image, "--score-threshold", "2"], 2, "--score-threshold must be a number from 0 to 1, got '2'"),
            ([image, "--score-threshold", "-1"], 2, "--score-threshold must be a number from 0 to 1, got '-1'"),
            (["-", "--fps", "1e-300"], 2, "--fps must be a number from 0.001 to 10000, got '1e-300'"),
            (["track", "--detections", "d.txt", "--fps", "0"], 2, "--fps must be in 0.001...10000"),
            (["bench", "m.tflite", "--runs", "0"], 2, "--runs must be a whole number from 1 to 100000, got '0'"),
            ([image, "--max-results", "0"], 2, "--max-results must be a whole number from 1 to 100000, got '0'"),
            ([image, "--threads", "0"], 2, "--threads must be a whole number from 1 to 64, got '0'"),
            ([image, "--iou-threshold", "0.5"], 2, "unknown option --iou-threshold for 'detect'"),
            (["label", image, "--threshold", "0.5"], 2, "unknown option --threshold for 'label'; did you mean --score-threshold?"),
            ([image, "--format", "mot"], 2, "--format mot is for --mode stream"),
            ([image, "--format", "text", "--pretty"], 2, "--pretty applies to --format json only, not text"),
            ([image, "--quiet=yes"], 2, "--quiet takes no value"),
            ([image, "--allow", "a", "--deny", "b"], 2, "--allow and --deny cannot be used together"),
            (["inspect", "face", "--json", "--format", "text"], 2, "--json and --format text contradict each other"),
            (["bench", "--what", "decode", image, "--profile"], 2, "--profile applies to --what model only, not --what decode"),
            (["detect", "--", "--weird-name.png"], 1, "no file at --weird-name.png"),
            (["/nonexistent/*.png"], 1, "no file matches '/nonexistent/*.png'"),
        ]
        for (args, status, message) in cases {
            let r = try CLIRunner.run(args)
            XCTAssertEqual(r.status, status, "\(args): \(r.stderr)")
            let lines = r.stderr.split(separator: "\n")
            XCTAssertTrue(lines.first?.hasPrefix("objdetect: " + message) ?? false, "\(args): \(r.stderr)")
            XCTAssertEqual(lines.count, status == 2 ? 2 : 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stdout.isEmpty, "\(args): \(r.stdout)")
        }
    }

    /// `--opt=value` takes a value that looks like an option; `--` ends the options.
    func testEqualsFormAndTerminator() throws {
        let image = SharedData.fixture("astronaut.png").path
        let r = try CLIRunner.run(["--model=face-short", "--max-results=1", "--quiet", "--", image])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.isEmpty, r.stderr)
        let d = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((d["objects"] as? [Any])?.count, 1)
        // Embedded model names work in inspect and bench too.
        let inspect = try CLIRunner.run(["inspect", "face", "--json"])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) is [String: Any], true)
        let bench = try CLIRunner.run(["bench", "face-short", "--threads", "1", "--runs", "2", "--warmup", "0", "--json"])
        XCTAssertEqual(bench.status, 0, bench.stderr)
        let line = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bench.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(line["model"] as? String, "face-short")
        XCTAssertNotNil(line["median_ms"] as? Double)
        XCTAssertEqual(bench.stdout.split(separator: "\n").count, 1)
    }
}
