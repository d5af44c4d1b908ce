import Foundation

/// Parsing of label files packed with models.
public enum LabelFile {
    /// One label per line (`\n` or `\r\n`); a final newline does not add an empty label, but empty
    /// lines inside the file are kept so that line number = class index.
    public static func parseLines(_ bytes: [UInt8]) -> [String] {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var s = String(line)
            if s.hasSuffix("\r") { s.removeLast() }
            return s
        }
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The class names of an Ultralytics metadata file (a Python dict literal with
    /// `'names': {0: 'person', 1: 'bicycle', …}`), indexed by class id; nil when there is no such dict.
    public static func parseUltralyticsNames(_ bytes: [UInt8]) -> [String]? {
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

/// Sigmoid score calibration (TFLite metadata `ScoreCalibrationOptions` + its CSV file):
/// `f(x) = scale / (1 + exp(-(slope * g(x) + offset)))` per class, `defaultScore` where a class
/// has no parameters or `x` is below its `minScore`.
public struct ScoreCalibration: Sendable, Equatable {
    public struct Parameters: Sendable, Equatable {
        public var scale: Float
        public var slope: Float
        public var offset: Float
        public var minScore: Float?
        public init(scale: Float, slope: Float, offset: Float, minScore: Float? = nil) {
            self.scale = scale
            self.slope = slope
            self.offset = offset
            self.minScore = minScore
        }
    }

    public var transformation: ScoreTransformationType
    public var defaultScore: Float
    /// Per class index; nil where the file's line is empty.
    public var parameters: [Parameters?]

    public init(transformation: ScoreTransformationType, defaultScore: Float, parameters: [Parameters?]) {
        self.transformation = transformation
        self.defaultScore = defaultScore
        self.parameters = parameters
    }

    /// Parses the calibration CSV: each line holds 0, 3 or 4 comma-separated numbers
    /// (scale, slope, offset, optional min_score).
    public init(options: ScoreCalibrationOptions, csv bytes: [UInt8]) throws {
        var params: [Parameters?] = []
        for (lineNumber, line) in LabelFile.parseLines(bytes).enumerated() {
            let trimmed = line.trimmingCharacters(in: " \t")
            if trimmed.isEmpty { params.append(nil); continue }
            let fields = trimmed.split(separator: ",", omittingEmptySubsequences: false)
                .map { Float(String($0).trimmingCharacters(in: " \t")) }
            guard fields.count == 3 || fields.count == 4, fields.allSatisfy({ $0 != nil }) else {
                throw TFLiteModelError.invalidValue(what: "score calibration line \(lineNumber + 1)", location: "score calibration file",
                                                    reason: "'\(trimmed)' is not 3 or 4 comma-separated numbers")
            }
            let v = fields.compactMap { $0 }
            params.append(Parameters(scale: v[0], slope: v[1], offset: v[2], minScore: v.count == 4 ? v[3] : nil))
        }
        self.init(transformation: options.transformation, defaultScore: options.defaultScore, parameters: params)
    }

    /// The calibrated score of `score` for class `classIndex`.
    public func calibrate(_ score: Float, classIndex: Int) -> Float {
        guard classIndex >= 0, classIndex < parameters.count, let p = parameters[classIndex] else { return defaultScore }
        if let minScore = p.minScore, score < minScore { return defaultScore }
        let g: Float
        switch transformation {
        case .identity: g = score
        case .log: g = logf(score)
        case .inverseLogistic: g = logf(score) - log1pf(-score)
        }
        let x = p.slope * g + p.offset
        if x >= 0 { return p.scale / (1 + expf(-x)) }
        let e = expf(x)
        return p.scale * e / (1 + e)
    }
}

private extension String {
    func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        var s = Substring(self)
        while let f = s.first, chars.contains(f) { s.removeFirst() }
        while let l = s.last, chars.contains(l) { s.removeLast() }
        return String(s)
    }
}
