/// An option of `ObjectDetectorOptions` or `ImageLabelerOptions` that an error names or
/// suggests a value for. Its raw value is the Swift property name; a front end with names of
/// its own (a command line's flags) maps the case to its name, so no message is parsed.
///
/// ```swift
/// if case let .modelMismatch(_, fix) = error, let setting = fix.settings.first {
///     print(setting.option, setting.value)   // decoder yolov8
/// }
/// ```
public enum TaskOption: String, Sendable, CaseIterable, CustomStringConvertible {
    case model, runningMode, resultHandler
    case maxResults
    case scoreThreshold, fallbackScoreThreshold, confidenceThreshold
    case categoryAllowlist, categoryDenylist, labels, displayNamesLocale
    case shouldEnableMultipleObjects, shouldEnableClassification, classifierModel, maxPerObjectLabelCount
    case classificationConfidenceThreshold, logitHandling, classifierLogitHandling
    case decoder, decoderConfig, resizeMode, resampler, channelOrder, yoloIoUThreshold, tracker
    case threadCount, maxArenaBytes, maxMultiplyAccumulates

    /// The Swift property name, e.g. `decoder`.
    public var description: String { rawValue }
}

/// How messages name options: the library's Swift property names in backquotes ("set
/// `decoder` to yolov8"), or a front end's own names ("pass --decoder yolov8").
///
/// ```swift
/// let flags = OptionNaming(name: { "--\($0)" }, setting: { "pass --\($0) \($1)" })
/// print(error.description(naming: flags))
/// ```
public struct OptionNaming: Sendable {
    /// The name of an option mentioned in words: "`decoderConfig`".
    public let name: @Sendable (TaskOption) -> String
    /// A suggestion to set an option to a value: "set `decoder` to yolov8".
    public let setting: @Sendable (TaskOption, String) -> String

    public init(name: @escaping @Sendable (TaskOption) -> String,
                setting: @escaping @Sendable (TaskOption, String) -> String) {
        self.name = name
        self.setting = setting
    }

    /// The library's naming: Swift property names in backquotes.
    public static let swift = OptionNaming(name: { "`\($0.rawValue)`" }, setting: { "set `\($0.rawValue)` to \($1)" })
}

/// Words that name options as data, so that each front end names them its own way: the
/// library's `description` with Swift names, a command line with its flags
/// (`description(naming:)`). Written as a string with interpolations:
///
/// ```swift
/// let fix: OptionText = "\(set: .decoder, to: "yolov8"), or give a \(option: .decoderConfig)"
/// print(fix)   // set `decoder` to yolov8, or give a `decoderConfig`
/// ```
public struct OptionText: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// One piece of the text.
    public enum Part: Sendable, Equatable {
        /// Words.
        case text(String)
        /// An option named in the words.
        case option(TaskOption)
        /// A suggestion to set an option to a value.
        case setting(TaskOption, value: String)
    }

    /// The pieces in order.
    public private(set) var parts: [Part]

    public init(parts: [Part]) { self.parts = parts }

    public init(stringLiteral value: String) { parts = value.isEmpty ? [] : [.text(value)] }

    public init(stringInterpolation: StringInterpolation) { parts = stringInterpolation.parts }

    /// The options the text suggests values for, with the values, in order.
    public var settings: [(option: TaskOption, value: String)] {
        parts.compactMap { if case let .setting(option, value) = $0 { (option, value) } else { nil } }
    }

    /// The text with options named by `naming`.
    public func description(naming: OptionNaming) -> String {
        parts.map { part in
            switch part {
            case let .text(words): return words
            case let .option(option): return naming.name(option)
            case let .setting(option, value): return naming.setting(option, value)
            }
        }.joined()
    }

    /// The text with Swift property names.
    public var description: String { description(naming: .swift) }

    /// The pieces of an `OptionText` literal.
    public struct StringInterpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { parts.append(.text(literal)) }
        }

        /// Any value, as its description.
        public mutating func appendInterpolation<T>(_ value: T) {
            parts.append(.text(String(describing: value)))
        }

        /// An option named in the words: "`decoderConfig`" or "--decoder-config".
        public mutating func appendInterpolation(option: TaskOption) {
            parts.append(.option(option))
        }

        /// A suggestion to set `option` to `value`: "set `decoder` to yolov8" or "pass --decoder yolov8".
        public mutating func appendInterpolation(set option: TaskOption, to value: String) {
            parts.append(.setting(option, value: value))
        }

        /// Another option text, inline.
        public mutating func appendInterpolation(_ text: OptionText) {
            parts += text.parts
        }
    }
}
