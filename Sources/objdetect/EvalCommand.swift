import Foundation
import DetectorCore

/// `objdetect eval GT RESULTS [--format text|json]`: scores MOTChallenge tracking results with
/// py-motmetrics' and TrackEval's rules (the numbers of `mot17_eval.py` / `mot_eval.py`).
enum EvalCommand {
    static let spec = CommandSpec(
        name: "eval", usage: "objdetect eval GT RESULTS [options]",
        summary: "score MOTChallenge tracking results: MOTA, IDF1, HOTA and the rest, per sequence and combined",
        options: [
            CommonOptions.format(["text", "json"], default: "text"),
            CommonOptions.json,
            CommonOptions.pretty,
            OptionSpec("--sequences", .list, value: "A,B", default: "every sequence under GT", help: "score only these sequences"),
        ],
        notes: [
            "GT is a gt.txt, a sequence folder (SEQ/gt/gt.txt or SEQ/gt.txt, with SEQ/seqinfo.ini) or a folder of them; RESULTS is one file or a folder with SEQ.txt per sequence (rows frame,id,x,y,w,h,...).",
            "Ground truth with class columns (MOT16/17) gets MOT17's preprocessing: tracker boxes matched to distractors are removed, only pedestrians with the 'consider' flag count; MOT15 ground truth drops rows not to consider.",
            "CLEAR-MOT and identity metrics follow py-motmetrics (IoU >= 0.5), HOTA/DetA/AssA/LocA follow TrackEval (mean over alpha 0.05..0.95); combined pools the counts. Text shows percentages and MOTP as the mean IoU of matches; JSON holds fractions with mot17_eval.py's keys (MOTP = mean 1 - IoU, MOTP_overlap = mean IoU).",
        ])

    static let subcommand = Subcommand(spec: spec, handler: run)

    static func run(_ args: ParsedOptions) throws -> Int32 {
        guard args.positional.count == 2 else { throw UsageError("eval takes GT and RESULTS, got \(args.positional.count) argument\(args.positional.count == 1 ? "" : "s")") }
        let format = try CommonOptions.chosenFormat(args, fallback: "text")
        try CommonOptions.rejectPretty(args, format: format)
        let only = args.given("--sequences") ? args.list("--sequences") : nil
        let locations: [MOTSequenceLoader.Location]
        do {
            locations = try MOTSequenceLoader.locate(groundTruth: args.positional[0], results: args.positional[1], only: only)
        } catch {
            throw CommandFailure(error.description)
        }
        let report = try MOTEvaluator.evaluate(try locations.map { try MOTSequenceLoader.load($0) })
        if format == "json" {
            var sequences: [String: ScoresJSON] = [:]
            for s in report.sequences {
                sequences[s.name] = ScoresJSON(s.scores, protocol: s.groundTruthProtocol.rawValue)
            }
            try printJSON(EvalJSON(sequences: sequences, combined: ScoresJSON(report.combined, protocol: nil)),
                          pretty: args.flag("--pretty") || isatty(STDOUT_FILENO) == 1)
        } else {
            try OutputChannel.standardOutput.write(table(report))
        }
        return 0
    }

    /// `eval --json`: the scores per sequence and combined.
    struct EvalJSON: Encodable {
        let sequences: [String: ScoresJSON]
        let combined: ScoresJSON
    }

    /// The scores under `mot17_eval.py`'s keys: counts as integers, ratios as fractions, NaN as
    /// null; a sequence's also name its ground truth's `protocol`.
    struct ScoresJSON: Encodable {
        let scores: MOTScores
        let `protocol`: String?

        init(_ scores: MOTScores, protocol: String?) {
            self.scores = scores
            self.protocol = `protocol`
        }

        struct Key: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in scores.referenceKeyedValues {
                let k = Key(stringValue: key)
                if let value {
                    if MOTScores.isCountKey(key) { try container.encode(Int(value), forKey: k) } else { try container.encode(value, forKey: k) }
                } else {
                    try container.encodeNil(forKey: k)
                }
            }
            if let `protocol` { try container.encode(`protocol`, forKey: Key(stringValue: "protocol")) }
        }
    }

    static func table(_ report: MOTEvaluator.Report) -> String {
        let header = ["MOTA", "IDF1", "HOTA", "DetA", "AssA", "LocA", "MOTP", "IDP", "IDR", "IDSW", "Frag", "FP", "FN", "MT", "ML", "GT"]
        func cells(_ s: MOTScores) -> [String] {
            func pct(_ v: Double) -> String { v.isFinite ? String(format: "%.1f", 100 * v) : "-" }
            return [pct(s.mota), pct(s.idf1), pct(s.hota), pct(s.detA), pct(s.assA), pct(s.locA), pct(s.motpOverlap),
                    pct(s.idp), pct(s.idr), "\(s.idSwitches)", "\(s.fragmentations)", "\(s.falsePositives)", "\(s.misses)",
                    "\(s.mostlyTracked)", "\(s.mostlyLost)", "\(s.groundTruthBoxes)"]
        }
        var rows = report.sequences.map { [$0.name] + cells($0.scores) }
        if report.sequences.count > 1 { rows.append(["combined"] + cells(report.combined)) }
        let all = [["sequence"] + header] + rows
        let widths = (0..<all[0].count).map { column in all.map { $0[column].count }.max() ?? 0 }
        var text = ""
        for row in all {
            let line = row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + pad : pad + cell
            }
            text += line.joined(separator: "  ") + "\n"
        }
        let protocols = Set(report.sequences.map(\.groundTruthProtocol))
        let removed = report.combined.removedDistractorMatches
        text += "MOTA..MOTP, IDP, IDR in %; MOTP is the mean IoU of matches; GT: scored ground-truth boxes"
        text += protocols.contains(.mot17) ? "; MOT17 preprocessing removed \(removed) result boxes matched to distractors\n" : "\n"
        return text
    }
}
