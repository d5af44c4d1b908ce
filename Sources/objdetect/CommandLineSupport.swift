import Foundation

/// A mistake in how the command was called (exit code 2).
struct UsageError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// A failure that is not a usage error but has no typed error of its own (exit code 1).
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

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

/// Writes a JSON value (built from dictionaries, arrays, strings, numbers, bools and NSNull)
/// as one line to standard output.
func printJSON(_ value: Any, sortedKeys: Bool = true) throws {
    var opts: JSONSerialization.WritingOptions = [.withoutEscapingSlashes]
    if sortedKeys { opts.insert(.sortedKeys) }
    let data = try JSONSerialization.data(withJSONObject: value, options: opts)
    FileHandle.standardOutput.write(data)
    FileHandle.standardOutput.write(Data([0x0A]))
}

/// Writes one line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Writes one line to standard output, unbuffered (so stream results appear as each frame ends
/// and never interleave out of order with `printJSON`).
func writeLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
