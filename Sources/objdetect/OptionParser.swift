import Foundation
import DetectorCore

/// The arguments of one subcommand after parsing against its `CommandSpec`: positional
/// arguments and the options given, already checked against their kinds and ranges.
struct ParsedOptions {
    let spec: CommandSpec
    private(set) var positional: [String] = []
    /// Values by canonical option name, in the order given ("" for flags).
    private var values: [String: [String]] = [:]

    /// What parsing found: the options, or a request for help.
    enum Outcome {
        case options(ParsedOptions)
        case help
    }

    /// Parses `--opt v`, `--opt=v`, flags and positional arguments in any order; `--` ends the
    /// options. `-h`/`--help` anywhere before `--` asks for help. A value taken from the next
    /// argument may not look like an option (write `--opt=-x` for that); an unknown option, a
    /// missing or out-of-range value and a repeated option are usage errors.
    static func parse(_ arguments: [String], spec: CommandSpec) throws -> Outcome {
        let beforeTerminator = arguments.prefix { $0 != "--" }
        if beforeTerminator.contains("--help") || beforeTerminator.contains("-h") { return .help }
        var parsed = ParsedOptions(spec: spec)
        var i = 0
        var optionsEnded = false
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if optionsEnded || arg == "-" || !arg.hasPrefix("-") {
                parsed.positional.append(arg)
                continue
            }
            if arg == "--" { optionsEnded = true; continue }
            var name = arg
            var inline: String?
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            guard let option = spec.option(named: name) else {
                throw UsageError("unknown option \(name) for '\(spec.name)'\(suggestion(for: name, in: spec))")
            }
            let value: String
            if !option.takesValue {
                if inline != nil { throw UsageError("\(option.name) takes no value, got '\(arg)'") }
                value = ""
            } else if let inline {
                value = inline
            } else {
                guard i < arguments.count else {
                    throw UsageError("\(option.name) needs a value (\(option.missingValueHint))")
                }
                let next = arguments[i]
                if looksLikeOption(next) {
                    throw UsageError("\(option.name) needs a value, got the option '\(next)' (write \(option.name)=\(next) if that is the value)")
                }
                value = next
                i += 1
            }
            try option.validate(value)
            if !option.repeatable, parsed.values[option.name] != nil {
                throw UsageError("\(option.name) is given more than once")
            }
            parsed.values[option.name, default: []].append(value)
        }
        return .options(parsed)
    }

    /// "-x", "--x" (but not "-" alone or a negative number).
    static func looksLikeOption(_ s: String) -> Bool {
        s.count > 1 && s.hasPrefix("-") && Double(s) == nil
    }

    /// "; did you mean --model?" when an option is close in spelling, or shares the first letter
    /// of a short flag (`-m`); empty otherwise.
    static func suggestion(for name: String, in spec: CommandSpec) -> String {
        if let replacement = spec.renamed[name] { return "; did you mean \(replacement)?" }
        let names = spec.options.map(\.name) + ["--help"]
        if !name.hasPrefix("--"), name.count == 2, let letter = name.last {
            let matches = names.filter { $0.dropFirst(2).first == letter }
            if !matches.isEmpty { return " (options are long, e.g. " + matches.prefix(3).joined(separator: ", ") + ")" }
        }
        return closest(to: name, among: names).map { "; did you mean \($0)?" } ?? ""
    }

    /// The candidate nearest in edit distance when it is near enough (a third of the length),
    /// or the only candidate `word` is a prefix of.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let prefixed = candidates.filter { $0.hasPrefix(word) }
        if prefixed.count == 1 { return prefixed[0] }
        let scored = candidates.map { ($0, LabelSuggestions.editDistance(Array(word), Array($0))) }.min { $0.1 < $1.1 }
        guard let (best, distance) = scored, distance <= max(2, word.count / 3) else { return nil }
        return best
    }

    // MARK: Reading values (checked by `parse`, so these do not fail)

    func given(_ name: String) -> Bool { values[canonical(name)] != nil }
    func flag(_ name: String) -> Bool { given(name) }
    func string(_ name: String) -> String? { values[canonical(name)]?.first }
    func strings(_ name: String) -> [String] { values[canonical(name)] ?? [] }
    func int(_ name: String) -> Int? { string(name).flatMap { Int($0) } }
    func double(_ name: String) -> Double? { string(name).flatMap { Double($0) } }
    func float(_ name: String) -> Float? { double(name).map { Float($0) } }
    /// A comma-separated value as its trimmed, non-empty items.
    func list(_ name: String) -> [String] {
        (string(name) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The options given, in declaration order.
    var givenOptions: [OptionSpec] { spec.options.filter { values[$0.name] != nil } }

    /// A usage error for the first option given that belongs to another mode than `mode`.
    func rejectOptions(outside mode: String) throws {
        // An option's `mode` names one mode, or several separated by "|".
        if let stray = givenOptions.first(where: { option in
            option.mode.map { !$0.split(separator: "|").contains(Substring(mode)) } ?? false
        }) {
            throw UsageError("\(stray.name) applies to \(spec.modeOption) \(stray.mode ?? "") only, not \(spec.modeOption) \(mode)")
        }
    }

    /// A usage error when both options are given.
    func rejectBoth(_ a: String, _ b: String) throws {
        if given(a) && given(b) { throw UsageError("\(a) and \(b) cannot be used together") }
    }

    private func canonical(_ name: String) -> String { spec.option(named: name)?.name ?? name }
}
