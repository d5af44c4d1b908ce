import Foundation

/// A small argument reader: flags (`--json`), options with values (`--runs 5` or `--runs=5`)
/// and positional arguments, in any order. Unknown flags are usage errors.
struct ArgumentReader {
    private(set) var positional: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// - Parameters:
    ///   - arguments: the arguments after the subcommand name.
    ///   - valueOptions: options that take a value (with leading dashes, e.g. "--runs").
    ///   - flagOptions: options without a value.
    init(_ arguments: [String], valueOptions: Set<String>, flagOptions: Set<String>) throws {
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            if arg.hasPrefix("--") && arg.count > 2 {
                var name = arg
                var inlineValue: String? = nil
                if let eq = arg.firstIndex(of: "=") {
                    name = String(arg[..<eq])
                    inlineValue = String(arg[arg.index(after: eq)...])
                }
                if valueOptions.contains(name) {
                    let value: String
                    if let v = inlineValue { value = v } else {
                        guard i + 1 < arguments.count else { throw UsageError("option \(name) needs a value") }
                        i += 1
                        value = arguments[i]
                    }
                    options[name, default: []].append(value)
                } else if flagOptions.contains(name), inlineValue == nil {
                    flags.insert(name)
                } else {
                    throw UsageError("unknown option \(arg)")
                }
            } else {
                positional.append(arg)
            }
            i += 1
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { options[name]?.last }
    func values(_ name: String) -> [String] { options[name] ?? [] }

    func int(_ name: String) throws -> Int? {
        guard let v = value(name) else { return nil }
        guard let n = Int(v) else { throw UsageError("option \(name) needs a whole number, got '\(v)'") }
        return n
    }

    func double(_ name: String) throws -> Double? {
        guard let v = value(name) else { return nil }
        guard let d = Double(v), d.isFinite else { throw UsageError("option \(name) needs a number, got '\(v)'") }
        return d
    }
}
