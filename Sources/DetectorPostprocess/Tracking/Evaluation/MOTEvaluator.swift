import DetectorModelFile
import DetectorImage
/// One sequence to score: its ground truth, the tracker's results and, when known, its length.
public struct MOTSequence: Sendable {
    /// The sequence's name (`MOT17-02`), unique among the sequences scored together.
    public var name: String
    /// Every row of its ground truth (the preprocessing picks what is scored).
    public var groundTruth: [MOTBox]
    /// The tracker's boxes.
    public var results: [MOTBox]
    /// `seqLength` of the sequence's `seqinfo.ini`: frames must lie in 1...length. Nil: the
    /// largest frame of either file.
    public var length: Int?

    /// A sequence to score; `length` is its `seqLength` when known.
    public init(name: String, groundTruth: [MOTBox], results: [MOTBox], length: Int? = nil) {
        self.name = name
        self.groundTruth = groundTruth
        self.results = results
        self.length = length
    }
}

/// Scores MOTChallenge tracking results: MOTA, MOTP, IDF1, IDP, IDR, ID switches, fragmentations,
/// FP, FN (py-motmetrics' rules, IoU >= 0.5) and HOTA, DetA, AssA, LocA (TrackEval's), per
/// sequence and combined, with MOT17's preprocessing when the ground truth has class columns
/// (`MOTGroundTruthProtocol`). The numbers are those of `mot17_eval.py` / `mot_eval.py`.
///
/// ```swift
/// let gt = try MOTBox.parse(String(contentsOfFile: "MOT17-02/gt/gt.txt", encoding: .utf8))
/// let res = try MOTBox.parse(String(contentsOfFile: "results/MOT17-02.txt", encoding: .utf8))
/// let report = try MOTEvaluator.evaluate([MOTSequence(name: "MOT17-02", groundTruth: gt, results: res, length: 299)])
/// print(report.combined.mota, report.combined.idf1, report.combined.hota)
/// ```
public enum MOTEvaluator {
    /// The scores of every sequence, in the order given, and of all of them pooled.
    public struct Report: Sendable {
        /// Each sequence's name, the conventions its ground truth followed and its scores.
        public var sequences: [(name: String, groundTruthProtocol: MOTGroundTruthProtocol, scores: MOTScores)]
        /// Counts summed over the sequences, ratios recomputed from the sums (py-motmetrics'
        /// OVERALL row); HOTA as TrackEval's COMBINED_SEQ.
        public var combined: MOTScores
    }

    /// Checks and scores the sequences. Throws when a sequence repeats a name, or a file repeats
    /// an id within a frame, has a negative id or a frame outside 1...length.
    public static func evaluate(_ sequences: [MOTSequence]) throws(MOTEvaluationError) -> Report {
        var names = Set<String>()
        var parts: [(name: String, groundTruthProtocol: MOTGroundTruthProtocol, clear: ClearMOTCounts, hota: HOTACounts, removed: Int)] = []
        for sequence in sequences {
            guard names.insert(sequence.name).inserted else { throw .duplicateSequence(sequence.name) }
            let part = try score(sequence)
            parts.append((sequence.name, part.groundTruthProtocol, part.clear, part.hota, part.removed))
        }
        let clear = parts.reduce(ClearMOTCounts()) { $0 + $1.clear }
        let combined = MOTScores(clear: clear, hota: HOTACounts.combined(parts.map(\.hota)),
                                 removed: parts.reduce(0) { $0 + $1.removed })
        return Report(sequences: parts.map { ($0.name, $0.groundTruthProtocol, MOTScores(clear: $0.clear, hota: $0.hota, removed: $0.removed)) },
                      combined: combined)
    }

    /// One sequence's counts, before they are turned into ratios.
    package static func score(_ sequence: MOTSequence) throws(MOTEvaluationError)
        -> (groundTruthProtocol: MOTGroundTruthProtocol, clear: ClearMOTCounts, hota: HOTACounts, removed: Int) {
        let length = try validatedLength(sequence)
        let kind = MOTGroundTruthProtocol.detect(in: sequence.groundTruth)
        let gt = EvaluationPreprocessing.byFrame(sequence.groundTruth, length: length)
        let res = EvaluationPreprocessing.byFrame(sequence.results, length: length)
        let forClear = EvaluationPreprocessing.frames(groundTruth: gt, results: res, protocol: kind, flavour: .motmetrics)
        let forHOTA = EvaluationPreprocessing.frames(groundTruth: gt, results: res, protocol: kind, flavour: .trackEval)
        let clear = ClearMOTAccumulator.evaluate(groundTruth: forClear.groundTruth, results: forClear.results)
        let hota = HOTAAccumulator.evaluate(groundTruth: forHOTA.groundTruth, results: forHOTA.results)
        return (kind, clear, hota, forClear.removedResults)
    }

    /// The sequence's length, after checking ids and frames of both files.
    static func validatedLength(_ sequence: MOTSequence) throws(MOTEvaluationError) -> Int {
        let largest = max(sequence.groundTruth.reduce(0) { max($0, $1.frame) }, sequence.results.reduce(0) { max($0, $1.frame) })
        let length = sequence.length ?? largest
        for (rows, role) in [(sequence.groundTruth, MOTEvaluationError.FileRole.groundTruth), (sequence.results, .results)] {
            var seen = Set<FrameAndID>()
            seen.reserveCapacity(rows.count)
            for row in rows {
                guard row.frame >= 1, row.frame <= length else {
                    throw .frameOutOfRange(sequence: sequence.name, file: role, frame: row.frame, length: length)
                }
                guard row.id >= 0 else { throw .negativeID(sequence: sequence.name, file: role, frame: row.frame, id: row.id) }
                guard seen.insert(FrameAndID(frame: row.frame, id: row.id)).inserted else {
                    throw .duplicateID(sequence: sequence.name, file: role, frame: row.frame, id: row.id)
                }
            }
        }
        return length
    }

    private struct FrameAndID: Hashable {
        var frame: Int
        var id: Int
    }
}
