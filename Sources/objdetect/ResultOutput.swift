import Foundation
import DetectorCore

/// What `detect` prints for one image or frame (JSON, camelCase keys). Coordinates are pixels of
/// the upright image; numbers are rounded to 4 decimals.
struct ImageResult: Encodable {
    /// The file path, or "stdin#N" for the N-th frame read from standard input.
    var source: String
    /// Stream mode: the frame number (from 1, as in MOTChallenge) and its timestamp.
    var frameIndex: Int?
    var timestampMs: Int64?
    /// The upright image's size.
    var width: Int
    var height: Int
    var objects: [ObjectResult]

    init(source: String, frameIndex: Int? = nil, timestampMs: Int64? = nil, width: Int, height: Int, objects: [DetectedObject]) {
        self.source = source
        self.frameIndex = frameIndex
        self.timestampMs = timestampMs
        self.width = width
        self.height = height
        self.objects = objects.map(ObjectResult.init)
    }
}

/// One detected object; `trackingID` only in stream mode. `category` is the detector's class
/// (its confidence is the detection score); `labels` are the classifier's, each with its own
/// confidence, with `--classifier`.
struct ObjectResult: Encodable {
    var trackingID: Int?
    /// The detector's raw box.
    var box: BoxResult
    /// The tracker's filtered box (stream mode, objects with a tracking ID).
    var trackedBox: BoxResult?
    var score: Double
    var category: LabelResult
    var labels: [LabelResult]
    var keypoints: [PointResult]

    init(_ o: DetectedObject) {
        trackingID = o.trackingID
        box = BoxResult(o.frame)
        trackedBox = o.trackedFrame.map(BoxResult.init)
        score = rounded(Double(o.score))
        category = LabelResult(o.category)
        labels = o.labels.map(LabelResult.init)
        keypoints = o.keypoints.map { PointResult(x: rounded($0.x), y: rounded($0.y)) }
    }

    /// The classifier's best label (nil without `--classifier`, or when it kept no label for this object).
    var bestLabel: LabelResult? { labels.first }

    /// What `text`, the annotation (and, split into columns, `csv`) show: the detector's category and
    /// score, then the classifier's best label and its own confidence: "cat 0.94 / Pembroke 0.82".
    var summary: String {
        var text = "\(readableLabel(category)) \(twoDecimals(score))"
        if let best = bestLabel { text += " / \(readableLabel(best)) \(twoDecimals(best.confidence))" }
        return text
    }
}

/// "0.94": a score as text and the annotation print it.
func twoDecimals(_ v: Double) -> String { String(format: "%.2f", v) }

struct BoxResult: Encodable {
    var x, y, width, height: Double
    init(_ r: ImageRect) {
        x = rounded(r.x); y = rounded(r.y); width = rounded(r.width); height = rounded(r.height)
    }
}

struct PointResult: Encodable {
    var x, y: Double
}

struct LabelResult: Encodable {
    var text: String
    var index: Int
    var confidence: Double
    var displayName: String?
    init(_ l: Category) {
        text = l.text; index = l.index; confidence = rounded(Double(l.confidence)); displayName = l.displayName
    }
}

/// `label`'s result for one image.
struct LabelingResult: Encodable {
    var source: String
    var width: Int
    var height: Int
    var labels: [LabelResult]
}

/// `v` rounded to 4 decimals (0 for NaN or infinities, which JSON cannot hold).
func rounded(_ v: Double) -> Double {
    guard v.isFinite else { return 0 }
    return abs(v) < 1e11 ? (v * 10_000).rounded() / 10_000 : v
}

/// Encodes result values as JSON: one line, or indented.
struct JSONLines {
    let pretty: Bool

    func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// Where results go (standard output or `--output FILE`), in the chosen format:
/// `json` (one document; several results make an array, written as they come), `jsonl` (one
/// line per image or frame), `text` (one line per object), `csv` (a header, one row per object)
/// or `mot` (MOTChallenge rows, stream mode).
final class ResultWriter {
    let format: String
    private let json: JSONLines
    private let channel: OutputChannel?
    /// Called before anything is written to standard output (clears a progress line there).
    var beforeWrite: () -> Void = {}
    private var written = 0
    private let asArray: Bool

    /// - Parameters:
    ///   - channel: nil discards the results (standard output carries annotated frames).
    ///   - asArray: `json` with several results: one array.
    init(format: String, pretty: Bool, channel: OutputChannel?, asArray: Bool) {
        self.format = format
        self.json = JSONLines(pretty: pretty)
        self.channel = channel
        self.asArray = asArray
    }

    func write(_ result: ImageResult) throws {
        var text: String
        switch format {
        case "json":
            text = try json.encode(result)
            if asArray { text = (written == 0 ? "[\n" : ",\n") + text } else { text += "\n" }
        case "jsonl":
            text = try JSONLines(pretty: false).encode(result) + "\n"
        case "csv":
            text = written == 0 ? Self.csvHeader + "\n" : ""
            for o in result.objects {
                let fields: [String] = [csvField(result.source), result.frameIndex.map(String.init) ?? "",
                                        o.trackingID.map(String.init) ?? "", csvField(readableLabel(o.category)),
                                        shortestText(o.score), shortestText(o.box.x), shortestText(o.box.y), shortestText(o.box.width), shortestText(o.box.height),
                                        o.bestLabel.map { csvField(readableLabel($0)) } ?? "", o.bestLabel.map { shortestText($0.confidence) } ?? ""]
                text += fields.joined(separator: ",") + "\n"
            }
        case "mot":
            text = ""
            for o in result.objects.sorted(by: { ($0.trackingID ?? -1) < ($1.trackingID ?? -1) }) {
                let box = TrackBox(x: Float(o.box.x), y: Float(o.box.y), width: Float(o.box.width), height: Float(o.box.height))
                text += MOTFormat.resultLine(frame: result.frameIndex ?? 1, trackID: o.trackingID ?? -1, box: box, score: Float(o.score)) + "\n"
            }
        default:
            text = Self.textLines(result)
        }
        written += 1
        try emit(text)
    }

    /// Closes a JSON array (or writes an empty one) and a results file.
    func finish() throws {
        if format == "json" && asArray { try emit(written == 0 ? "[]\n" : "\n]\n") }
        try channel?.close()
    }

    private func emit(_ text: String) throws {
        guard let channel, !text.isEmpty else { return }
        if channel.isStandardOutput { beforeWrite() }
        try channel.write(text)
    }

    /// `csv`'s columns: the detector's label and score, the box, then the classifier's best label
    /// and its confidence (empty without `--classifier`).
    static let csvHeader = "source,frameIndex,trackingID,label,score,x,y,width,height,classifierLabel,classifierScore"

    /// `text`: one line per object, "SOURCE: LABEL SCORE at x,y WxH" ("SOURCE: LABEL SCORE / CLASS
    /// CONFIDENCE at …" with `--classifier`), with "frame N" and "#ID" in stream mode; "SOURCE: no
    /// objects" for an empty result.
    static func textLines(_ r: ImageResult) -> String {
        let place = r.frameIndex.map { "frame \($0) (\(r.source))" } ?? r.source
        if r.objects.isEmpty { return "\(place): no objects\n" }
        var text = ""
        for o in r.objects {
            let id = o.trackingID.map { "#\($0) " } ?? ""
            text += "\(place): \(id)\(o.summary) at \(fixed(o.box.x)),\(fixed(o.box.y)) \(fixed(o.box.width))x\(fixed(o.box.height))\n"
        }
        return text
    }

    static func fixed(_ v: Double) -> String { String(format: "%.1f", v) }
}

/// The name a person reads: the display name, else the label text, else "#index".
func readableLabel(_ l: LabelResult) -> String {
    l.displayName ?? (l.text.isEmpty ? "#\(l.index)" : l.text)
}


func csvField(_ s: String) -> String {
    s.contains { $0 == "," || $0 == "\"" || $0 == "\n" } ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
}

/// "12", "12.5", "0.001": the shortest text, without a trailing ".0".
func shortestText(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : "\(v)"
}
