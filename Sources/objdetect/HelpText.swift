import DetectorCore

/// The help texts, generated from the command declarations: `objdetect --help`,
/// `objdetect COMMAND --help`, and the Markdown command reference in README.md
/// (`objdetect help --reference`; a test checks that README holds exactly this).
enum HelpText {
    /// `objdetect --help`: usage and one line per subcommand.
    static func topLevel(_ commands: [Subcommand]) -> String {
        var lines = [
            "usage: objdetect [detect] INPUT... [options]   detect objects (the default command)",
            "       objdetect COMMAND [options]",
            "       objdetect COMMAND --help                every option of COMMAND",
            "       objdetect --version                     the version and the kernels this CPU runs",
            "",
            "commands:",
        ]
        let width = (commands.map(\.spec.name.count).max() ?? 0) + 2
        for c in commands { lines.append("  " + pad(c.spec.name, width) + c.spec.summary) }
        lines.append("")
        lines.append("Exit codes: 0 success, 1 failure (one line on stderr), 2 usage error.")
        return lines.joined(separator: "\n")
    }

    /// `objdetect COMMAND --help`: usage, summary, every option with its default and range, notes.
    static func command(_ spec: CommandSpec) -> String {
        var lines = ["usage: \(spec.usage)", spec.summary]
        if !spec.options.isEmpty {
            lines.append("")
            lines.append("options:")
            let width = min((spec.options.map { $0.synopsis.count }.max() ?? 0) + 2, 34)
            for option in spec.options + [helpOption] {
                var text = option.help
                if let mode = option.mode { text = "[\(mode)] " + text }
                var facts: [String] = []
                if let d = option.defaultText { facts.append("default \(d)") }
                switch option.kind {
                case .int, .number: facts.append(option.expectation.replacingFirst("a ", with: ""))
                default: break
                }
                if !option.aliases.isEmpty { facts.append("also " + option.aliases.joined(separator: ", ")) }
                if option.repeatable { facts.append("repeatable") }
                if !facts.isEmpty { text += " (" + facts.joined(separator: "; ") + ")" }
                let synopsis = option.synopsis
                if synopsis.count + 2 > width {
                    lines.append("  " + synopsis)
                    lines.append("  " + pad("", width) + text)
                } else {
                    lines.append("  " + pad(synopsis, width) + text)
                }
            }
        }
        for note in spec.notes {
            lines.append("")
            lines.append(note)
        }
        return lines.joined(separator: "\n")
    }

    /// `objdetect --version`: "objdetect 0.7.0-dev (kernels: avx512+vbmi, x86_64)".
    static var version: String {
        "objdetect \(DetectorCoreInfo.version) (kernels: \(DetectorCoreInfo.kernels), \(DetectorCoreInfo.architecture))"
    }

    static let helpOption = OptionSpec("--help", .flag, help: "print this help and exit (also -h)")

    /// README's command reference: the top-level help and each command's help, as Markdown.
    static func reference(_ commands: [Subcommand]) -> String {
        var parts = ["```text\n$ objdetect --help\n" + topLevel(commands) + "\n```"]
        for c in commands {
            parts.append("### `objdetect \(c.spec.name)`\n\n```text\n" + command(c.spec) + "\n```")
        }
        return parts.joined(separator: "\n\n")
    }

    static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count)
    }
}

extension String {
    fileprivate func replacingFirst(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}
