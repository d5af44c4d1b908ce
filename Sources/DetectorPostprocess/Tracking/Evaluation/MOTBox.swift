import DetectorModelFile
import DetectorImage
/// One row of a MOTChallenge ground-truth or tracker-result file, as the evaluator reads it:
/// `frame,id,x,y,w,h[,confidence[,class[,visibility]]]` with every number kept in `Double`
/// (as py-motmetrics and TrackEval read them), so overlaps are computed the way they compute them.
///
/// ```swift
/// let rows = try MOTBox.parse("1,3,1010,421,160,461,1,1,0.006211\n")
/// // rows[0].classID == 1 (pedestrian), rows[0].confidence == 1 ('consider' flag)
/// ```
public struct MOTBox: Sendable, Equatable {
    /// Frame number, from 1.
    public var frame: Int
    /// Identity: the person (ground truth) or the track (results).
    public var id: Int
    /// Left edge of the box, in pixels.
    public var x: Double
    /// Top edge of the box, in pixels.
    public var y: Double
    /// Width of the box, in pixels.
    public var width: Double
    /// Height of the box, in pixels.
    public var height: Double
    /// The 7th column: the 'consider' flag of ground truth (0 = ignored), a tracker's score; 1 when absent.
    public var confidence: Double
    /// The class: the 8th column of a nine-column row (MOT16/17/20 ground truth,
    /// `frame,id,x,y,w,h,consider,class,visibility`: 1 pedestrian, 2 person on vehicle, 7 static
    /// person, 8 distractor, 12 reflection, …). Nil for other rows: MOT15's ten columns end in
    /// world coordinates (or -1), tracker results in -1.
    public var classID: Int?

    /// A box as a file row would give it (`confidence` 1 and no class when the row has none).
    public init(frame: Int, id: Int, x: Double, y: Double, width: Double, height: Double,
                confidence: Double = 1, classID: Int? = nil) {
        self.frame = frame
        self.id = id
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.confidence = confidence
        self.classID = classID
    }

    /// Largest frame number accepted (as `MOTFormat`), so a corrupt file cannot ask for billions of frames.
    public static let maxFrameNumber = 1_000_000

    /// Parses MOTChallenge text: one box per line, fields separated by commas (spaces and tabs
    /// also accepted), empty lines and lines starting with `#` skipped. Needs at least
    /// `frame,id,x,y,w,h`; frames must be 1...`maxFrameNumber` and every number finite.
    public static func parse(_ text: String) throws(MOTEvaluationError) -> [MOTBox] {
        var rows: [MOTBox] = []
        var lineNumber = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            lineNumber += 1
            let fields = rawLine.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" })
            guard let first = fields.first, !first.hasPrefix("#") else { continue }
            guard fields.count >= 6 else {
                throw .malformedLine(line: lineNumber, reason: "needs at least 6 fields (frame,id,x,y,w,h), found \(fields.count)")
            }
            var numbers = [Double](repeating: 0, count: min(fields.count, 8))
            for index in numbers.indices {
                guard let value = Double(fields[index]), value.isFinite else {
                    throw .malformedLine(line: lineNumber, reason: "field \(index + 1) '\(fields[index].prefix(40))' is not a finite number")
                }
                numbers[index] = value
            }
            guard let frame = wholeNumber(numbers[0]), frame >= 1, frame <= maxFrameNumber else {
                throw .malformedLine(line: lineNumber, reason: "frame '\(fields[0].prefix(40))' is not a whole number from 1 to \(maxFrameNumber)")
            }
            guard let id = wholeNumber(numbers[1]) else {
                throw .malformedLine(line: lineNumber, reason: "id '\(fields[1].prefix(40))' is not a whole number")
            }
            let classID = fields.count == 9 ? wholeNumber(numbers[7]) : nil
            rows.append(MOTBox(frame: frame, id: id, x: numbers[2], y: numbers[3], width: numbers[4], height: numbers[5],
                               confidence: numbers.count > 6 ? numbers[6] : 1, classID: classID))
        }
        return rows
    }

    /// The value as an `Int` when it is a whole number of modest size.
    private static func wholeNumber(_ value: Double) -> Int? {
        guard value == value.rounded(), abs(value) < 1e15 else { return nil }
        return Int(value)
    }
}
