import DetectorModelFile
import DetectorImage
/// Class names (and optional localized display names) by class index, as read from a
/// model's label file (one label per line).
///
/// ```swift
/// let labels = LabelMap(fileContents: "person\nbicycle\ncar\n")
/// labels.name(at: 2)   // "car"
/// ```
public struct LabelMap: Sendable, Equatable {
    public var names: [String]
    /// Display names by index (same length as `names` or empty).
    public var displayNames: [String]

    public init(names: [String], displayNames: [String] = []) {
        self.names = names
        self.displayNames = displayNames
    }

    /// Parses a label file: one label per line, `\n` or `\r\n`; a final empty line
    /// (trailing newline) is not a label.
    public init(fileContents: String, displayNamesContents: String? = nil) {
        self.init(names: LabelFile.parseLines(Array(fileContents.utf8)),
                  displayNames: displayNamesContents.map { LabelFile.parseLines(Array($0.utf8)) } ?? [])
    }

    public var isEmpty: Bool { names.isEmpty }

    /// The label at `index`, nil outside the map.
    public func name(at index: Int) -> String? {
        index >= 0 && index < names.count ? names[index] : nil
    }

    /// The display name at `index`, nil when there is none (or it is empty).
    public func displayName(at index: Int) -> String? {
        guard index >= 0, index < displayNames.count else { return nil }
        let d = displayNames[index]
        return d.isEmpty ? nil : d
    }

    /// The first index whose label is `name` (MediaPipe's rule for allow/deny lists).
    public func firstIndex(of name: String) -> Int? {
        names.firstIndex(of: name)
    }
}

/// MediaPipe Tasks' category filter: an allowlist or a denylist of class names, turned
/// into class indices through a `LabelMap` (each name maps to the **first** index with
/// that label; unknown names are ignored).
public struct CategoryFilter: Sendable, Equatable {
    public enum Mode: Sendable, Equatable {
        case all
        case allow(Set<Int>)
        case deny(Set<Int>)
    }

    public let mode: Mode

    /// - Throws: `DetectionError.allowlistAndDenylist` when both lists are non-empty
    ///   (MediaPipe's error), `.categoryFilterWithoutLabels` when a list is given but the
    ///   label map is empty.
    public init(allowlist: [String] = [], denylist: [String] = [], labels: LabelMap) throws {
        if !allowlist.isEmpty && !denylist.isEmpty { throw DetectionError.allowlistAndDenylist }
        if allowlist.isEmpty && denylist.isEmpty {
            mode = .all
            return
        }
        guard !labels.isEmpty else { throw DetectionError.categoryFilterWithoutLabels }
        let list = allowlist.isEmpty ? denylist : allowlist
        let indices = Set(list.compactMap { labels.firstIndex(of: $0) })
        mode = allowlist.isEmpty ? .deny(indices) : .allow(indices)
    }

    /// No filtering.
    public static let all = CategoryFilter(mode: .all)

    package init(mode: Mode) { self.mode = mode }

    /// Whether a detection of class `index` passes.
    public func allows(_ index: Int) -> Bool {
        switch mode {
        case .all: return true
        case let .allow(set): return set.contains(index)
        case let .deny(set): return !set.contains(index)
        }
    }
}
