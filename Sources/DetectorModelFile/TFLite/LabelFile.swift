import DetectorZlib
import Foundation

/// Parsing of label files packed with models.
package enum LabelFile {
    /// One label per line (`\n` or `\r\n`); a final newline does not add an empty label, but empty
    /// lines inside the file are kept so that line number = class index.
    package static func parseLines(_ bytes: [UInt8]) -> [String] {
        // Split on the bytes: in a Swift String "\r\n" is one Character, which a split on "\n" misses.
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        var lines = body.split(separator: 0x0A, omittingEmptySubsequences: false).map { line -> String in
            String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
        }
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The class names of an Ultralytics metadata file (a Python dict literal with
    /// `'names': {0: 'person', 1: 'bicycle', …}`), indexed by class id; nil when there is no such dict.
    package static func parseUltralyticsNames(_ bytes: [UInt8]) -> [String]? {
        let text = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        let key = Array("'names'".unicodeScalars)
        var start: Int?
        if text.count >= key.count {
            for i in 0...(text.count - key.count) where Array(text[i..<(i + key.count)]) == key {
                start = i + key.count
                break
            }
        }
        guard var i = start else { return nil }
        func skipSpaces() { while i < text.count, text[i] == " " || text[i] == "\n" || text[i] == "\t" { i += 1 } }
        skipSpaces()
        guard i < text.count, text[i] == ":" else { return nil }
        i += 1
        skipSpaces()
        guard i < text.count, text[i] == "{" else { return nil }
        i += 1
        var names: [Int: String] = [:]
        while i < text.count {
            skipSpaces()
            if i < text.count, text[i] == "}" { break }
            var digits = ""
            while i < text.count, ("0"..."9").contains(text[i]) { digits.unicodeScalars.append(text[i]); i += 1 }
            guard let id = Int(digits), id >= 0, id < 1_000_000 else { return nil }
            skipSpaces()
            guard i < text.count, text[i] == ":" else { return nil }
            i += 1
            skipSpaces()
            guard i < text.count, text[i] == "'" || text[i] == "\"" else { return nil }
            let quote = text[i]
            i += 1
            var name = ""
            while i < text.count, text[i] != quote {
                if text[i] == "\\", i + 1 < text.count { i += 1 }
                name.unicodeScalars.append(text[i])
                i += 1
            }
            guard i < text.count else { return nil }
            i += 1
            names[id] = name
            skipSpaces()
            if i < text.count, text[i] == "," { i += 1 }
        }
        guard !names.isEmpty, let maxID = names.keys.max(), maxID < names.count * 4 + 16 else { return nil }
        return (0...maxID).map { names[$0] ?? "" }
    }
}
