/// What one command-line option takes: nothing (a flag), text, a whole number or a number in a
/// range, one of a few words, or a comma-separated list.
enum OptionKind: Sendable {
    case flag
    case text
    /// A whole number in `range`.
    case int(ClosedRange<Int>)
    /// A finite number from `min` (excluded when `minExcluded`) to `max`.
    case number(min: Double, max: Double, minExcluded: Bool = false)
    case choice([String])
    /// Comma-separated words (`--allow cat,dog`).
    case list
}

/// One option a subcommand declares: everything parsing, range checks and `--help` need.
///
/// ```swift
/// OptionSpec("--score-threshold", .number(min: 0, max: 1), value: "T", default: "the model's", help: "drop objects below this score")
/// ```
struct OptionSpec: Sendable {
    /// With the leading dashes: "--runs".
    let name: String
    let kind: OptionKind
    /// The placeholder in help ("N", "FILE"); choices print their words instead.
    let valueName: String
    /// How the default reads in help; nil: no default worth printing.
    let defaultText: String?
    let help: String
    /// May be given more than once (each value is kept); otherwise a repeat is a usage error.
    var repeatable = false
    /// The mode this option belongs to (e.g. "stream"); nil: every mode. Giving it in another
    /// mode is a usage error (see `ParsedOptions.rejectOptions(outside:)`).
    var mode: String? = nil
    /// Other names accepted for the same option (old spellings).
    var aliases: [String] = []

    init(_ name: String, _ kind: OptionKind, value: String = "", default defaultText: String? = nil, help: String,
         repeatable: Bool = false, mode: String? = nil, aliases: [String] = []) {
        self.name = name
        self.kind = kind
        self.valueName = value
        self.defaultText = defaultText
        self.help = help
        self.repeatable = repeatable
        self.mode = mode
        self.aliases = aliases
    }

    var takesValue: Bool {
        if case .flag = kind { return false }
        return true
    }

    /// "--mode single|stream", "--runs N", "--quiet".
    var synopsis: String {
        switch kind {
        case .flag: return name
        case let .choice(words): return "\(name) \(valueName.isEmpty ? words.joined(separator: "|") : valueName)"
        default: return "\(name) \(valueName.isEmpty ? "VALUE" : valueName)"
        }
    }

    /// What a value must be, as it reads in messages and help: "a number from 0 to 1".
    var expectation: String {
        switch kind {
        case .flag: return "no value"
        case .text: return "a value"
        case .list: return "a comma-separated list"
        case let .int(range): return "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case let .number(min, max, excluded):
            return excluded ? "a number above \(shortestText(min)) and at most \(shortestText(max))"
                            : "a number from \(shortestText(min)) to \(shortestText(max))"
        case let .choice(words): return "one of \(words.joined(separator: ", "))"
        }
    }

    /// What to give when the value is missing: the value's name for free text ("NAME|PATH"),
    /// else what it must be ("a number from 0 to 1").
    var missingValueHint: String {
        if case .text = kind, !valueName.isEmpty { return valueName }
        return expectation
    }

    /// Checks one value; the message shape is the same for every option:
    /// "--score-threshold must be a number from 0 to 1, got '2'".
    func validate(_ value: String) throws {
        let ok: Bool
        switch kind {
        case .flag, .text: ok = true
        case .list: ok = !value.split(separator: ",").allSatisfy { $0.allSatisfy(\.isWhitespace) }
        case let .int(range): ok = Int(value).map(range.contains) ?? false
        case let .number(min, max, excluded):
            if let d = Double(value), d.isFinite { ok = (excluded ? d > min : d >= min) && d <= max } else { ok = false }
        case let .choice(words): ok = words.contains(value)
        }
        if !ok { throw UsageError("\(name) must be \(expectation), got '\(value)'") }
    }

}

/// A subcommand's declaration: its name, usage line, one-line summary, options and notes.
struct CommandSpec: Sendable {
    let name: String
    /// After "usage: ", e.g. "objdetect bench MODEL [options]".
    let usage: String
    let summary: String
    let options: [OptionSpec]
    /// Extra help paragraphs (modes, examples).
    var notes: [String] = []
    /// Old option names and what replaced them, for "did you mean" after a rename.
    var renamed: [String: String] = [:]
    /// The option that picks the mode options may be tied to (`OptionSpec.mode`).
    var modeOption = "--mode"

    func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name || $0.aliases.contains(name) }
    }
}

extension OptionSpec {
    /// The same option with another default in help.
    func withDefault(_ text: String) -> OptionSpec {
        OptionSpec(name, kind, value: valueName, default: text, help: help, repeatable: repeatable, mode: mode, aliases: aliases)
    }

    /// The same option, tied to one mode.
    func only(in mode: String) -> OptionSpec {
        OptionSpec(name, kind, value: valueName, default: defaultText, help: help, repeatable: repeatable, mode: mode, aliases: aliases)
    }
}
