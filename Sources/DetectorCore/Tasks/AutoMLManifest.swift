import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
import Foundation

/// An AutoML Vision Edge export: the model file and the labels file (one label per line) named
/// by `manifest.json`, relative to the manifest's folder. A name must stay inside that folder:
/// an absolute path, or `..` segments that climb out of it, throws
/// `TaskError.manifestPathOutsideFolder` (the check is on the names; `a/../b.txt` is `b.txt`).
///
/// ```swift
/// let manifest = try AutoMLManifest(contentsOfFile: "flowers/manifest.json")
/// print(manifest.modelPath)   // flowers/model.tflite
/// ```
package struct AutoMLManifest: Sendable, Equatable {
    package var modelPath: String
    package var labelsPath: String?
    package var modelType: String?

    package init(contentsOfFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TaskError.invalidOption(name: .model, reason: "the AutoML manifest \(path) cannot be read")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data), let dict = object as? [String: Any] else {
            throw TaskError.invalidOption(name: .model, reason: "the AutoML manifest \(path) is not a JSON object")
        }
        guard let modelFile = dict["modelFile"] as? String, !modelFile.isEmpty else {
            throw TaskError.invalidOption(name: .model, reason: "the AutoML manifest \(path) has no \"modelFile\" string")
        }
        let folder = PathName.deletingLastComponent(path)
        func resolve(_ name: String, field: String) throws -> String {
            guard let inside = Self.pathInsideFolder(name) else {
                throw TaskError.manifestPathOutsideFolder(manifest: path, field: field, name: name)
            }
            return (folder as NSString).appendingPathComponent(inside)
        }
        modelPath = try resolve(modelFile, field: "modelFile")
        guard FileManager.default.fileExists(atPath: modelPath) else {
            throw TaskError.invalidOption(name: .model, reason: "the AutoML manifest \(path) names model file \(modelFile), which does not exist")
        }
        if let labels = dict["labelsFile"] {
            guard let name = labels as? String, !name.isEmpty else {
                throw TaskError.invalidOption(name: .model, reason: "the AutoML manifest \(path) has a \"labelsFile\" that is not a string")
            }
            let resolved = try resolve(name, field: "labelsFile")
            guard FileManager.default.fileExists(atPath: resolved) else {
                throw TaskError.invalidOption(name: .model, reason: "the AutoML manifest \(path) names labels file \(name), which does not exist")
            }
            labelsPath = resolved
        }
        modelType = dict["modelType"] as? String
    }

    /// `name` as a path below the manifest's folder with `.` and `..` segments resolved, or nil
    /// when it is absolute or a `..` climbs above the folder.
    static func pathInsideFolder(_ name: String) -> String? {
        guard !name.hasPrefix("/") else { return nil }
        var segments: [Substring] = []
        for segment in name.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..":
                guard !segments.isEmpty else { return nil }
                segments.removeLast()
            default: segments.append(segment)
            }
        }
        return segments.isEmpty ? "." : segments.joined(separator: "/")
    }
}
