import DetectorModelFile
import DetectorImage
/// Why a MOTChallenge text file could not be read.
package enum MOTFormatError: Error, Equatable, CustomStringConvertible {
    /// A line does not hold `frame,id,x,y,w,h[,score,…]` with usable numbers.
    case malformedLine(line: Int, reason: String)
    /// A frame number is outside 1...`MOTFormat.maxFrameNumber`.
    case frameOutOfRange(line: Int, frame: Int)

    package var description: String {
        switch self {
        case let .malformedLine(line, reason):
            return "MOTChallenge line \(line) is malformed: \(reason)."
        case let .frameOutOfRange(line, frame):
            return "MOTChallenge line \(line) has frame number \(frame), outside 1...\(MOTFormat.maxFrameNumber)."
        }
    }
}

/// One row of a MOTChallenge file (`frame,id,x,y,w,h,score,…`): a detection (id -1) or a
/// tracker result / ground-truth box.
package struct MOTRow: Sendable, Equatable {
    /// Frame number, starting at 1.
    package var frame: Int
    /// Identity (-1 in detection files).
    package var id: Int
    /// Box: top-left corner and size in pixels.
    package var box: TrackBox
    /// Score or confidence column (1 when the line has none).
    package var score: Float

    package init(frame: Int, id: Int, box: TrackBox, score: Float) {
        self.frame = frame
        self.id = id
        self.box = box
        self.score = score
    }
}

/// Reading and writing the MOTChallenge 2D text format.
///
/// ```swift
/// let rows = try MOTFormat.parse(text)              // detections or ground truth
/// let line = MOTFormat.resultLine(frame: 1, trackID: 3, box: box, score: 0.9)
/// // "1,3,281.931,187.466,79.93,209.537,0.9,-1,-1,-1"
/// ```
package enum MOTFormat {
    /// Largest frame number accepted (about 9 hours at 30 fps), so a corrupt file cannot make
    /// a reader loop over billions of empty frames.
    package static let maxFrameNumber = 1_000_000

    /// Parses every non-empty line. Fields are separated by commas (spaces and tabs are also
    /// accepted); lines starting with `#` are skipped. Needs at least 6 fields
    /// (`frame,id,x,y,w,h`); the 7th, when present, is the score.
    package static func parse(_ text: String) throws -> [MOTRow] {
        var rows: [MOTRow] = []
        var lineNumber = 0
        // `isNewline` also covers "\r\n", which Swift treats as a single Character.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0.isNewline }) {
            lineNumber += 1
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" })
            guard fields.count >= 6 else {
                throw MOTFormatError.malformedLine(line: lineNumber, reason: "needs at least 6 fields (frame,id,x,y,w,h), found \(fields.count)")
            }
            guard let frame = integer(fields[0]) else {
                throw MOTFormatError.malformedLine(line: lineNumber, reason: "frame '\(fields[0])' is not a whole number")
            }
            guard frame >= 1, frame <= maxFrameNumber else {
                throw MOTFormatError.frameOutOfRange(line: lineNumber, frame: frame)
            }
            guard let id = integer(fields[1]) else {
                throw MOTFormatError.malformedLine(line: lineNumber, reason: "id '\(fields[1])' is not a whole number")
            }
            var numbers: [Float] = []
            for (offset, field) in fields[2..<min(fields.count, 7)].enumerated() {
                guard let value = Float(field), value.isFinite else {
                    throw MOTFormatError.malformedLine(line: lineNumber, reason: "field \(offset + 3) '\(field)' is not a finite number")
                }
                numbers.append(value)
            }
            rows.append(MOTRow(
                frame: frame, id: id,
                box: TrackBox(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]),
                score: numbers.count > 4 ? numbers[4] : 1))
        }
        return rows
    }

    /// Groups rows by frame: element `k` holds the rows of frame `k + 1`, for frames
    /// 1...`lastFrame` (the largest frame present, or 0 rows for an empty input), so frames
    /// without rows appear as empty arrays.
    package static func groupByFrame(_ rows: [MOTRow]) -> [[MOTRow]] {
        let lastFrame = rows.reduce(0) { max($0, $1.frame) }
        var frames = [[MOTRow]](repeating: [], count: min(lastFrame, maxFrameNumber))
        for row in rows where row.frame >= 1 && row.frame <= frames.count { frames[row.frame - 1].append(row) }
        return frames
    }

    /// One MOTChallenge result line, `frame,id,x,y,w,h,score,-1,-1,-1` (no newline).
    package static func resultLine(frame: Int, trackID: Int, box: TrackBox, score: Float) -> String {
        "\(frame),\(trackID),\(number(box.x)),\(number(box.y)),\(number(box.width)),\(number(box.height)),\(number(score)),-1,-1,-1"
    }

    /// The result lines of one frame's tracked objects, ordered by track ID, each ending in a
    /// newline (empty when nothing was reported).
    package static func resultLines(frame: Int, objects: [TrackedObject]) -> String {
        var text = ""
        for object in objects.sorted(by: { $0.trackID < $1.trackID }) {
            text += resultLine(frame: frame, trackID: object.trackID, box: object.box, score: object.score)
            text += "\n"
        }
        return text
    }

    /// The `frameRate` of a MOTChallenge `seqinfo.ini` (`[Sequence]` … `frameRate=25`), or nil
    /// when the text has none in 0.001...10000.
    ///
    /// ```swift
    /// MOTFormat.frameRate(seqinfo: "[Sequence]\nname=TUD-Campus\nframeRate=25\n")   // 25
    /// ```
    package static func frameRate(seqinfo text: String) -> Double? {
        number(named: "framerate", in: text, range: 0.001...10_000)
    }

    /// The `imWidth` of a MOTChallenge `seqinfo.ini` (the frame width in pixels), or nil when the
    /// text has none in 1...1000000.
    ///
    /// ```swift
    /// MOTFormat.imageWidth(seqinfo: "[Sequence]\nimWidth=640\nimHeight=480\n")   // 640
    /// ```
    package static func imageWidth(seqinfo text: String) -> Double? {
        number(named: "imwidth", in: text, range: 1...1_000_000)
    }

    /// The first `key=value` line whose key is `name` (any case) and whose value is a number in `range`.
    private static func number(named name: String, in text: String, range: ClosedRange<Double>) -> Double? {
        for rawLine in text.split(whereSeparator: { $0.isNewline }) {
            let parts = rawLine.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingWhitespace().lowercased() == name else { continue }
            if let value = Double(parts[1].trimmingWhitespace()), range.contains(value) { return value }
        }
        return nil
    }

    /// Shortest text that reads back as the same Float, without a trailing ".0".
    package static func number(_ value: Float) -> String {
        guard value.isFinite else { return "0" }
        if value == value.rounded(), abs(value) < 1e7 { return String(Int(value)) }
        return "\(value)"
    }

    private static func integer(_ field: Substring) -> Int? {
        if let value = Int(field) { return value }
        // Some writers print ids and frames as floats ("1.0").
        if let value = Double(field), value.isFinite, value == value.rounded(), abs(value) < 1e15 { return Int(value) }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        var s = self
        while let first = s.first, first.isWhitespace { s = s.dropFirst() }
        while let last = s.last, last.isWhitespace { s = s.dropLast() }
        return s
    }
}
