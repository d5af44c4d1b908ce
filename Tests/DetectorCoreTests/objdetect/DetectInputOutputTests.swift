import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// `detect`'s inputs and outputs end to end: batches in single mode, PNG/JPEG/PPM frame streams
/// on stdin against the same frames from files, path lists, annotated output, and stdout
/// holding only results (progress and summaries on stderr).
final class DetectInputOutputTests: XCTestCase {
    func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    func object(_ line: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
    }

    func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("objdetect-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// Three images in single mode: three jsonl lines, no tracking IDs, sizes from each image;
    /// a folder in single mode gives one result per file in natural order.
    func testSeveralImagesAndAFolderInSingleMode() throws {
        let folder = try temporaryFolder()
        let png = SharedData.fixture("astronaut.png")
        let jpeg = SharedData.fixture("astronaut_128x128_q90_420_exif6.jpg")
        try FileManager.default.copyItem(at: png, to: folder.appendingPathComponent("img10.png"))
        try FileManager.default.copyItem(at: jpeg, to: folder.appendingPathComponent("img9.jpg"))
        try FileManager.default.copyItem(at: png, to: folder.appendingPathComponent("img1.png"))
        try Data("not an image".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        let files = try CLIRunner.run([png.path, jpeg.path, png.path, "--mode", "single", "--format", "jsonl", "--model", "face"])
        XCTAssertEqual(files.status, 0, files.stderr)
        let results = try lines(files.stdout).map(object)
        XCTAssertEqual(results.map { $0["source"] as? String }, [png.path, jpeg.path, png.path])
        XCTAssertEqual(results.map { $0["width"] as? Int }, [512, 128, 512])
        for r in results {
            for o in r["objects"] as? [[String: Any]] ?? [] { XCTAssertNil(o["trackingID"], "single mode has no tracking IDs") }
        }
        XCTAssertEqual((results[0]["objects"] as? [Any])?.count, 1)
        // A summary line on stderr, nothing else.
        XCTAssertTrue(files.stderr.hasPrefix("objdetect: 3 images, "), files.stderr)
        XCTAssertEqual(lines(files.stderr).count, 1, files.stderr)

        let batch = try CLIRunner.run([folder.path, "--mode", "single", "--format", "jsonl", "--quiet"])
        XCTAssertEqual(batch.status, 0, batch.stderr)
        XCTAssertEqual(try lines(batch.stdout).map { ((try object($0))["source"] as? String).map { ($0 as NSString).lastPathComponent } },
                       ["img1.png", "img9.jpg", "img10.png"])
        XCTAssertTrue(batch.stderr.isEmpty, batch.stderr)
        // json with several images: one array.
        let array = try CLIRunner.run([png.path, jpeg.path, "--format", "json", "--quiet"])
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(array.stdout.utf8)) as? [Any])?.count, 2, array.stdout)
    }

    /// The pan sequence as PNG frames and as PPM frames on stdin gives the same tracks as the
    /// folder; JPEG files likewise against the same files given in order.
    func testFrameStreamsOnStdinGiveTheSameTracksAsFiles() throws {
        let folder = try SharedData.url("sequences/pan_cats_and_dogs")
        let model = try SharedData.url("models/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite").path
        let frames = (1...8).map { folder.appendingPathComponent(String(format: "frame_%04d.png", $0)) }
        let pngs = try frames.map { try Data(contentsOf: $0) }
        let options = ["--mode", "stream", "--model", model, "--score-threshold", "0.3", "--format", "mot", "--quiet"]
        let fromFiles = try CLIRunner.run(frames.map(\.path) + options)
        XCTAssertEqual(fromFiles.status, 0, fromFiles.stderr)
        let rows = try MOTFormat.parse(fromFiles.stdout)
        XCTAssertEqual(Set(rows.map(\.frame)), Set(1...8))
        XCTAssertTrue(rows.allSatisfy { $0.id > 0 })
        let pngStream = try CLIRunner.run(["-"] + options, stdin: pngs.reduce(Data(), +))
        XCTAssertEqual(pngStream.status, 0, pngStream.stderr)
        XCTAssertEqual(pngStream.stdout, fromFiles.stdout)
        var ppm = Data()
        for data in pngs { ppm += Data(PPMEncoder.encode(try ImageDecoder.decode([UInt8](data)).image.converted(to: .rgb8))) }
        let ppmStream = try CLIRunner.run(["-"] + options, stdin: ppm)
        XCTAssertEqual(ppmStream.status, 0, ppmStream.stderr)
        XCTAssertEqual(ppmStream.stdout, fromFiles.stdout)

        let jpegs = try ["images/cats_and_dogs.jpg", "images/cats_and_dogs.jpg", "images/multi_objects.jpg", "jpeg/exif_thumbnail.jpg"]
            .map { try SharedData.url($0) }
        let jpegFiles = try CLIRunner.run(jpegs.map(\.path) + options)
        let jpegStream = try CLIRunner.run(["-"] + options, stdin: try jpegs.map { try Data(contentsOf: $0) }.reduce(Data(), +))
        XCTAssertEqual(jpegStream.status, 0, jpegStream.stderr)
        XCTAssertFalse(jpegFiles.stdout.isEmpty)
        XCTAssertEqual(jpegStream.stdout, jpegFiles.stdout)
    }

    func testStdinThatIsNoFrameStreamIsOneError() throws {
        var rng = SplitMix64(seed: 5)
        let noise = Data((0..<200_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        let paths = Data("Pictures/a.png\nPictures/b.png\n".utf8)
        for input in [Data([0x42]) + noise, paths] {
            let r = try CLIRunner.run(["-"], stdin: input)
            XCTAssertEqual(r.status, 1)
            XCTAssertEqual(lines(r.stderr).count, 1, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("objdetect: standard input: the data is not a stream of PNG, JPEG or PPM/PGM frames"), r.stderr)
            XCTAssertTrue(r.stdout.isEmpty)
        }
        // 20 PNG frames, the last one cut short: 19 results, one error line, exit 1, no trap.
        let png = try Data(contentsOf: SharedData.fixture("astronaut.png"))
        let stream = (0..<19).reduce(Data()) { d, _ in d + png } + png.prefix(png.count / 2)
        let r = try CLIRunner.run(["-", "--model", "face-short", "--quiet"], stdin: stream)
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(lines(r.stdout).count, 19)
        XCTAssertEqual(lines(r.stderr), ["objdetect: frame 20 (stdin#20) skipped: the stream ends inside frame 20 (PNG)"])
    }

    /// `--paths-from -`: a list of paths on stdin, also one whose first path starts with "P".
    func testPathListFromStdin() throws {
        let folder = try temporaryFolder()
        let image = folder.appendingPathComponent("Photo.png")
        try FileManager.default.copyItem(at: SharedData.fixture("astronaut.png"), to: image)
        let list = Data("\(image.path)\n\n\(image.path)\n".utf8)
        let r = try CLIRunner.run(["--paths-from", "-", "--format", "jsonl", "--quiet"], stdin: list)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(lines(r.stdout).count, 2)
        let relative = try CLIRunner.run(["--paths-from", "-", "--mode", "stream", "--quiet", "--model", "face-short"], stdin: Data("Photo.png\n".utf8))
        XCTAssertEqual(relative.status, 1)
        XCTAssertEqual(relative.stderr, "objdetect: the path list on standard input names Photo.png, which does not exist\n")
    }

    /// Stream mode with progress: stdout parses as jsonl (one line per frame, camelCase keys),
    /// stderr ends with the summary; `--annotate -` writes one PPM frame per input frame.
    func testStdoutHoldsOnlyResultsAndAnnotatedFramesStream() throws {
        let image = try ImageDecoder.decode(contentsOf: SharedData.fixture("astronaut.png").path).image.converted(to: .rgb8)
        var stream: [UInt8] = []
        for k in 0..<4 { stream += PPMEncoder.encode(try image.cropped(x: 8 * k, y: 0, width: 320, height: 320)) }
        let r = try CLIRunner.run(["-", "--model", "face-short"], stdin: Data(stream))
        XCTAssertEqual(r.status, 0, r.stderr)
        let results = try lines(r.stdout).map(object)
        XCTAssertEqual(results.map { $0["frameIndex"] as? Int }, [1, 2, 3, 4])
        XCTAssertEqual(results.map { $0["timestampMs"] as? Int }, [0, 33, 67, 100])
        XCTAssertEqual(results.map { $0["source"] as? String }, ["stdin#1", "stdin#2", "stdin#3", "stdin#4"])
        let box = try XCTUnwrap(((results[0]["objects"] as? [[String: Any]])?.first?["box"]) as? [String: Double])
        XCTAssertEqual(Set(box.keys), ["x", "y", "width", "height"])
        for v in box.values { XCTAssertEqual(v, (v * 10_000).rounded() / 10_000, "4 decimals") }
        XCTAssertTrue(lines(r.stderr).last?.hasPrefix("objdetect: 4 frames, 4 objects in ") ?? false, r.stderr)

        let annotated = try CLIRunner.runCapturingBytes(["-", "--model", "face-short", "--annotate", "-", "--quiet"], stdin: Data(stream))
        XCTAssertEqual(annotated.status, 0, annotated.stderr)
        let reader = ImageStreamReader(bytes: Array(annotated.stdoutData))
        var count = 0
        while let frame = try reader.nextFrame() {
            count += 1
            XCTAssertEqual(frame.format, .ppm)
            XCTAssertEqual(frame.image.width, 320)
        }
        XCTAssertEqual(count, 4)
        // --annotate DIR in stream mode: frame_000001.png …
        let folder = try temporaryFolder().appendingPathComponent("out")
        let toFolder = try CLIRunner.run(["-", "--model", "face-short", "--annotate", folder.path, "--quiet", "--format", "csv"], stdin: Data(stream))
        XCTAssertEqual(toFolder.status, 0, toFolder.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(),
                       (1...4).map { String(format: "frame_%06d.png", $0) })
        XCTAssertEqual(lines(toFolder.stdout).first, "source,frameIndex,trackingID,label,score,x,y,width,height,classifierLabel,classifierScore")
        XCTAssertEqual(lines(toFolder.stdout).count, 5)
    }

    /// `--live`: every frame is either delivered (in order, with its input frame number) or
    /// counted as dropped in the summary.
    func testLiveModeDeliversOrDropsEveryFrame() throws {
        let image = try ImageDecoder.decode(contentsOf: SharedData.fixture("astronaut.png").path).image.converted(to: .rgb8)
        var stream: [UInt8] = []
        for k in 0..<12 { stream += PPMEncoder.encode(try image.cropped(x: 4 * k, y: 0, width: 320, height: 320)) }
        let r = try CLIRunner.run(["-", "--live", "--model", "face-short"], stdin: Data(stream))
        XCTAssertEqual(r.status, 0, r.stderr)
        let indices = try lines(r.stdout).map { try XCTUnwrap((try object($0))["frameIndex"] as? Int) }
        XCTAssertEqual(indices.first, 1, "the first frame finds the detector idle")
        XCTAssertEqual(indices, indices.sorted())
        XCTAssertEqual(Set(indices).count, indices.count)
        let summary = try XCTUnwrap(lines(r.stderr).last)
        XCTAssertTrue(summary.hasPrefix("objdetect: \(indices.count) frame\(indices.count == 1 ? "" : "s"), "), summary)
        let dropped = summary.components(separatedBy: " dropped").first.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) } ?? 0
        XCTAssertEqual(indices.count + dropped, 12, summary)
        XCTAssertEqual(try CLIRunner.run(["-", "--live", "--fps", "10"]).status, 2)
    }
}
