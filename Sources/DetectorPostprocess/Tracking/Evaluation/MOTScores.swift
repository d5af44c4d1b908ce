import DetectorModelFile
import DetectorImage
/// The scores of one sequence, or of several pooled, with the conventions of py-motmetrics
/// (CLEAR-MOT and identity metrics) and TrackEval (HOTA). Ratios are fractions (multiply by 100
/// for the usual tables); a ratio whose denominator is 0 is NaN.
public struct MOTScores: Sendable, Equatable {
    /// 1 - (misses + false positives + ID switches) / ground-truth boxes.
    public var mota: Double
    /// py-motmetrics' MOTP: the mean IoU *distance* (1 - IoU) of matched pairs; lower is better.
    public var motp: Double
    /// The MOTChallenge devkit's MOTP: the mean IoU of matched pairs (1 - `motp`).
    public var motpOverlap: Double { 1 - motp }
    /// Identity F1: 2 IDTP / (ground-truth boxes + tracker boxes), IDTP being the boxes matched
    /// under the best one-to-one pairing of ground-truth and tracker identities over the sequence.
    public var idf1: Double
    /// Identity precision: IDTP / tracker boxes.
    public var idp: Double
    /// Identity recall: IDTP / ground-truth boxes.
    public var idr: Double
    /// Matched boxes over tracker boxes.
    public var precision: Double
    /// Matched boxes over ground-truth boxes.
    public var recall: Double
    /// Ground-truth objects matched to another track than at their previous match.
    public var idSwitches: Int
    /// Times a ground-truth trajectory goes from tracked to missed and is tracked again later.
    public var fragmentations: Int
    /// Tracker boxes matched to no scored ground truth (FP).
    public var falsePositives: Int
    /// Scored ground-truth boxes matched to no tracker box (FN).
    public var misses: Int
    /// Ground-truth trajectories tracked in >= 80 % of their frames.
    public var mostlyTracked: Int
    /// Ground-truth trajectories tracked in 20 % to 80 % of their frames.
    public var partiallyTracked: Int
    /// Ground-truth trajectories tracked in < 20 % of their frames.
    public var mostlyLost: Int
    /// Scored ground-truth boxes.
    public var groundTruthBoxes: Int
    /// Distinct identities among the scored ground-truth boxes.
    public var groundTruthIDs: Int
    /// Tracker boxes, after MOT17's preprocessing.
    public var resultBoxes: Int
    /// HOTA = √(DetA · AssA) at each of the 19 thresholds alpha = 0.05…0.95, averaged (TrackEval).
    public var hota: Double
    /// Detection accuracy TP / (TP + FN + FP), averaged over alpha.
    public var detA: Double
    /// Association accuracy: for each true positive, how well its two identities overlap over the sequence, averaged.
    public var assA: Double
    /// Localisation accuracy: the mean IoU of the true positives, averaged over alpha.
    public var locA: Double
    /// Detection recall TP / (TP + FN), averaged over alpha.
    public var detRe: Double
    /// Detection precision TP / (TP + FP), averaged over alpha.
    public var detPr: Double
    /// Association recall, averaged over alpha.
    public var assRe: Double
    /// Association precision, averaged over alpha.
    public var assPr: Double
    /// Tracker boxes removed by MOT17's preprocessing (matched to distractors); 0 for MOT15.
    public var removedDistractorMatches: Int

    package init(clear c: ClearMOTCounts, hota h: HOTACounts, removed: Int) {
        func ratio(_ a: Double, _ b: Double) -> Double { b == 0 ? .nan : a / b }
        let detections = Double(c.matches + c.switches)
        mota = 1 - ratio(Double(c.misses + c.switches + c.falsePositives), Double(c.objects))
        motp = ratio(c.distanceSum, detections)
        idf1 = ratio(2 * Double(c.idTruePositives), Double(c.objects + c.predictions))
        idp = ratio(Double(c.idTruePositives), Double(c.predictions))
        idr = ratio(Double(c.idTruePositives), Double(c.objects))
        precision = ratio(detections, detections + Double(c.falsePositives))
        recall = ratio(detections, Double(c.objects))
        idSwitches = c.switches
        fragmentations = c.fragmentations
        falsePositives = c.falsePositives
        misses = c.misses
        mostlyTracked = c.mostlyTracked
        partiallyTracked = c.partiallyTracked
        mostlyLost = c.mostlyLost
        groundTruthBoxes = c.objects
        groundTruthIDs = c.uniqueObjects
        resultBoxes = c.predictions
        func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }
        hota = mean(h.hota)
        detA = mean(h.detectionAccuracy)
        assA = mean(h.associationAccuracy)
        locA = mean(h.localisationAccuracy)
        detRe = mean(h.detectionRecall)
        detPr = mean(h.detectionPrecision)
        assRe = mean(h.associationRecall)
        assPr = mean(h.associationPrecision)
        removedDistractorMatches = removed
    }

    /// Whether a key of `referenceKeyedValues` is a count (printed as an integer).
    package static func isCountKey(_ key: String) -> Bool {
        key.hasPrefix("num_") || ["mostly_tracked", "partially_tracked", "mostly_lost", "removed_distractor_matches"].contains(key)
    }

    /// The scores under the key names of `mot17_eval.py` / `mot_eval.py` (NaN as `nil`).
    package var referenceKeyedValues: [(key: String, value: Double?)] {
        func v(_ x: Double) -> Double? { x.isFinite ? x : nil }
        return [
            ("MOTA", v(mota)), ("MOTP", v(motp)), ("MOTP_overlap", v(motpOverlap)), ("IDF1", v(idf1)), ("IDP", v(idp)), ("IDR", v(idr)),
            ("num_switches", Double(idSwitches)), ("num_fragmentations", Double(fragmentations)),
            ("mostly_tracked", Double(mostlyTracked)), ("partially_tracked", Double(partiallyTracked)), ("mostly_lost", Double(mostlyLost)),
            ("num_false_positives", Double(falsePositives)), ("num_misses", Double(misses)),
            ("precision", v(precision)), ("recall", v(recall)),
            ("num_unique_objects", Double(groundTruthIDs)), ("num_objects", Double(groundTruthBoxes)), ("num_predictions", Double(resultBoxes)),
            ("HOTA", v(hota)), ("DetA", v(detA)), ("AssA", v(assA)), ("LocA", v(locA)),
            ("DetRe", v(detRe)), ("DetPr", v(detPr)), ("AssRe", v(assRe)), ("AssPr", v(assPr)),
            ("removed_distractor_matches", Double(removedDistractorMatches)),
        ]
    }
}
