// Fuzz targets of the text formats: MOTChallenge detection files, decoder-config JSON and
// AutoML manifests.
import Foundation
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

func fuzzMOT(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let rows = try? MOTFormat.parse(text) {
        _ = MOTFormat.groupByFrame(rows)
    }
    _ = MOTFormat.frameRate(seqinfo: text)
    // The evaluator (`objdetect eval`): the rows as ground truth against themselves moved and
    // renumbered as results (small inputs only: its cost grows with frames × boxes²).
    if let boxes = try? MOTBox.parse(text), boxes.count <= 300, boxes.allSatisfy({ $0.frame <= 2000 }) {
        let results = boxes.map { box -> MOTBox in
            var moved = box
            moved.x += 1
            moved.id = box.id % 7
            return moved
        }
        _ = try? MOTEvaluator.evaluate([MOTSequence(name: "fuzz", groundTruth: boxes, results: results)])
    }
}

func fuzzDecoderConfig(_ bytes: [UInt8]) {
    guard let config = try? DetectorDecoderConfig(jsonData: Data(bytes)) else { return }
    // What we write must read back.
    guard let json = try? config.jsonData() else { fatalError("a parsed decoder config does not encode") }
    do { _ = try DetectorDecoderConfig(jsonData: json) } catch { fatalError("a decoder config does not read back: \(error)") }
}

/// A folder holding a model and a labels file; each input becomes its `manifest.json`.
private let manifestFolder: String = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()
    let folder = base + "objdetect-fuzz-automl-\(getpid())"
    try? FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: folder + "/model.tflite", contents: Data([0, 1, 2, 3]))
    _ = FileManager.default.createFile(atPath: folder + "/sub/labels.txt", contents: Data("a\nb\n".utf8))
    // Gone when the fuzzer exits (one folder per run had piled up in /dev/shm).
    atexit(removeManifestFolder)
    return folder
}()

private func removeManifestFolder() { try? FileManager.default.removeItem(atPath: manifestFolder) }

func fuzzAutoMLManifest(_ bytes: [UInt8]) {
    let path = manifestFolder + "/manifest.json"
    // Plain write(2): FileManager's atomic write costs milliseconds a run.
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { return }
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    guard written == bytes.count else { return }
    if let manifest = try? AutoMLManifest(contentsOfFile: path) {
        _ = manifest.modelPath
    }
}
