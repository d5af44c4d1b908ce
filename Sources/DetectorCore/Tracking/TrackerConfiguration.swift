/// Settings of an `IoUTracker`. The defaults are the ones measured to work (see `init`).
public struct TrackerConfiguration: Sendable, Equatable {
    /// How long an unmatched track is kept alive.
    public enum MaxAge: Sendable, Equatable {
        /// Number of consecutive updates without a match after which the track is dropped.
        case frames(Int)
        /// Time since the track's last match after which it is dropped (needs timestamps).
        case milliseconds(Int64)
    }

    /// Two-stage association (ByteTrack-style): detections scoring at least `highScore` are
    /// matched first; tracks still unmatched then try the detections scoring in
    /// [`lowScore`, `highScore`). Low-score detections never start tracks.
    public struct TwoStage: Sendable, Equatable {
        public var highScore: Float
        public var lowScore: Float
        public init(highScore: Float, lowScore: Float) {
            self.highScore = highScore
            self.lowScore = lowScore
        }
    }

    /// Which box a reported object carries.
    public enum ReportedBox: String, Sendable, Equatable, CaseIterable {
        /// The matched detection's own box.
        case detection
        /// The motion model's corrected estimate (smoother, lags on fast motion).
        case filtered
    }

    /// Minimum IoU between a track's predicted box and a detection for them to match.
    public var iouThreshold: Float
    /// How long an unmatched, confirmed track survives.
    public var maxAge: MaxAge
    /// Matches a new track needs (including the one that created it) before it gets an ID
    /// and is reported. 1 reports every detection at once.
    public var minHits: Int
    /// When true (SORT's rule), a confirmed track that missed frames is reported again only
    /// after `minHits` consecutive matches; when false it is reported from its first match
    /// after the gap (every detection of a known object is shown, at the cost of more ID
    /// switches when the re-match is wrong).
    public var reconfirmAfterGap: Bool
    /// When true, tracks started in the first `minHits` updates are confirmed at once, so a
    /// stream's opening frames are not lost to the warm-up (as SORT and ByteTrack do).
    public var confirmImmediatelyAtStart: Bool
    /// When true, a detection only matches a track of the same (smoothed) class.
    /// Off by default: detectors flip labels between frames and the object must keep its ID.
    public var classAware: Bool
    /// Motion model used to predict a track's box before matching.
    public var motion: TrackMotionModel
    /// Optional two-stage association; `nil` matches every detection in one stage.
    public var twoStage: TwoStage?
    /// Number of recent detections whose score-weighted class votes give the reported label.
    public var labelHistoryLength: Int
    /// Which box reported objects carry.
    public var reportedBox: ReportedBox

    /// Creates a configuration. The defaults were chosen by measurement on the MOT15
    /// TUD-Campus and TUD-Stadtmitte detections (see `IoUTracker` for the numbers).
    public init(
        iouThreshold: Float = 0.25,
        maxAge: MaxAge = .frames(30),
        minHits: Int = 3,
        reconfirmAfterGap: Bool = true,
        confirmImmediatelyAtStart: Bool = true,
        classAware: Bool = false,
        motion: TrackMotionModel = .kalman,
        twoStage: TwoStage? = nil,
        labelHistoryLength: Int = 30,
        reportedBox: ReportedBox = .filtered
    ) {
        self.iouThreshold = iouThreshold
        self.maxAge = maxAge
        self.minHits = minHits
        self.reconfirmAfterGap = reconfirmAfterGap
        self.confirmImmediatelyAtStart = confirmImmediatelyAtStart
        self.classAware = classAware
        self.motion = motion
        self.twoStage = twoStage
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
        guard labelHistoryLength >= 1, labelHistoryLength <= 10_000 else {
            throw TrackerError.invalidConfiguration(field: "labelHistoryLength", reason: "must be in 1...10000, got \(labelHistoryLength)")
        }
        if let stages = twoStage {
            guard stages.highScore.isFinite, stages.lowScore.isFinite, stages.lowScore <= stages.highScore else {
                throw TrackerError.invalidConfiguration(
                    field: "twoStage", reason: "needs finite scores with lowScore <= highScore, got \(stages.lowScore) and \(stages.highScore)")
            }
        }
    }
}
