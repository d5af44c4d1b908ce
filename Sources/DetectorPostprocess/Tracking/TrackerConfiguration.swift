import DetectorModelFile
import DetectorImage
/// Settings of an `IoUTracker`. The defaults were chosen on the eleven sequences of
/// `../shared/mot` (MOT15, Faster R-CNN) and `../shared/mot17` (YOLOX-X), checked leave one
/// sequence out (see `Tests/DetectorCoreTests/DetectorPostprocess/Tracking/README.md` for the numbers and grid),
/// and are the same for every model family: score thresholds are relative to the detector's
/// own confident score, and timestamps make `maxAge` mean the same at any fps.
///
/// ```swift
/// var configuration = TrackerConfiguration()          // the measured defaults
/// configuration.reportsFromFirstFrame = true          // ML Kit: an ID from the first frame
/// configuration.maxAge = .milliseconds(3_000)         // keep lost objects longer
/// var tracker = try IoUTracker(configuration: configuration)
/// ```
public struct TrackerConfiguration: Sendable, Equatable, Codable {
    /// How long an unmatched track is kept alive.
    public enum MaxAge: Sendable, Equatable, Codable {
        /// Number of consecutive updates without a match after which the track is dropped.
        case frames(Int)
        /// Time since the track's last match after which it is dropped, so 15 fps and 30 fps
        /// video behave alike. Updates without a timestamp count as `IoUTracker.assumedFrameIntervalMs` apart.
        case milliseconds(Int64)
    }

    /// How detections are split into high and low scores (ByteTrack's idea): high ones may
    /// start tracks; low ones only continue confirmed tracks, at `lowScoreWeight`.
    public enum ScoreSplit: Sendable, Equatable, Codable {
        /// Fixed scores: high is `>= highScore`, low is in [`lowScore`, `highScore`), lower ones
        /// are ignored.
        case fixed(highScore: Float, lowScore: Float)
        /// The high/low split follows the detector's own score scale: a detection is low when
        /// its score is below the `quantile` of the scores of about the last 1,000 detections
        /// (so with 0.3 the weakest 30 % are low), whatever the model family's score range.
        case adaptive(quantile: Float)
        /// Thresholds as fractions of the detector's "confident" score, the 0.95-quantile of the
        /// scores of about the last 1,000 detections (`IoUTracker.referenceScoreQuantile`):
        /// high is `>= high × reference`, low is in [`low × reference`, `high × reference`),
        /// lower ones are ignored, and a new track needs `>= newTrack × reference`. With YOLOX
        /// (confident boxes score about 0.94) the defaults 0.65 / 0.1 / 0.85 are 0.61 / 0.09 / 0.8
        /// (ByteTrack uses 0.6 / 0.1 / 0.7); with a detector whose confident boxes score 0.5 they
        /// scale down to 0.33 / 0.05 / 0.43. When
        /// the reference is not positive (no scores yet, or logits), every detection is high.
        case relative(high: Float, low: Float, newTrack: Float)
    }

    /// Which box a reported object carries in `TrackedObject.box` (the other is always given
    /// too: `TrackedObject.detectionBox` is the matched detection's).
    public enum ReportedBox: String, Sendable, Equatable, Codable, CaseIterable {
        /// The matched detection's own box.
        case detection
        /// The motion model's corrected estimate (smoother; lags a little on fast motion).
        case filtered
    }

    /// The ground-plane gate's settings (see `groundPlane`). Positions are in units of a
    /// person's height on a ground plane learnt from the detections (`h ≈ k · (feet row − horizon)`),
    /// so the same numbers hold at any resolution.
    public struct GroundPlane: Sendable, Equatable, Codable {
        /// Largest squared Mahalanobis distance (2 degrees of freedom) between a track's predicted
        /// foot point and a detection's for them to match.
        public var gate: Float
        /// Detection noise across, as a fraction of the box width.
        public var noiseX: Float
        /// Detection noise of the feet row, as a fraction of the box height.
        public var noiseY: Float
        /// Random acceleration of a walking person, in heights per second².
        public var accelerationStd: Float
        /// The camera's focal length in frame widths (1.5: a horizontal field of view of about 37°;
        /// it sets how far apart in depth two foot rows are).
        public var focalLength: Float
        /// Confident detections needed before the plane is fitted (until then a box's own height
        /// stands in for the fitted one).
        public var minimumFitCount: Int

        /// The measured defaults.
        public init(gate: Float = 12, noiseX: Float = 0.2, noiseY: Float = 0.08, accelerationStd: Float = 0.3,
                    focalLength: Float = 1.5, minimumFitCount: Int = 50) {
            self.gate = gate
            self.noiseX = noiseX
            self.noiseY = noiseY
            self.accelerationStd = accelerationStd
            self.focalLength = focalLength
            self.minimumFitCount = minimumFitCount
        }
    }

    /// Minimum IoU between a track's predicted box and a detection for them to match.
    public var iouThreshold: Float
    /// How long an unmatched track survives (tentative and confirmed alike).
    public var maxAge: MaxAge
    /// Matches a new track needs (including the one that created it) before it gets an ID
    /// and is reported. 1 reports every detection from its first frame, as ML Kit does.
    public var minHits: Int
    /// Consecutive matches a confirmed track needs after a gap before it is reported again
    /// (SORT's rule is `minHits`; 1, the default, reports it from its first match after the gap:
    /// with the ground-plane gate a re-match is rarely wrong, and waiting would hide a right one).
    public var hitsAfterGap: Int
    /// When true, tracks started in the first `minHits` updates are confirmed at once, so a
    /// stream's opening frames are not lost to the warm-up (as SORT and ByteTrack do).
    public var confirmImmediatelyAtStart: Bool
    /// When true, a detection only matches a track of the same (smoothed) class.
    /// Off by default: detectors flip labels between frames and the object must keep its ID.
    public var classAware: Bool
    /// Motion model used to predict a track's box before matching.
    public var motion: TrackMotionModel
    /// The high/low score split; `nil` treats every detection as high.
    public var scoreSplit: ScoreSplit?
    /// Factor on the matching score of a low-score detection, so that a high-score detection
    /// wins a close call (ByteTrack matches high ones first; here both are in one assignment).
    public var lowScoreWeight: Float
    /// IoU a low-score detection needs with a track's predicted box (ByteTrack's second stage
    /// uses 0.5); low-score detections only continue confirmed tracks matched in the previous
    /// update, never a track that is already lost. (With `reportsFromFirstFrame`, where a
    /// low-score detection may start a track, it may also continue any track at `iouThreshold`.)
    public var lowScoreIoUThreshold: Float
    /// ByteTrack's score fusion: a pair's matching score is multiplied by the detection's score
    /// (relative to the reference score with a `.relative` split), so of two boxes that overlap a
    /// track alike the more confident one wins.
    public var scoreWeightedMatching: Bool
    /// A lost track keeps its last size instead of growing or shrinking at its last rate (as
    /// ByteTrack holds the height velocity of a lost track): a box that grew over its first two
    /// frames must not coast into a box several times its size.
    public var holdsSizeWhileLost: Bool
    /// ML Kit's behaviour: every detection is reported with an ID from its first frame (new
    /// tracks are confirmed at once, whatever `minHits`, and low-score detections start tracks
    /// too). The detector's stream modes turn it on; matching and track lifetimes stay the same.
    public var reportsFromFirstFrame: Bool
    /// Weight of the centre-distance term in the matching score `IoU − w·d²/c²` (d: distance
    /// of the centres, c: diagonal of the smallest box enclosing both; 0, the default, leaves it
    /// out). DIoU's term; `footDistanceWeight` replaced it as the default distance term.
    public var centreDistanceWeight: Float
    /// Weight of the foot-point term in the matching score `IoU − w·f²/h²` (f: distance between
    /// the bottom-centre points of the track's predicted box and the detection, h: the predicted
    /// box's height; nil or 0 leaves it out). Measured in the track's own height, it separates two
    /// people whose boxes overlap but who stand at different depths (their feet are at different
    /// image heights), as a ground-plane distance does without a camera model. It is added to
    /// the centre term when both are set. (nil in states saved before it existed, which keeps
    /// their behaviour.)
    public var footDistanceWeight: Float?
    /// A track that missed updates only takes a detection whose centre lies within
    /// `reacquisitionGate + reacquisitionGrowth × seconds lost` of its predicted centre, in
    /// heights of its predicted box, so a track that coasted for a while cannot jump to another
    /// object across the frame (nil: no gate; IoU alone decides).
    public var reacquisitionGate: Float?
    /// A track that missed updates only takes a detection whose height is within this factor
    /// of its predicted height and of its last detection's height (either way): after a gap, a
    /// box of another size is another person, usually at another depth (nil: no limit).
    public var reacquisitionHeightRatio: Float?
    /// How fast the re-acquisition gate widens, in box heights per second lost (a walking
    /// person covers about one body height per second).
    public var reacquisitionGrowth: Float
    /// OC-SORT's observation-centric re-update: when a track is found again after a gap,
    /// its filter is re-run over boxes interpolated between the last and the new detection,
    /// so the velocity after an occlusion is not the stale one.
    public var reupdateAfterGap: Bool
    /// UCMCTrack's idea without a camera model: each track also follows its foot point on a ground
    /// plane learnt from the detections (`GroundPlane`), and a detection whose foot point is
    /// further than `gate` (squared Mahalanobis distance) from the track's predicted one does not
    /// match it, however much the boxes overlap (a person passing in front, or standing behind);
    /// a confirmed track lost for an update or more may also take an unmatched high-score
    /// detection inside that gate without any overlap. Needs the frame width
    /// (`IoUTracker.frameWidth`); without it, or with nil here, matching is by boxes alone. (nil in
    /// states saved before it existed, which keeps their behaviour.)
    public var groundPlane: GroundPlane?
    /// Number of recent detections whose score-weighted class votes give the reported label.
    public var labelHistoryLength: Int
    /// Which box reported objects carry.
    public var reportedBox: ReportedBox

    /// Creates a configuration; the defaults are the measured ones.
    public init(
        iouThreshold: Float = 0.2,
        maxAge: MaxAge = .milliseconds(1_000),
        minHits: Int = 3,
        hitsAfterGap: Int = 1,
        confirmImmediatelyAtStart: Bool = true,
        classAware: Bool = false,
        motion: TrackMotionModel = .kalman,
        scoreSplit: ScoreSplit? = .relative(high: 0.65, low: 0.1, newTrack: 0.85),
        lowScoreWeight: Float = 0.2,
        lowScoreIoUThreshold: Float = 0.5,
        scoreWeightedMatching: Bool = true,
        holdsSizeWhileLost: Bool = true,
        centreDistanceWeight: Float = 0,
        footDistanceWeight: Float? = 3,
        reacquisitionGate: Float? = 0.25,
        reacquisitionGrowth: Float = 1,
        reacquisitionHeightRatio: Float? = 1.4,
        reupdateAfterGap: Bool = false,
        groundPlane: GroundPlane? = GroundPlane(),
        reportsFromFirstFrame: Bool = false,
        labelHistoryLength: Int = 30,
        reportedBox: ReportedBox = .filtered
    ) {
        self.iouThreshold = iouThreshold
        self.maxAge = maxAge
        self.minHits = minHits
        self.hitsAfterGap = hitsAfterGap
        self.confirmImmediatelyAtStart = confirmImmediatelyAtStart
        self.classAware = classAware
        self.motion = motion
        self.scoreSplit = scoreSplit
        self.lowScoreWeight = lowScoreWeight
        self.lowScoreIoUThreshold = lowScoreIoUThreshold
        self.scoreWeightedMatching = scoreWeightedMatching
        self.holdsSizeWhileLost = holdsSizeWhileLost
        self.reportsFromFirstFrame = reportsFromFirstFrame
        self.centreDistanceWeight = centreDistanceWeight
        self.footDistanceWeight = footDistanceWeight
        self.reacquisitionGate = reacquisitionGate
        self.reacquisitionGrowth = reacquisitionGrowth
        self.reacquisitionHeightRatio = reacquisitionHeightRatio
        self.reupdateAfterGap = reupdateAfterGap
        self.groundPlane = groundPlane
        self.labelHistoryLength = labelHistoryLength
        self.reportedBox = reportedBox
    }

    /// Throws `TrackerError.invalidConfiguration` naming the first value out of range.
    public func validate() throws {
        guard iouThreshold.isFinite, iouThreshold > 0, iouThreshold <= 1 else {
            throw TrackerError.invalidConfiguration(field: "iouThreshold", reason: "must be in (0, 1], got \(iouThreshold)")
        }
        switch maxAge {
        case .frames(let n) where n < 0:
            throw TrackerError.invalidConfiguration(field: "maxAge", reason: "frames must be 0 or more, got \(n)")
        case .milliseconds(let ms) where ms < 0:
            throw TrackerError.invalidConfiguration(field: "maxAge", reason: "milliseconds must be 0 or more, got \(ms)")
        default:
            break
        }
        guard minHits >= 1, minHits <= 1_000 else {
            throw TrackerError.invalidConfiguration(field: "minHits", reason: "must be in 1...1000, got \(minHits)")
        }
        guard hitsAfterGap >= 1, hitsAfterGap <= 1_000 else {
            throw TrackerError.invalidConfiguration(field: "hitsAfterGap", reason: "must be in 1...1000, got \(hitsAfterGap)")
        }
        guard labelHistoryLength >= 1, labelHistoryLength <= 10_000 else {
            throw TrackerError.invalidConfiguration(field: "labelHistoryLength", reason: "must be in 1...10000, got \(labelHistoryLength)")
        }
        guard centreDistanceWeight.isFinite, centreDistanceWeight >= 0, centreDistanceWeight <= 10 else {
            throw TrackerError.invalidConfiguration(field: "centreDistanceWeight", reason: "must be in 0...10, got \(centreDistanceWeight)")
        }
        if let weight = footDistanceWeight {
            guard weight.isFinite, weight >= 0, weight <= 10 else {
                throw TrackerError.invalidConfiguration(field: "footDistanceWeight", reason: "must be in 0...10, got \(weight)")
            }
        }
        if let gate = reacquisitionGate {
            guard gate.isFinite, gate > 0 else {
                throw TrackerError.invalidConfiguration(field: "reacquisitionGate", reason: "must be a positive number, got \(gate)")
            }
        }
        if let ratio = reacquisitionHeightRatio {
            guard ratio.isFinite, ratio >= 1 else {
                throw TrackerError.invalidConfiguration(field: "reacquisitionHeightRatio", reason: "must be a number of at least 1, got \(ratio)")
            }
        }
        guard reacquisitionGrowth.isFinite, reacquisitionGrowth >= 0 else {
            throw TrackerError.invalidConfiguration(field: "reacquisitionGrowth", reason: "must be 0 or more, got \(reacquisitionGrowth)")
        }
        if let ground = groundPlane {
            func check(_ name: String, _ value: Float) throws {
                guard value.isFinite, value > 0, value <= 1_000 else {
                    throw TrackerError.invalidConfiguration(field: "groundPlane.\(name)", reason: "must be in (0, 1000], got \(value)")
                }
            }
            try check("gate", ground.gate)
            try check("noiseX", ground.noiseX)
            try check("noiseY", ground.noiseY)
            try check("accelerationStd", ground.accelerationStd)
            try check("focalLength", ground.focalLength)
            guard ground.minimumFitCount >= 2, ground.minimumFitCount <= 1_000_000 else {
                throw TrackerError.invalidConfiguration(
                    field: "groundPlane.minimumFitCount", reason: "must be in 2...1000000, got \(ground.minimumFitCount)")
            }
        }
        guard lowScoreWeight.isFinite, lowScoreWeight > 0, lowScoreWeight <= 1 else {
            throw TrackerError.invalidConfiguration(field: "lowScoreWeight", reason: "must be in (0, 1], got \(lowScoreWeight)")
        }
        guard lowScoreIoUThreshold.isFinite, lowScoreIoUThreshold > 0, lowScoreIoUThreshold <= 1 else {
            throw TrackerError.invalidConfiguration(field: "lowScoreIoUThreshold", reason: "must be in (0, 1], got \(lowScoreIoUThreshold)")
        }
        switch scoreSplit {
        case let .fixed(high, low)?:
            guard high.isFinite, low.isFinite, low <= high else {
                throw TrackerError.invalidConfiguration(
                    field: "scoreSplit", reason: "needs finite scores with lowScore <= highScore, got \(low) and \(high)")
            }
        case let .adaptive(quantile)?:
            guard quantile.isFinite, quantile >= 0, quantile < 1 else {
                throw TrackerError.invalidConfiguration(field: "scoreSplit", reason: "quantile must be in [0, 1), got \(quantile)")
            }
        case let .relative(high, low, newTrack)?:
            guard high.isFinite, low.isFinite, newTrack.isFinite, low >= 0, low <= high, high <= newTrack, newTrack <= 10 else {
                throw TrackerError.invalidConfiguration(
                    field: "scoreSplit", reason: "needs finite fractions with 0 <= low <= high <= newTrack <= 10, got \(low), \(high) and \(newTrack)")
            }
        case nil:
            break
        }
    }
}
