import DetectorModelFile
import DetectorImage
/// One detection handed to the tracker.
public struct TrackerDetection: Sendable, Equatable {
    /// The detection's box in pixels.
    public var box: TrackBox
    /// The detector's confidence.
    public var score: Float
    /// The detector's class index, or nil when there is none.
    public var classIndex: Int?

    public init(box: TrackBox, score: Float, classIndex: Int? = nil) {
        self.box = box
        self.score = score
        self.classIndex = classIndex
    }
}

/// One object reported by the tracker for the current update.
public struct TrackedObject: Sendable, Equatable {
    /// The track's identity: positive, assigned in increasing order, never reused.
    public var trackID: Int
    /// The reported box: the filtered estimate by default (`TrackerConfiguration.reportedBox`).
    public var box: TrackBox
    /// The matched detection's own box, as the detector gave it.
    public var detectionBox: TrackBox
    /// The matched detection's score.
    public var score: Float
    /// The class smoothed over the track's recent detections (nil if none had a class).
    public var classIndex: Int?
    /// Index of the matched detection in the array given to `update`.
    public var detectionIndex: Int
    /// How many detections this track has matched so far.
    public var hits: Int
}

/// A multi-object tracker that links detections across frames by box overlap (IoU) and
/// gives each object a stable identity, in the manner of SORT, ByteTrack and OC-SORT.
///
/// Each update predicts every track's box forward (Kalman filter by default) and matches
/// tracks to detections with an optimal assignment that maximises the summed matching score
/// (`IoU − footDistanceWeight · f²/h²`, f the distance of the boxes' bottom-centre points and h
/// the predicted height) over pairs whose IoU reaches `iouThreshold`; a
/// track that has been lost only takes a detection inside its re-acquisition gate. With
/// `scoreSplit`, low-score detections take part at `lowScoreWeight` of their score, only
/// for confirmed tracks, and never start a track. Matched tracks are
/// corrected, unmatched detections start tentative tracks, and tracks (tentative or
/// confirmed) unmatched for longer than `maxAge` are dropped. A track gets its ID once it
/// has `minHits` consecutive matches and is reported in every update where it matches a
/// detection (after a gap, once it has `hitsAfterGap` consecutive matches again); in the
/// first `minHits` updates of a stream tracks are
/// confirmed at once (`confirmImmediatelyAtStart`). Live tracks and detections per update are
/// bounded (`maxLiveTracks`, `maxDetectionsPerUpdate`). Matching is class-agnostic unless
/// `classAware` is set, and the reported class is smoothed over the track's history.
/// Everything is deterministic: the same updates give the same IDs.
///
/// How the defaults were chosen, with the benchmark table against SORT, OC-SORT, ByteTrack
/// and BoT-SORT: `Tests/DetectorCoreTests/DetectorPostprocess/Tracking/README.md`.
///
/// ```swift
/// var tracker = try IoUTracker()
/// let frame1 = [TrackerDetection(box: TrackBox(x: 10, y: 10, width: 50, height: 80), score: 0.9, classIndex: 17)]
/// let objects = try tracker.update(frame1, timestampMs: 0)
/// for object in objects { print(object.trackID, object.box, object.detectionBox) }
/// ```
public struct IoUTracker: Sendable {
    /// The settings this tracker was created with.
    public let configuration: TrackerConfiguration

    struct Track: Sendable {
        var id: Int?                 // nil while tentative
        var motion: BoxMotionState
        var labels: LabelHistory
        var smoothedClass: Int?
        var hits: Int
        var missedUpdates: Int
        var lastMatchMs: Double
        var streak = 1              // consecutive matches up to now
        var lastDetection: TrackBox
        var motionAtLastDetection: BoxMotionState
    }

    /// Most detections one update accepts (more is a `TrackerError.tooManyDetections`); real
    /// detectors return a few hundred at most.
    public static let maxDetectionsPerUpdate = 2_000
    /// Most live tracks (tentative and confirmed); at the limit, unmatched detections start no
    /// new track. Together with `maxDetectionsPerUpdate` this bounds memory and time per update.
    public static let maxLiveTracks = 4_000
    /// Time between two updates that come without a timestamp (30 fps).
    public static let assumedFrameIntervalMs = 1_000.0 / 30

    /// Recent detection scores kept for the score split.
    static let scoreWindowCapacity = 1_000
    /// The quantile of recent scores taken as the detector's "confident" score by a
    /// `.relative` score split.
    public static let referenceScoreQuantile: Float = 0.95

    var tracks: [Track] = []
    var nextID = 1
    var updateCount = 0
    package var lastTimestampMs: Int64?
    /// The tracker's clock: the last update's time in milliseconds.
    var nowMs = 0.0
    var recentScores = ScoreWindow(capacity: IoUTracker.scoreWindowCapacity)
    /// The ground plane learnt from confident detections (`TrackerConfiguration.groundPlane`).
    var groundFit = GroundPlaneFit()
    /// Each track's foot-point filter on the ground plane, parallel to `tracks` (nil until the
    /// track matches a detection with a foot point). Empty when the gate is off and once a
    /// complete fit is not trusted, so such a stream costs nothing per track.
    var groundFilters: [GroundMotion?] = []

    /// Width in pixels of the frames the boxes come from. The ground-plane gate
    /// (`TrackerConfiguration.groundPlane`) needs it and is off while it is nil; set it before the
    /// first update (`objdetect track` does, from `seqinfo.ini`). The detector's stream modes leave
    /// it nil: their objects need not stand on one ground plane (a cup on a table, a hand-held
    /// pan). Not a setting: it belongs to the stream, and a saved state keeps it.
    ///
    /// ```swift
    /// var tracker = try IoUTracker()
    /// tracker.frameWidth = 1920
    /// ```
    public var frameWidth: Double?

    /// Creates a tracker; throws `TrackerError.invalidConfiguration` for out-of-range settings.
    public init(configuration: TrackerConfiguration = TrackerConfiguration()) throws {
        try configuration.validate()
        self.configuration = configuration
    }

    /// Number of live tracks (tentative and confirmed).
    public var liveTrackCount: Int { tracks.count }

    /// The ID the next confirmed track will get (IDs so far are 1..<nextTrackID).
    public var nextTrackID: Int { nextID }

    /// Forgets every track and the clock, keeping the configuration (nothing is reloaded): the
    /// next update starts a new stream, with any timestamp. IDs keep increasing, so an ID given
    /// before the reset is never given again.
    public mutating func reset() {
        tracks.removeAll()
        updateCount = 0
        lastTimestampMs = nil
        nowMs = 0
        recentScores = ScoreWindow(capacity: Self.scoreWindowCapacity)
        groundFit = GroundPlaneFit()
        groundFilters.removeAll()
    }

    /// The last update's timestamp, when it came with one (a resumed tracker needs later ones).
    public var lastUpdateTimestampMs: Int64? { lastTimestampMs }

    /// Advances the tracker by one frame.
    ///
    /// - Parameters:
    ///   - detections: this frame's detections (boxes with a non-finite coordinate or a side
    ///     that is not positive, and NaN scores, are ignored).
    ///   - timestampMs: the frame's time; when given it must be later than the previous one.
    ///     Without it the update counts as `assumedFrameIntervalMs` after the previous one.
    /// - Returns: the confirmed tracks matched in this frame, in the order of `detections`.
    public mutating func update(_ detections: [TrackerDetection], timestampMs: Int64? = nil) throws -> [TrackedObject] {
        if let timestampMs, let last = lastTimestampMs, timestampMs <= last {
            throw TrackerError.timestampNotIncreasing(previousMs: last, receivedMs: timestampMs)
        }
        guard detections.count <= Self.maxDetectionsPerUpdate else {
            throw TrackerError.tooManyDetections(count: detections.count, limit: Self.maxDetectionsPerUpdate)
        }
        let previousMs = nowMs, isFirstUpdate = updateCount == 0
        if let timestampMs {
            lastTimestampMs = timestampMs
            nowMs = Double(timestampMs)
        } else if updateCount > 0 {
            nowMs += Self.assumedFrameIntervalMs
        }
        updateCount += 1
        let ground = groundSettings
        if ground == nil { groundFilters.removeAll() }
        if let ground, !isFirstUpdate, !groundFilters.isEmpty {
            let seconds = (nowMs - previousMs) / 1_000, q = Double(ground.settings.accelerationStd)
            for i in groundFilters.indices { groundFilters[i]?.predict(seconds: seconds, accelerationStd: q) }
        }
        // A track whose time ran out by now cannot match any more.
        if case let .milliseconds(limit) = configuration.maxAge {
            let now = nowMs
            let keep = tracks.indices.map { now - tracks[$0].lastMatchMs <= Double(limit) + 0.5 }
            if keep.contains(false) { compactTracks(keeping: keep) }
        }

        let holdSize = configuration.holdsSizeWhileLost
        for i in tracks.indices { tracks[i].motion.predict(dt: 1, holdingSize: holdSize && tracks[i].missedUpdates > 0) }

        // Split detections into high and low scores (ByteTrack's idea).
        var high: [Int] = []
        var low: [Int] = []
        let usable = detections.indices.filter { detections[$0].box.isUsable && detections[$0].score.isFinite }
        // Scores below `newTrackScore` start no track; `scoreScale` turns a score into the
        // factor of score-weighted matching.
        var newTrackScore = -Float.infinity
        var scoreScale: Float = 1
        switch configuration.scoreSplit {
        case nil:
            high = usable
        case let .fixed(highScore, lowScore)?:
            for index in usable {
                let score = detections[index].score
                if score >= highScore { high.append(index) } else if score >= lowScore { low.append(index) }
            }
        case let .adaptive(quantile)?:
            for index in usable { recentScores.add(detections[index].score) }
            let highScore = recentScores.quantile(quantile)
            for index in usable {
                if detections[index].score >= highScore { high.append(index) } else { low.append(index) }
            }
        case let .relative(highFraction, lowFraction, newTrackFraction)?:
            for index in usable { recentScores.add(detections[index].score) }
            let reference = recentScores.quantile(Self.referenceScoreQuantile)
            if reference > 0, reference.isFinite {
                let highScore = highFraction * reference, lowScore = lowFraction * reference
                newTrackScore = newTrackFraction * reference
                scoreScale = 1 / reference
                for index in usable {
                    let score = detections[index].score
                    if score >= highScore { high.append(index) } else if score >= lowScore { low.append(index) }
                }
            } else {
                high = usable
            }
        }

        // One optimal assignment over every detection: low-score ones count for less and only
        // continue confirmed tracks.
        var trackOfDetection = [Int?](repeating: nil, count: detections.count)
        var matchedTrack = [Bool](repeating: false, count: tracks.count)
        var isLow = [Bool](repeating: false, count: detections.count)
        for d in low { isLow[d] = true }
        let candidates = low.isEmpty ? high : (high + low).sorted()
        // With a trusted plane, every candidate's foot point on the ground, by detection index.
        var groundPoints: [GroundPoint?] = []
        if let ground, groundFit.isTrusted, !groundFilters.isEmpty {
            groundPoints = [GroundPoint?](repeating: nil, count: detections.count)
            for d in candidates { groundPoints[d] = groundPoint(of: detections[d].box, ground) }
        }
        associate(detectionIndices: candidates, detections: detections, isLow: isLow, scoreScale: scoreScale,
                  ground: ground, groundPoints: groundPoints, matchedTrack: &matchedTrack, trackOfDetection: &trackOfDetection)
        if let ground, !groundPoints.isEmpty {
            recoverLostTracks(highIndices: high, detections: detections, ground: ground, groundPoints: groundPoints,
                              matchedTrack: &matchedTrack, trackOfDetection: &trackOfDetection)
        }

        // Correct matched tracks.
        for (detectionIndex, trackIndex) in trackOfDetection.enumerated() {
            guard let trackIndex else { continue }
            let detection = detections[detectionIndex]
            correct(trackAt: trackIndex, with: detection)
        }

        // Age unmatched tracks and drop expired ones.
        for index in tracks.indices where !matchedTrack[index] { tracks[index].missedUpdates += 1 }
        let newIndexOfTrack = compactTracks(keeping: tracks.indices.map { matchedTrack[$0] || !isExpired(trackAt: $0) })
        for index in trackOfDetection.indices {
            if let old = trackOfDetection[index] { trackOfDetection[index] = newIndexOfTrack[old] }
        }

        // Unmatched high-score detections start tentative tracks, in detection order (with
        // `reportsFromFirstFrame`, every unmatched detection does).
        let starters = configuration.reportsFromFirstFrame ? candidates : high
        for detectionIndex in starters where trackOfDetection[detectionIndex] == nil {
            guard tracks.count < Self.maxLiveTracks else { break }
            let detection = detections[detectionIndex]
            guard configuration.reportsFromFirstFrame || detection.score >= newTrackScore else { continue }
            var labels = LabelHistory(capacity: configuration.labelHistoryLength)
            labels.add(classIndex: detection.classIndex, score: detection.score)
            trackOfDetection[detectionIndex] = tracks.count
            let motion = BoxMotionState(model: configuration.motion, box: detection.box)
            tracks.append(Track(
                id: nil, motion: motion, labels: labels, smoothedClass: labels.smoothedClass, hits: 1,
                missedUpdates: 0, lastMatchMs: nowMs, lastDetection: detection.box, motionAtLastDetection: motion))
            if !groundFilters.isEmpty { groundFilters.append(nil) }
        }

        // The ground plane learns from this update's confident detections, then every matched or
        // new track's foot point follows its detection — while the fit is still gathering its
        // first detections or is trusted. Once it has them and is not trusted (objects whose size
        // does not follow their row), no track keeps a filter: no upkeep for a plane the gate
        // does not use; filters start again at each track's next match if it becomes trusted.
        if let ground {
            for index in usable where detections[index].score >= newTrackScore {
                let box = detections[index].box
                groundFit.add(feetY: Double(box.y) + Double(box.height), height: Double(box.height))
            }
            groundFit.refit(minimumCount: ground.settings.minimumFitCount)
            if groundFit.isTrusted || groundFit.count < Double(ground.settings.minimumFitCount) {
                if groundFilters.isEmpty { groundFilters = [GroundMotion?](repeating: nil, count: tracks.count) }
                for (detectionIndex, trackIndex) in trackOfDetection.enumerated() {
                    guard let trackIndex else { continue }
                    guard let point = groundPoint(of: detections[detectionIndex].box, ground) else { continue }
                    if groundFilters[trackIndex] == nil {
                        groundFilters[trackIndex] = GroundMotion(at: point)
                    } else {
                        groundFilters[trackIndex]?.correct(with: point)
                    }
                }
            } else {
                groundFilters.removeAll()
            }
        }

        // Confirm tracks with enough consecutive hits, in detection order.
        let minHits = configuration.reportsFromFirstFrame ? 1 : configuration.minHits
        let warmUp = configuration.confirmImmediatelyAtStart && updateCount <= minHits
        var reported: [TrackedObject] = []
        for (detectionIndex, trackIndex) in trackOfDetection.enumerated() {
            guard let trackIndex else { continue }
            // Reported while the current run of consecutive matches reaches minHits (a new
            // track) or hitsAfterGap (a confirmed track re-found after a gap must prove itself
            // again before it is shown, as in SORT).
            let confirmed = tracks[trackIndex].id != nil
            let needed = confirmed ? min(configuration.hitsAfterGap, minHits) : minHits
            guard tracks[trackIndex].streak >= needed || warmUp else { continue }
            if tracks[trackIndex].id == nil {
                tracks[trackIndex].id = nextID
                nextID += 1
            }
            guard let id = tracks[trackIndex].id else { continue }
            let detection = detections[detectionIndex]
            reported.append(TrackedObject(
                trackID: id,
                box: configuration.reportedBox == .detection ? detection.box : tracks[trackIndex].motion.box,
                detectionBox: detection.box,
                score: detection.score, classIndex: tracks[trackIndex].smoothedClass,
                detectionIndex: detectionIndex, hits: tracks[trackIndex].hits))
        }
        return reported
    }

    /// Corrects a matched track with its detection (re-running the filter over the gap first
    /// when `reupdateAfterGap` is set) and updates its counters.
    /// (Works on `tracks[index]` in place: an inout track passed to a method of `self` would
    /// copy the whole track array on every call.)
    private mutating func correct(trackAt index: Int, with detection: TrackerDetection) {
        let gap = tracks[index].missedUpdates
        if configuration.reupdateAfterGap, gap > 0, gap <= 1_000 {
            // Virtual detections on the straight line from the last detection to this one.
            var motion = tracks[index].motionAtLastDetection
            let from = tracks[index].lastDetection, to = detection.box
            let steps = Float(gap + 1)
            for k in 1...gap {
                let t = Float(k) / steps
                motion.predict(dt: 1)
                motion.correct(with: TrackBox(
                    x: from.x + (to.x - from.x) * t, y: from.y + (to.y - from.y) * t,
                    width: from.width + (to.width - from.width) * t, height: from.height + (to.height - from.height) * t))
            }
            motion.predict(dt: 1)
            tracks[index].motion = motion
        }
        tracks[index].motion.correct(with: detection.box)
        tracks[index].motionAtLastDetection = tracks[index].motion
        tracks[index].lastDetection = detection.box
        tracks[index].labels.add(classIndex: detection.classIndex, score: detection.score)
        tracks[index].smoothedClass = tracks[index].labels.smoothedClass
        tracks[index].hits += 1
        tracks[index].streak = gap == 0 ? tracks[index].streak + 1 : 1
        tracks[index].missedUpdates = 0
        tracks[index].lastMatchMs = nowMs
    }

    /// The ground-plane gate's settings with the frame width, when both are set.
    var groundSettings: GroundContext? {
        guard let settings = configuration.groundPlane, let width = frameWidth, width.isFinite, width > 0 else { return nil }
        return GroundContext(settings: settings, frameWidth: width)
    }

    /// A box's foot point on the learnt ground plane and its covariance.
    func groundPoint(of box: TrackBox, _ ground: GroundContext) -> GroundPoint? {
        groundFit.groundPoint(
            of: box, frameWidth: ground.frameWidth, focalLength: Double(ground.settings.focalLength),
            noiseX: Double(ground.settings.noiseX), noiseY: Double(ground.settings.noiseY))
    }

    /// Keeps the tracks whose `keep` entry is true, in their order, with their ground filters;
    /// returns each old index's new one (nil: dropped). In place: swaps move, never copy.
    @discardableResult
    private mutating func compactTracks(keeping keep: [Bool]) -> [Int?] {
        var newIndexOfTrack = [Int?](repeating: nil, count: tracks.count)
        let withFilters = !groundFilters.isEmpty
        var kept = 0
        for index in tracks.indices where keep[index] {
            if kept != index {
                tracks.swapAt(kept, index)
                if withFilters { groundFilters.swapAt(kept, index) }
            }
            newIndexOfTrack[index] = kept
            kept += 1
        }
        tracks.removeLast(tracks.count - kept)
        if withFilters { groundFilters.removeLast(groundFilters.count - kept) }
        return newIndexOfTrack
    }

    /// The ground filter of the track at `index` (nil without one, or while the plane is untrusted).
    func groundFilter(_ index: Int) -> GroundMotion? {
        groundFilters.isEmpty ? nil : groundFilters[index]
    }

    private func isExpired(trackAt index: Int) -> Bool {
        switch configuration.maxAge {
        case .frames(let limit):
            return tracks[index].missedUpdates > limit
        case .milliseconds(let limit):
            // Half a millisecond of slack absorbs rounding of timestamps made from a frame rate.
            return nowMs - tracks[index].lastMatchMs > Double(limit) + 0.5
        }
    }

}

/// The ground-plane gate's settings and the frame width it works in.
struct GroundContext {
    var settings: TrackerConfiguration.GroundPlane
    var frameWidth: Double
}
