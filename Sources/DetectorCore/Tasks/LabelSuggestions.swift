import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
/// Finds the known label names closest to a misspelt one, for error messages; its edit distance
/// also serves the command line's option suggestions.
package enum LabelSuggestions {
    /// Throws `TaskError.unknownCategories` when a wanted name is not among `labels`.
    static func checkKnown(_ wanted: [String], option: TaskOption, labels: [String]) throws {
        let known = Set(labels)
        let unknown = wanted.filter { !known.contains($0) }
        guard !unknown.isEmpty else { return }
        var closest: [String: [String]] = [:]
        for name in unknown { closest[name] = nearest(to: name, in: labels) }
        throw TaskError.unknownCategories(option: option, names: unknown, closest: closest)
    }

    /// Up to `count` distinct names by ascending edit distance (case-insensitive), ties in label order;
    /// only names within half the wanted name's length (at least 2 edits) are suggested.
    static func nearest(to name: String, in labels: [String], count: Int = 3) -> [String] {
        let target = Array(name.lowercased())
        let limit = max(2, target.count / 2)
        var seen = Set<String>()
        var scored: [(distance: Int, order: Int, name: String)] = []
        for (order, label) in labels.enumerated() where !label.isEmpty && seen.insert(label).inserted {
            let d = editDistance(target, Array(label.lowercased()))
            if d <= limit { scored.append((d, order, label)) }
        }
        scored.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.order < $1.order }
        return scored.prefix(count).map(\.name)
    }

    /// Levenshtein distance (insert, delete, substitute, each 1).
    package static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
