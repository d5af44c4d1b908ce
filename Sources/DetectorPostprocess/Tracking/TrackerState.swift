import DetectorModelFile
import DetectorImage
/// A tracker's whole state as a value: its configuration, its tracks (motion filters, counters,
/// class votes), its clock and the next ID it will give. Encode it (it is `Codable`) to carry a
/// tracker across video segments or process restarts, and give it to `IoUTracker(state:)` to
/// resume: the resumed tracker gives the same IDs as one that never stopped, and never reuses
/// an ID handed out before the snapshot.
///
/// ```swift
/// var tracker = try IoUTracker()
/// _ = try tracker.update(firstSegmentDetections, timestampMs: 0)
/// let data = try JSONEncoder().encode(tracker.state)
/// // ... later, maybe in another process:
/// var resumed = try IoUTracker(state: try JSONDecoder().decode(TrackerState.self, from: data))
/// ```
///
/// Decoded data is checked when the tracker is made from it (`TrackerError.invalidState`), so a
/// damaged or hand-edited file is refused with a reason rather than trusted.
public struct TrackerState: Codable, Sendable, Equatable {
    /// The layout version of this value; `IoUTracker(state:)` refuses other versions.
    public static let currentFormatVersion = 1

    /// The layout version the value was written with.
    public var formatVersion: Int
    /// The settings of the tracker that wrote the state (the resumed tracker uses them).
    public var configuration: TrackerConfiguration
    /// The ID the next confirmed track gets (every ID handed out so far is below it).
    public var nextTrackID: Int
    /// The last update's timestamp, when updates came with one; a resumed tracker needs later ones.
    public var lastTimestampMs: Int64?
    /// Updates since the tracker was made or reset.
    var updateCount: Int
    /// The tracker's clock in milliseconds.
    var nowMs: Double
    /// Recent detection scores, oldest first (for the score split).
    var recentScores: [Float]
    /// Live tracks, in the tracker's order.
    var tracks: [TrackSnapshot]
    /// The frame width the ground-plane gate works in (`IoUTracker.frameWidth`).
    var frameWidth: Double?
    /// The learnt ground plane: count, Σy, Σh, Σy², Σy·h, Σh², R², then slope and horizon when fitted.
    var groundFit: [Double]?

    /// One live track.
    struct TrackSnapshot: Codable, Sendable, Equatable {
        var id: Int?
        var motion: MotionSnapshot
        var motionAtLastDetection: MotionSnapshot
        var lastDetection: TrackBox
        /// Class votes (class, score), oldest first.
        var votes: [Vote]
        var hits: Int
        var missedUpdates: Int
        var lastMatchMs: Double
        var streak: Int
        /// The ground-plane filter: X, Z, vX, vZ and the 4×4 covariance (nil without one).
        var ground: [Double]?
    }

    struct Vote: Codable, Sendable, Equatable {
        var classIndex: Int
        var score: Float
    }

    /// A motion filter's numbers: the Kalman axes (centre x, centre y, area, aspect: value,
    /// rate, covariance p00 p01 p11 each) and the simple models' box, velocity and clock.
    struct MotionSnapshot: Codable, Sendable, Equatable {
        var kalman: [Double]
        var current: [Double]
        var velocity: [Double]
        var framesSinceCorrection: Double
        var hasVelocity: Bool
    }
}

extension IoUTracker {
    /// The tracker's state as a value (see `TrackerState`).
    public var state: TrackerState {
        TrackerState(
            formatVersion: TrackerState.currentFormatVersion, configuration: configuration, nextTrackID: nextID,
            lastTimestampMs: lastTimestampMs, updateCount: updateCount, nowMs: nowMs,
            recentScores: recentScores.chronological,
            tracks: tracks.indices.map { index in
                let track = tracks[index]
                return TrackerState.TrackSnapshot(
                    id: track.id, motion: track.motion.snapshot, motionAtLastDetection: track.motionAtLastDetection.snapshot,
                    lastDetection: track.lastDetection,
                    votes: track.labels.votes.map { TrackerState.Vote(classIndex: $0.classIndex, score: $0.score) },
                    hits: track.hits, missedUpdates: track.missedUpdates, lastMatchMs: track.lastMatchMs,
                    streak: track.streak, ground: groundFilter(index)?.numbers)
            },
            frameWidth: frameWidth, groundFit: groundFit.numbers)
    }

    /// Resumes a tracker from a state taken with `state`; throws `TrackerError.invalidState`
    /// (or `.invalidConfiguration`) when the value is not one a tracker could have written.
    public init(state: TrackerState) throws {
        guard state.formatVersion == TrackerState.currentFormatVersion else {
            throw TrackerError.invalidState(reason: "format version \(state.formatVersion) is not \(TrackerState.currentFormatVersion)")
        }
        try self.init(configuration: state.configuration)
        guard state.nextTrackID >= 1, state.nextTrackID < Int.max / 2 else {
            throw TrackerError.invalidState(reason: "next track ID \(state.nextTrackID) is out of range")
        }
        guard state.updateCount >= 0, state.updateCount < Int.max / 2, state.nowMs.isFinite else {
            throw TrackerError.invalidState(reason: "the update count or clock is out of range")
        }
        guard state.tracks.count <= Self.maxLiveTracks else {
            throw TrackerError.invalidState(reason: "\(state.tracks.count) tracks, more than the limit of \(Self.maxLiveTracks)")
        }
        guard state.recentScores.count <= Self.scoreWindowCapacity else {
            throw TrackerError.invalidState(reason: "\(state.recentScores.count) recent scores, more than \(Self.scoreWindowCapacity)")
        }
        var seen = Set<Int>()
        var tracks: [Track] = []
        var groundFilters: [GroundMotion?] = []
        for (index, snapshot) in state.tracks.enumerated() {
            if let id = snapshot.id {
                guard id >= 1, id < state.nextTrackID, seen.insert(id).inserted else {
                    throw TrackerError.invalidState(reason: "track \(index) has ID \(id): not unique or not below the next ID \(state.nextTrackID)")
                }
            }
            guard snapshot.hits >= 1, snapshot.hits < Int.max / 2, snapshot.missedUpdates >= 0, snapshot.missedUpdates < Int.max / 2,
                  snapshot.streak >= 0, snapshot.streak < Int.max / 2, snapshot.lastMatchMs.isFinite,
                  snapshot.lastDetection.isUsable,
                  snapshot.votes.count <= state.configuration.labelHistoryLength else {
                throw TrackerError.invalidState(reason: "track \(index) has a counter, box or class history out of range")
            }
            guard let motion = BoxMotionState(model: state.configuration.motion, snapshot: snapshot.motion),
                  let atDetection = BoxMotionState(model: state.configuration.motion, snapshot: snapshot.motionAtLastDetection) else {
                throw TrackerError.invalidState(reason: "track \(index) has a motion filter with missing or non-finite numbers")
            }
            var labels = LabelHistory(capacity: state.configuration.labelHistoryLength)
            for vote in snapshot.votes { labels.add(classIndex: vote.classIndex, score: vote.score) }
            var track = Track(
                id: snapshot.id, motion: motion, labels: labels, smoothedClass: labels.smoothedClass, hits: snapshot.hits,
                missedUpdates: snapshot.missedUpdates, lastMatchMs: snapshot.lastMatchMs,
                lastDetection: snapshot.lastDetection, motionAtLastDetection: atDetection)
            track.streak = snapshot.streak
            var filter: GroundMotion?
            if let numbers = snapshot.ground {
                guard let ground = GroundMotion(numbers: numbers) else {
                    throw TrackerError.invalidState(reason: "track \(index) has a ground-plane filter with missing or non-finite numbers")
                }
                filter = ground
            }
            tracks.append(track)
            groundFilters.append(filter)
        }
        self.tracks = tracks
        // Filters are kept only while some track has one (as `update` leaves them under a trusted plane).
        if groundFilters.contains(where: { $0 != nil }) { self.groundFilters = groundFilters }
        nextID = state.nextTrackID
        updateCount = state.updateCount
        lastTimestampMs = state.lastTimestampMs
        nowMs = state.nowMs
        for score in state.recentScores { recentScores.add(score) }
        if let width = state.frameWidth {
            guard width.isFinite, width > 0 else { throw TrackerError.invalidState(reason: "frame width \(width) is not a positive number") }
            frameWidth = width
        }
        if let numbers = state.groundFit {
            guard let fit = GroundPlaneFit(numbers: numbers) else {
                throw TrackerError.invalidState(reason: "the ground plane has missing or non-finite numbers")
            }
            groundFit = fit
        }
    }
}

extension BoxMotionState {
    var snapshot: TrackerState.MotionSnapshot {
        TrackerState.MotionSnapshot(
            kalman: [centreX, centreY, area, aspect].flatMap { [$0.value, $0.rate, $0.p00, $0.p01, $0.p11] },
            current: [current.0, current.1, current.2, current.3],
            velocity: [velocity.0, velocity.1, velocity.2, velocity.3],
            framesSinceCorrection: framesSinceCorrection, hasVelocity: hasVelocity)
    }

    /// Rebuilds a filter from its numbers; nil when a count is wrong or a number is not finite.
    init?(model: TrackMotionModel, snapshot: TrackerState.MotionSnapshot) {
        let k = snapshot.kalman, c = snapshot.current, v = snapshot.velocity
        guard k.count == 20, c.count == 4, v.count == 4, snapshot.framesSinceCorrection.isFinite,
              snapshot.framesSinceCorrection >= 0,
              (k + c + v).allSatisfy({ $0.isFinite }) else { return nil }
        self.init(model: model, box: TrackBox(x: 0, y: 0, width: 1, height: 1))
        func axis(_ i: Int) -> KalmanAxis {
            var a = KalmanAxis(value: k[5 * i], positionStd: 0, rateStd: 0)
            a.rate = k[5 * i + 1]
            a.p00 = k[5 * i + 2]
            a.p01 = k[5 * i + 3]
            a.p11 = k[5 * i + 4]
            return a
        }
        centreX = axis(0)
        centreY = axis(1)
        area = axis(2)
        aspect = axis(3)
        current = (c[0], c[1], c[2], c[3])
        velocity = (v[0], v[1], v[2], v[3])
        framesSinceCorrection = snapshot.framesSinceCorrection
        hasVelocity = snapshot.hasVelocity
    }
}

extension GroundPlaneFit {
    /// count, Σy, Σh, Σy², Σy·h, Σh², R², then slope and horizon when fitted.
    var numbers: [Double] {
        var numbers = [count, sumY, sumH, sumYY, sumYH, sumHH, explained]
        if let slope { numbers += [slope, horizon] }
        return numbers
    }

    /// Rebuilds a fit from `numbers`; nil unless there are 7 or 9 finite ones with a count of 0
    /// or more, R² in [0, 1] (and a slope above the minimum).
    init?(numbers: [Double]) {
        guard numbers.count == 7 || numbers.count == 9, numbers.allSatisfy({ $0.isFinite }), numbers[0] >= 0,
              numbers[6] >= 0, numbers[6] <= 1 else { return nil }
        self.init()
        count = numbers[0]
        sumY = numbers[1]
        sumH = numbers[2]
        sumYY = numbers[3]
        sumYH = numbers[4]
        sumHH = numbers[5]
        explained = numbers[6]
        if numbers.count == 9 {
            guard numbers[7] > Self.minimumSlope else { return nil }
            slope = numbers[7]
            horizon = numbers[8]
        }
    }
}
