/// Why a task (detector, labeler) could not be created or could not process an input.
public enum TaskError: Error, Equatable, CustomStringConvertible {
    /// Two options that exclude each other were both set.
    case conflictingOptions(String)
    /// An option has a value outside its range.
    case invalidOption(name: String, reason: String)
    /// An option that another option needs is missing.
    case missingOption(name: String, neededBy: String)
    /// No embedded model has this name.
    case unknownEmbeddedModel(name: String, known: [String])
    /// The embedded models folder could not be found.
    case embeddedModelsMissing(searched: [String])
    /// The model could not be used by this task.
    case unsupportedModel(String)
    /// An AutoML manifest names a file outside its own folder (an absolute path, or `..`
    /// segments that climb out of it).
    case manifestPathOutsideFolder(manifest: String, field: String, name: String)
    /// The call does not fit the detector's running mode.
    case wrongRunningMode(expected: RunningMode, actual: RunningMode)
    /// The model does not fit how it is to be used (decoder, labels, task); `fix` says what to set instead.
    case modelMismatch(String, fix: String)
    /// An allow or deny list names labels the model does not have.
    case unknownCategories(option: String, names: [String], closest: [String: [String]])

    public var description: String {
        switch self {
        case let .conflictingOptions(message):
            return message
        case let .invalidOption(name, reason):
            return "Invalid `\(name)` option: \(reason)."
        case let .missingOption(name, neededBy):
            return "`\(neededBy)` requires the `\(name)` option to be set."
        case let .unknownEmbeddedModel(name, known):
            return "no embedded model is named '\(name)' (known: \(known.joined(separator: ", ")))"
        case let .embeddedModelsMissing(searched):
            return "the embedded models folder was not found (looked in \(searched.joined(separator: ", "))); set OBJDETECT_MODELS to the package's Models folder"
        case let .unsupportedModel(message):
            return message
        case let .manifestPathOutsideFolder(manifest, field, name):
            return "the AutoML manifest \(manifest) names \(field) '\(name)', which is outside the manifest's folder (absolute paths and '..' that leave it are refused)"
        case let .wrongRunningMode(expected, actual):
            return "this call needs running mode \(expected.rawValue), but the detector was created with \(actual.rawValue)"
        case let .modelMismatch(what, fix):
            return "\(what); \(fix)."
        case let .unknownCategories(option, names, closest):
            let each = names.map { name -> String in
                let near = closest[name] ?? []
                return near.isEmpty ? "'\(name)'" : "'\(name)' (closest: \(near.map { "'\($0)'" }.joined(separator: ", ")))"
            }
            return "`\(option)` names \(names.count == 1 ? "a label" : "labels") the model does not have: \(each.joined(separator: "; "))."
        }
    }
}
