import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
import Foundation

/// Where a task's model comes from — a detector's (`ObjectDetectorOptions.model`) or a classifier's
/// (`ImageLabelerOptions.model`, `ObjectDetectorOptions.classifierModel`).
///
/// ```swift
/// let a = ModelSource.embedded("face")                 // shipped in Models/
/// let b = ModelSource.file("/path/to/detector.tflite")
/// let c = ModelSource.localModel(path: "flowers/manifest.json")   // .autoMLManifest
/// ```
public enum ModelSource: Sendable, Equatable {
    /// A `.tflite` file on disk.
    case file(String)
    /// A `.tflite` model already in memory.
    case data(Data)
    /// A model shipped in the package's `Models/` folder, by name (see `ModelCatalog`).
    case embedded(String)
    /// An AutoML Vision Edge export described by its `manifest.json` (`{"modelFile", "labelsFile",
    /// "modelType"}`): an image classifier, for `ImageLabeler` and per-object classification.
    case autoMLManifest(String)

    /// ML Kit's `LocalModel(path:)`: a `.tflite`, or an AutoML manifest (a `.json` file).
    ///
    /// ```swift
    /// let labeler = try ImageLabeler(options: ImageLabelerOptions(model: .localModel(path: "flowers/manifest.json")))
    /// ```
    public static func localModel(path: String) -> ModelSource {
        PathName.pathExtension(path).lowercased() == "json" ? .autoMLManifest(path) : .file(path)
    }

    /// A short name for messages and output (`face`, the file path, or `<data>`).
    public var displayName: String {
        switch self {
        case let .file(path): return path
        case .data: return "<data>"
        case let .embedded(name): return name
        case let .autoMLManifest(path): return path
        }
    }
}

/// The models shipped in `Models/` and how to find them.
///
/// The models are the package's SwiftPM resources (`Sources/DetectorCore/Models`, linked from the
/// top-level `Models/`), so an app that depends on DetectorCore gets them in its resource bundle.
/// The folder is looked up relative to the executable, never the current directory or the
/// machine the package was built on: first `$OBJDETECT_MODELS`, then the resource bundle beside
/// the executable (or among an app bundle's resources), then `Models/` beside the executable or
/// in its parent folder (an installed copy).
public enum ModelCatalog {
    /// Embedded model names and their files, default first: `objects` (SSD MobileNet v1, the
    /// 90 COCO categories), `face` (BlazeFace full range), `face-short` (BlazeFace short
    /// range), `palm` (MediaPipe's palm detector).
    public static let models: [(name: String, file: String)] = [
        ("objects", "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite"),
        ("face", "face_detection_full_range.tflite"),
        ("face-short", "face_detection_short_range.tflite"),
        ("palm", "palm_detection_lite.tflite"),
    ]

    /// The default embedded detector: `objects`, a general-purpose COCO detector (people,
    /// vehicles, animals, everyday things), as `yolo predict` or ML Kit's base detector give.
    public static let defaultModelName = "objects"

    /// The score threshold the TensorFlow Lite example apps use with an embedded model whose
    /// file sets none (`objects`: 0.5), or nil. `objdetect` applies it when neither
    /// `--score-threshold` nor the model sets one; the library does not, unless asked through
    /// `ObjectDetectorOptions.fallbackScoreThreshold`.
    public static func suggestedScoreThreshold(for name: String) -> Float? {
        name == "objects" ? 0.5 : nil
    }

    /// The score threshold for detectors whose file sets none, as ultralytics' `conf`
    /// default (0.25); what `objdetect` applies to models other than the embedded ones that
    /// have a `suggestedScoreThreshold`.
    public static let genericScoreThreshold: Float = 0.25

    /// The embedded models' names, default first.
    public static var names: [String] { models.map(\.name) }

    /// Candidate folders, in search order.
    static func candidateFolders() -> [URL] {
        var result: [URL] = []
        if let env = ProcessInfo.processInfo.environment["OBJDETECT_MODELS"], !env.isEmpty {
            result.append(URL(fileURLWithPath: env))
        }
        // The package's resource bundle (SwiftPM copies `Sources/DetectorCore/Models` into it, beside
        // the executable; in an app bundle, among its resources). Looked up by hand rather than
        // through `Bundle.module`, whose accessor stops the process when the bundle is missing (a
        // binary copied without it) and falls back to the build machine's paths.
        let places = [Bundle.main.bundleURL, Bundle.main.resourceURL].compactMap { $0 }
        for place in places {
            for name in ["objdetect_DetectorCore.resources", "objdetect_DetectorCore.bundle"] {
                let candidate = place.appendingPathComponent(name)
                if let bundle = Bundle(url: candidate), let models = bundle.url(forResource: "Models", withExtension: nil),
                   !result.contains(models) {
                    result.append(models)
                }
            }
        }
        // An installed copy: `Models/` beside the executable or one folder up (`bin/objdetect`
        // with `Models/` beside `bin/`).
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        let folder = executable.resolvingSymlinksInPath().deletingLastPathComponent()
        result.append(folder.appendingPathComponent("Models"))
        result.append(folder.deletingLastPathComponent().appendingPathComponent("Models"))
        return result
    }

    /// The path of an embedded model.
    public static func path(for name: String) throws -> String {
        guard let entry = models.first(where: { $0.name == name }) else {
            throw TaskError.unknownEmbeddedModel(name: name, known: names)
        }
        let folders = candidateFolders()
        for folder in folders {
            let path = folder.appendingPathComponent(entry.file).path
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        throw TaskError.embeddedModelsMissing(searched: folders.map(\.path))
    }

    /// Whether `name` is an embedded model's name.
    public static func isEmbedded(_ name: String) -> Bool { models.contains { $0.name == name } }
}
