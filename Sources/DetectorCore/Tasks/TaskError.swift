import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
/// Why a task (detector, labeler) could not be created or could not process an input: the one
/// error type `ObjectDetector` and `ImageLabeler` throw. Errors of the layers below (reading the
/// model, running it, converting the image, decoding, tracking) arrive wrapped, so a caller can
/// switch over every cause; each prints as one sentence.
///
/// ```swift
/// do {
///     let detector = try ObjectDetector(options: options)
/// } catch .model(let error) {
///     print("not a usable .tflite file:", error)
/// } catch {
///     print(error)   // e.g. "invalid `maxResults` option: value must be at least 1, or nil for no limit"
/// }
/// ```
public enum TaskError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Two options that exclude each other were both set.
    case conflictingOptions(OptionText)
    /// An option has a value outside its range.
    case invalidOption(name: TaskOption, reason: String)
    /// An option that another option needs is missing.
    case missingOption(name: TaskOption, neededBy: OptionText)
    /// No embedded model has this name.
    case unknownEmbeddedModel(name: String, known: [String])
    /// The embedded models folder could not be found.
    case embeddedModelsMissing(searched: [String])
    /// The model could not be used by this task.
    case unsupportedModel(OptionText)
    /// An AutoML manifest names a file outside its own folder (an absolute path, or `..`
    /// segments that climb out of it).
    case manifestPathOutsideFolder(manifest: String, field: String, name: String)
    /// The call does not fit the detector's running mode.
    case wrongRunningMode(expected: RunningMode, actual: RunningMode)
    /// The model does not fit how it is to be used (decoder, labels, task); `fix` says what to
    /// set instead, with the options and values as data (`fix.settings`).
    case modelMismatch(OptionText, fix: OptionText)
    /// An allow or deny list names labels the model does not have.
    case unknownCategories(option: TaskOption, names: [String], closest: [String: [String]])
    /// A video or live-stream frame's timestamp is not later than the previous frame's
    /// (timestamps must increase strictly).
    case timestampNotIncreasing(previousMs: Int64, receivedMs: Int64)
    /// A live-stream frame arrived after `finish()`.
    case streamFinished
    /// The model file could not be read (not a TFLite FlatBuffer, malformed, unreadable).
    case model(TFLiteModelError)
    /// The interpreter could not prepare or run the model (an unsupported op, a limit, a shape).
    case interpreter(InterpreterError)
    /// A decoder config is invalid, or a model's outputs do not fit its decoder.
    case detection(DetectionError)
    /// The image could not be converted to the model's input.
    case image(ImageResizeError)
    /// An image buffer was inconsistent (size, format).
    case imageBuffer(ImageBufferError)
    /// The tracker's configuration is invalid.
    case tracker(TrackerError)
    /// Another failure, e.g. of the file system; the sentence says what and where.
    case failed(String)

    /// The sentence, naming options by their Swift property names.
    public var description: String { description(naming: .swift) }

    /// The sentence, naming options as `naming` does (a command line's flags, say).
    public func description(naming: OptionNaming) -> String {
        switch self {
        case let .conflictingOptions(message):
            return message.description(naming: naming)
        case let .invalidOption(name, reason):
            return "invalid \(naming.name(name)) option: \(reason)"
        case let .missingOption(name, neededBy):
            return "\(neededBy.description(naming: naming)) requires the \(naming.name(name)) option to be set"
        case let .unknownEmbeddedModel(name, known):
            return "no embedded model is named '\(name)' (the embedded models are \(known.joined(separator: ", ")); any other model is a .tflite file, given as ModelSource.file(path))"
        case let .embeddedModelsMissing(searched):
            return "the embedded models folder was not found (looked in \(searched.joined(separator: ", "))); copy the objdetect_DetectorCore.resources folder from the build beside the executable, or set OBJDETECT_MODELS to a Models folder"
        case let .unsupportedModel(message):
            return message.description(naming: naming)
        case let .manifestPathOutsideFolder(manifest, field, name):
            return "the AutoML manifest \(manifest) names \(field) '\(name)', which is outside the manifest's folder (absolute paths and '..' that leave it are refused)"
        case let .wrongRunningMode(expected, actual):
            return "this call needs running mode \(expected.rawValue), but the detector was created with \(actual.rawValue)"
        case let .modelMismatch(what, fix):
            return "\(what.description(naming: naming)); \(fix.description(naming: naming))."
        case let .unknownCategories(option, names, closest):
            let each = names.map { name -> String in
                let near = closest[name] ?? []
                return near.isEmpty ? "'\(name)'" : "'\(name)' (closest: \(near.map { "'\($0)'" }.joined(separator: ", ")))"
            }
            return "\(naming.name(option)) names \(names.count == 1 ? "a label" : "labels") the model does not have: \(each.joined(separator: "; "))."
        case let .timestampNotIncreasing(previous, received):
            return "Frame timestamp \(received) ms is not later than the previous frame's \(previous) ms; timestamps must increase strictly."
        case .streamFinished:
            return "The live stream is finished and accepts no more frames."
        case let .model(error): return error.description
        case let .interpreter(error): return error.description
        case .detection(.allowlistAndDenylist):
            return TaskError.conflictingOptions(TaskOptionChecks.exclusiveLists).description(naming: naming)
        case let .detection(error): return error.description
        case let .image(error): return error.description
        case let .imageBuffer(error): return error.description
        case let .tracker(error): return error.description
        case let .failed(message): return message
        }
    }

    /// The task error for any error a lower layer threw: its own case when it has one, else
    /// `.failed` with its description.
    init(wrapping error: any Error) {
        switch error {
        case let e as TaskError: self = e
        case let e as TFLiteModelError: self = .model(e)
        case let e as InterpreterError: self = .interpreter(e)
        case let e as DetectionError: self = .detection(e)
        case let e as ImageResizeError: self = .image(e)
        case let e as ImageBufferError: self = .imageBuffer(e)
        case let e as TrackerError: self = .tracker(e)
        default: self = .failed(String(describing: error))
        }
    }

    /// Runs `body`, turning whatever it throws into a `TaskError`.
    static func wrapping<T>(_ body: () throws -> T) throws(TaskError) -> T {
        do { return try body() } catch { throw TaskError(wrapping: error) }
    }
}
