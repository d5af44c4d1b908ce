import Foundation
import XCTest

/// Issue 26: a video file as input (decoded by an ffmpeg child process) and an annotated video
/// as output (encoded by another). Needs ffmpeg on PATH: outside CI the tests skip without it;
/// `.ci/run` installs it.
final class VideoFileTests: XCTestCase {
    func onPath(_ name: String = "ffmpeg") throws -> String {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        if SharedData.isCI { XCTFail("\(name) is not on PATH in CI (.ci/run installs it)") }
        throw XCTSkip("\(name) is not on PATH: video tests skipped")
    }

    /// Runs a tool to the end; returns its standard output.
    @discardableResult
    func tool(_ path: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(path) \(arguments)")
        return data
    }

    func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("objdetect-video-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// The pan sequence as an MP4: `objdetect pan.mp4 --format mot` gives the same tracks as the
    /// same decoded frames piped in by hand, at the video's own frame rate; `--annotate out.mp4`
    /// writes a 30-frame video ffprobe reads.
    func testAVideoFileGivesTheSameTracksAsItsFramesPipedIn() throws {
        let ffmpeg = try onPath(), ffprobe = try onPath("ffprobe")
        let frames = try SharedData.url("sequences/pan_cats_and_dogs")
        let model = try SharedData.url("models/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite").path
        let folder = try temporaryFolder()
        let video = folder.appendingPathComponent("pan.mp4").path
        try tool(ffmpeg, ["-loglevel", "error", "-y", "-framerate", "30", "-i", frames.appendingPathComponent("frame_%04d.png").path,
                          "-pix_fmt", "yuv420p", video])
        let direct = try CLIRunner.run([video, "--format", "mot", "--model", model, "--score-threshold", "0.3", "--quiet"])
        XCTAssertEqual(direct.status, 0, direct.stderr)
        let ppm = try tool(ffmpeg, ["-loglevel", "error", "-i", video, "-f", "image2pipe", "-c:v", "ppm", "-"])
        let piped = try CLIRunner.run(["-", "--format", "mot", "--model", model, "--score-threshold", "0.3", "--quiet"], stdin: ppm)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertGreaterThan(direct.stdout.split(separator: "\n").count, 30)
        XCTAssertEqual(direct.stdout, piped.stdout)
        // Frames are timed at the video's rate: jsonl timestamps 0, 33, 67, … for 30 fps.
        let jsonl = try CLIRunner.run([video, "--model", model, "--quiet"])
        let stamps = jsonl.stdout.split(separator: "\n").prefix(3).compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["timestampMs"] as? Int
        }
        XCTAssertEqual(stamps, [0, 33, 67])

        let annotated = folder.appendingPathComponent("out.mp4").path
        let r = try CLIRunner.run([video, "--model", model, "--score-threshold", "0.3", "--annotate", annotated, "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let probe = String(decoding: try tool(ffprobe, ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                        "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", annotated]),
                           as: UTF8.self)
        XCTAssertEqual(probe.trimmingCharacters(in: .whitespacesAndNewlines), "30")
    }

    /// Without ffmpeg, and with a file ffmpeg cannot read: one line each, exit 1.
    func testMissingFFmpegAndAnUnreadableVideoAreOneLineEach() throws {
        _ = try onPath()
        let folder = try temporaryFolder()
        let broken = folder.appendingPathComponent("broken.mp4")
        try Data("this is no video".utf8).write(to: broken)
        let unreadable = try CLIRunner.run([broken.path, "--quiet"])
        XCTAssertEqual(unreadable.status, 1)
        XCTAssertTrue(unreadable.stderr.hasPrefix("objdetect: ffmpeg could not read \(broken.path): "), unreadable.stderr)
        XCTAssertEqual(unreadable.stderr.split(separator: "\n").count, 1, unreadable.stderr)

        let missing = try CLIRunner.run([broken.path, "--quiet"], environment: ["PATH": folder.path])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.hasPrefix("objdetect: reading the video \(broken.path) needs ffmpeg, which is not on PATH: install it"),
                      missing.stderr)
        XCTAssertEqual(missing.stderr.split(separator: "\n").count, 1, missing.stderr)

        // Video bytes under an image name: the message says how to feed a video.
        let disguised = folder.appendingPathComponent("clip.png")
        try Data([0, 0, 0, 0x20] + Array("ftypisom".utf8) + [0, 0, 2, 0]).write(to: disguised)
        let r = try CLIRunner.run([disguised.path, "--quiet"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "objdetect: not an image objdetect reads: the data is an MP4 or QuickTime video (PNG, JPEG and PPM/PGM/PBM are read); to detect in a video, run objdetect \(disguised.path) --video (ffmpeg decodes it)\n")
    }
}
