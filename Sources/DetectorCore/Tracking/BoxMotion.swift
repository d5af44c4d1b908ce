/// How a track's box is carried from one frame to the next before matching.
public enum TrackMotionModel: String, Sendable, Equatable, CaseIterable {
    /// The box stays where it was last seen.
    case none
    /// The box moves by a smoothed per-frame displacement measured between matches.
    case constantVelocity
    /// A constant-velocity Kalman filter on centre, width and height (noise proportional to
    /// the box size, so it behaves the same at any image resolution).
    case kalman
}

/// One coordinate of a constant-velocity Kalman filter: value and rate, 2×2 covariance.
/// Box coordinates are filtered independently; with diagonal noise this is exactly the
/// block structure of the full 8-state filter, at a fraction of the cost.
struct KalmanAxis: Sendable {
    var value: Double
    var rate: Double = 0
    var p00: Double
    var p01: Double = 0
    var p11: Double

    init(value: Double, positionStd: Double, rateStd: Double) {
        self.value = value
        p00 = positionStd * positionStd
        p11 = rateStd * rateStd
    }

    mutating func predict(dt: Double, positionNoiseStd: Double, rateNoiseStd: Double) {
        value += rate * dt
        p00 += 2 * dt * p01 + dt * dt * p11 + positionNoiseStd * positionNoiseStd
        p01 += dt * p11
        p11 += rateNoiseStd * rateNoiseStd
    }

    mutating func correct(measurement: Double, measurementStd: Double) {
        let innovationVariance = p00 + measurementStd * measurementStd
        guard innovationVariance > 0, innovationVariance.isFinite else { return }
        let gainValue = p00 / innovationVariance
        let gainRate = p01 / innovationVariance
        let innovation = measurement - value
        value += gainValue * innovation
        rate += gainRate * innovation
        let newP11 = p11 - gainRate * p01
        p00 *= (1 - gainValue)
        p01 *= (1 - gainValue)
        p11 = max(newP11, 0)
    }
}

/// The motion state of one track: a box estimate that can be predicted forward and corrected
/// by a matched detection.
struct BoxMotionState: Sendable {
    // Noise model (fractions of the box size), after the DeepSORT/ByteTrack convention:
    // position std 1/20 and velocity std 1/160 of the box's size per frame.
    static let positionWeight = 1.0 / 20.0
    static let velocityWeight = 1.0 / 160.0
    /// Weight of the newest displacement in the constant-velocity model's running average.
    static let velocitySmoothing = 0.5

    let model: TrackMotionModel
    // Kalman state: centre x, centre y, width, height.
    private var axes: [KalmanAxis]
    // Simple models: last corrected box and per-frame displacement of (cx, cy, w, h).
    private var current: (Double, Double, Double, Double)
    private var velocity: (Double, Double, Double, Double) = (0, 0, 0, 0)
    private var framesSinceCorrection: Double = 0
    private var hasVelocity = false

    init(model: TrackMotionModel, box: TrackBox) {
        self.model = model
        let cx = Double(box.x) + Double(box.width) / 2
        let cy = Double(box.y) + Double(box.height) / 2
        let w = Double(box.width), h = Double(box.height)
        current = (cx, cy, w, h)
        if model == .kalman {
            let pw = 2 * Self.positionWeight, vw = 10 * Self.velocityWeight
            axes = [
                KalmanAxis(value: cx, positionStd: pw * w, rateStd: vw * w),
                KalmanAxis(value: cy, positionStd: pw * h, rateStd: vw * h),
                KalmanAxis(value: w, positionStd: pw * w, rateStd: vw * w),
                KalmanAxis(value: h, positionStd: pw * h, rateStd: vw * h),
            ]
        } else {
            axes = []
        }
    }

    /// The current estimate as a box (sides kept positive).
    var box: TrackBox {
        let (cx, cy, w, h): (Double, Double, Double, Double)
        if model == .kalman {
            (cx, cy, w, h) = (axes[0].value, axes[1].value, axes[2].value, axes[3].value)
        } else {
            (cx, cy, w, h) = current
        }
        let width = max(w, 1e-3), height = max(h, 1e-3)
        return TrackBox(x: Float(cx - width / 2), y: Float(cy - height / 2), width: Float(width), height: Float(height))
    }

    /// Moves the estimate `dt` frames forward.
    mutating func predict(dt: Double) {
        switch model {
        case .none:
            break
        case .constantVelocity:
            framesSinceCorrection += dt
            guard hasVelocity else { return }
            current.0 += velocity.0 * dt
            current.1 += velocity.1 * dt
            current.2 = max(current.2 + velocity.2 * dt, 1e-3)
            current.3 = max(current.3 + velocity.3 * dt, 1e-3)
        case .kalman:
            let w = max(axes[2].value, 1e-3), h = max(axes[3].value, 1e-3)
            let pw = Self.positionWeight, vw = Self.velocityWeight
            axes[0].predict(dt: dt, positionNoiseStd: pw * w, rateNoiseStd: vw * w)
            axes[1].predict(dt: dt, positionNoiseStd: pw * h, rateNoiseStd: vw * h)
            axes[2].predict(dt: dt, positionNoiseStd: pw * w, rateNoiseStd: vw * w)
            axes[3].predict(dt: dt, positionNoiseStd: pw * h, rateNoiseStd: vw * h)
        }
    }

    /// Corrects the estimate with a matched detection box.
    mutating func correct(with detection: TrackBox) {
        let cx = Double(detection.x) + Double(detection.width) / 2
        let cy = Double(detection.y) + Double(detection.height) / 2
        let w = Double(detection.width), h = Double(detection.height)
        switch model {
        case .none:
            current = (cx, cy, w, h)
        case .constantVelocity:
            // `current` was already predicted forward; measure displacement from the last
            // corrected position (undo the prediction) over the frames that passed.
            let frames = max(framesSinceCorrection, 1)
            let base = hasVelocity
                ? (current.0 - velocity.0 * framesSinceCorrection, current.1 - velocity.1 * framesSinceCorrection,
                   current.2 - velocity.2 * framesSinceCorrection, current.3 - velocity.3 * framesSinceCorrection)
                : current
            let measured = ((cx - base.0) / frames, (cy - base.1) / frames, (w - base.2) / frames, (h - base.3) / frames)
            if hasVelocity {
                let a = Self.velocitySmoothing
                velocity = (a * measured.0 + (1 - a) * velocity.0, a * measured.1 + (1 - a) * velocity.1,
                            a * measured.2 + (1 - a) * velocity.2, a * measured.3 + (1 - a) * velocity.3)
            } else {
                velocity = measured
                hasVelocity = true
            }
            current = (cx, cy, w, h)
            framesSinceCorrection = 0
        case .kalman:
            let hw = max(axes[2].value, 1e-3), hh = max(axes[3].value, 1e-3)
            let pw = Self.positionWeight
            axes[0].correct(measurement: cx, measurementStd: pw * hw)
            axes[1].correct(measurement: cy, measurementStd: pw * hh)
            axes[2].correct(measurement: w, measurementStd: pw * hw)
            axes[3].correct(measurement: h, measurementStd: pw * hh)
        }
    }
}
