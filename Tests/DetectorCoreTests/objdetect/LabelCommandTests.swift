import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// `objdetect label` on many images, end to end: folders, path lists, every format saying the
/// same thing, `--labels`, per-image errors, a failed write and SIGINT.
final class LabelCommandTests: XCTestCase {
    let manifest = SharedData.fixture("automl_flowers/manifest.json").path
    let png = SharedData.fixture("astronaut.png")
    let jpeg = SharedData.fixture("astronaut_128x128_q90_420_exif6.jpg")

    func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("objdetect-label-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// img1.png, img9.jpg, img10.png (the two fixtures) and a text file that is not an image.
    func imageFolder() throws -> URL {
        let folder = try temporaryFolder()
        try FileManager.default.copyItem(at: png, to: folder.appendingPathComponent("img10.png"))
        try FileManager.default.copyItem(at: jpeg, to: folder.appendingPathComponent("img9.jpg"))
        try FileManager.default.copyItem(at: png, to: folder.appendingPathComponent("img1.png"))
        try Data("not an image".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        return folder
    }

    /// One label as every format can say it.
    struct Label: Equatable, CustomStringConvertible {
        let source: String, name: String, index: Int, confidence: Double
        var description: String { "\(source): \(name) \(index) \(confidence)" }
    }

    func labels(fromJSON results: [[String: Any]]) throws -> [Label] {
        try results.flatMap { r in
            let source = try XCTUnwrap(r["source"] as? String)
            return try XCTUnwrap(r["labels"] as? [[String: Any]]).map {
                Label(source: source, name: $0["text"] as? String ?? "", index: $0["index"] as? Int ?? -1, confidence: $0["confidence"] as? Double ?? -1)
            }
        }
    }

    func testAFolderGivesOneResultPerImageAndEveryFormatAgrees() throws {
        let folder = try imageFolder()
        let run = { (format: String) throws -> String in
            let r = try CLIRunner.run(["label", folder.path, "--model", self.manifest, "--format", format, "--max-results", "3", "--quiet"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stderr, "", "--quiet")
            return r.stdout
        }
        // jsonl: one result per image file, in natural order, with each image's upright size
        // (the JPEG's EXIF 6 turns it, but it is square).
        let jsonl = try lines(try run("jsonl")).map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        XCTAssertEqual(jsonl.map { (($0["source"] as? String) ?? "") as NSString }.map(\.lastPathComponent),
                       ["img1.png", "img9.jpg", "img10.png"])
        XCTAssertEqual(jsonl.map { $0["width"] as? Int }, [512, 128, 512])
        let expected = try labels(fromJSON: jsonl)
        XCTAssertEqual(expected.count, 9, "three labels for each of three images")
        // The same photo twice gives the same labels.
        XCTAssertEqual(expected[0..<3].map(\.name), expected[6..<9].map(\.name))
        let names = ["daisy", "dandelion", "roses", "sunflowers", "tulips"]
        XCTAssertTrue(expected.allSatisfy { names.contains($0.name) && names[$0.index] == $0.name }, "\(expected)")

        // json: one array of the same results.
        let array = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try run("json").utf8)) as? [[String: Any]])
        XCTAssertEqual(try labels(fromJSON: array), expected)

        // csv: a header, one row per label.
        let csv = lines(try run("csv"))
        XCTAssertEqual(csv.first, "source,label,index,confidence")
        let fromCSV = csv.dropFirst().map { row -> Label in
            let f = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return Label(source: f[0], name: f[1], index: Int(f[2]) ?? -1, confidence: Double(f[3]) ?? -1)
        }
        XCTAssertEqual(fromCSV, expected)

        // text: "SOURCE: LABEL CONFIDENCE (index N)".
        let fromText = lines(try run("text")).map { line -> Label in
            let colon = line.range(of: ": ", options: .backwards)!
            let words = line[colon.upperBound...].split(separator: " ")
            return Label(source: String(line[..<colon.lowerBound]), name: String(words[0]),
                         index: Int(words[3].dropLast()) ?? -1, confidence: Double(words[1]) ?? -1)
        }
        XCTAssertEqual(fromText, expected)
    }

    /// Files, a quoted pattern and a path list name the same images; `--threads` is taken.
    func testFilesPatternsAndPathLists() throws {
        let folder = try imageFolder()
        let list = folder.appendingPathComponent("list.txt")
        try Data("\(folder.path)/img1.png\n\n\(folder.path)/img9.jpg\n".utf8).write(to: list)
        let fromList = try CLIRunner.run(["label", "--paths-from", list.path, "--model", manifest, "--format", "jsonl", "--threads", "1"])
        XCTAssertEqual(fromList.status, 0, fromList.stderr)
        XCTAssertEqual(lines(fromList.stdout).count, 2)
        let pattern = try CLIRunner.run(["label", "\(folder.path)/img1*.png", "--model", manifest, "--format", "jsonl", "--quiet"])
        XCTAssertEqual(pattern.status, 0, pattern.stderr)
        XCTAssertEqual(lines(pattern.stdout).count, 2, "img1.png and img10.png")
        XCTAssertEqual(lines(pattern.stdout).first, lines(fromList.stdout).first)
        // Two images: a summary on stderr, with the time per image split into stages.
        let summary = try XCTUnwrap(lines(fromList.stderr).last)
        XCTAssertTrue(summary.hasPrefix("objdetect: 2 images, "), summary)
        XCTAssertTrue(summary.contains(" ms decode, ") && summary.contains(" ms preprocess, ") && summary.contains(" ms inference, ")
                      && summary.hasSuffix(" ms postprocess"), summary)
        // No input at all is a usage error.
        XCTAssertEqual(try CLIRunner.run(["label", "--model", manifest]).status, 2)
    }

    /// `--labels FILE` names the classes of a model in place of its own labels; too few names is an error.
    func testLabelsFileNamesTheClasses() throws {
        let folder = try temporaryFolder()
        let names = folder.appendingPathComponent("names.txt")
        try Data("first\nsecond\nthird\nfourth\nfifth\n".utf8).write(to: names)
        let model = SharedData.fixture("automl_flowers/model.tflite").path
        let plain = try CLIRunner.run(["label", png.path, "--model", model, "--format", "jsonl"])
        let named = try CLIRunner.run(["label", png.path, "--model", model, "--labels", names.path, "--format", "jsonl"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(named.status, 0, named.stderr)
        let before = try labels(fromJSON: [try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])])
        let after = try labels(fromJSON: [try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(named.stdout.utf8)) as? [String: Any])])
        let given = ["first", "second", "third", "fourth", "fifth"]
        XCTAssertEqual(after.map(\.index), before.map(\.index))
        XCTAssertEqual(after.map(\.confidence), before.map(\.confidence))
        XCTAssertEqual(after.map(\.name), before.map { given[$0.index] })
        // One image: a one-line summary.
        XCTAssertEqual(lines(named.stderr).count, 1, named.stderr)
        XCTAssertTrue(named.stderr.hasPrefix("objdetect: \(png.path): \(after.count) label") && named.stderr.contains(" ms inference, "), named.stderr)

        try Data("only\ntwo\n".utf8).write(to: names)
        let short = try CLIRunner.run(["label", png.path, "--model", model, "--labels", names.path])
        XCTAssertEqual(short.status, 1)
        XCTAssertEqual(lines(short.stderr).count, 1, short.stderr)
        XCTAssertTrue(short.stderr.hasPrefix("objdetect: the model scores 5 classes but only 2 labels were given"), short.stderr)
    }

    /// An image that cannot be decoded is reported as `objdetect: PATH: message`; the others are
    /// labelled and the run ends with exit 1.
    func testABadImageIsReportedAndTheRunGoesOn() throws {
        let folder = try imageFolder()
        let bad = folder.appendingPathComponent("img5.png")
        try Data("not a png".utf8).write(to: bad)
        let r = try CLIRunner.run(["label", folder.path, "--model", manifest, "--format", "jsonl"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(lines(r.stdout).count, 3, r.stdout)
        let errors = lines(r.stderr)
        XCTAssertEqual(errors.count, 2, r.stderr)
        XCTAssertTrue(errors[0].hasPrefix("objdetect: \(bad.path): "), r.stderr)
        XCTAssertTrue(errors[1].hasPrefix("objdetect: 4 images, ") && errors[1].contains(", 1 failed; per image: "), r.stderr)
    }

    /// A failed write ends the run at once with one line (not a failure per image).
    func testAFullDeviceEndsTheRun() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("no /dev/full") }
        let folder = try imageFolder()
        let r = try CLIRunner.run(["label", folder.path, "--model", manifest, "--format", "jsonl"], stdoutPath: "/dev/full")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "objdetect: cannot write to standard output: No space left on device\n")
    }

    /// SIGINT: the JSON array is closed after the images done, the summary printed, exit 130.
    func testInterruptClosesTheJSONArray() throws {
        let folder = try temporaryFolder()
        for k in 1...1000 {
            XCTAssertEqual(symlink(png.path, folder.appendingPathComponent(String(format: "img_%04d.png", k)).path), 0)
        }
        let process = Process()
        process.executableURL = try CLIRunner.executable()
        process.arguments = ["label", folder.path, "--model", manifest, "--format", "json", "--threads", "1"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var stdout = out.fileHandleForReading.availableData
        XCTAssertFalse(stdout.isEmpty)
        kill(process.processIdentifier, SIGINT)
        stdout += out.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130, stderr)
        let results = try XCTUnwrap(try JSONSerialization.jsonObject(with: stdout) as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(results.count, 1)
        XCTAssertLessThan(results.count, 1000, "the run stopped early")
        let summary = try XCTUnwrap(lines(stderr).last)
        let counted = results.count == 1 ? "1 image, " : "\(results.count) images, "
        XCTAssertTrue(summary.hasPrefix("objdetect: \(counted)") && summary.hasSuffix("; interrupted"), stderr)
    }

    /// `objdetect --version`: the version and the kernel tier this CPU runs, which on Linux is
    /// read here from /proc/cpuinfo's flags (AVX-512 F/BW/CD/DQ/VL + VNNI, else AVX2 + FMA, else SSE2).
    func testVersionNamesTheKernelTier() throws {
        let r = try CLIRunner.run(["--version"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let line = r.stdout.trimmingCharacters(in: .newlines)
        let pattern = #"^objdetect [0-9]+\.[0-9]+\.[0-9]+(-[a-z0-9.]+)? \(kernels: (sse2|avx2|avx512(\+vbmi)?(\+amx)?|neon), (x86_64|arm64|other)\)$"#
        XCTAssertNotNil(line.range(of: pattern, options: .regularExpression), line)
        XCTAssertEqual(try CLIRunner.run(["--version", "extra"]).status, 2)
        #if os(Linux) && arch(x86_64)
        guard ProcessInfo.processInfo.environment["OBJDETECT_ISA"] == nil,
              let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let flagLine = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return }
        let flags = Set(flagLine.split(separator: " ").map(String.init))
        let avx2 = ["avx", "avx2", "fma", "f16c", "bmi1", "bmi2", "abm", "movbe"].allSatisfy(flags.contains)
        let avx512 = avx2 && ["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl", "avx512_vnni"].allSatisfy(flags.contains)
        // AMX also needs the OS's grant per process, which /proc/cpuinfo does not show: asked here too.
        let amx = avx512 && flags.contains("amx_tile") && flags.contains("amx_int8") && InstructionSetTier.hasTileMatrixBytes
        let tier = (avx512 ? (flags.contains("avx512vbmi") ? "avx512+vbmi" : "avx512") : avx2 ? "avx2" : "sse2") + (amx ? "+amx" : "")
        XCTAssertTrue(line.hasSuffix("(kernels: \(tier), x86_64)"), "\(line) against /proc/cpuinfo's \(tier)")
        #endif
    }
}
