import DetectorModelFile
import DetectorImage
import Foundation
/// How a track's box is carried from one frame to the next before matching.
public enum TrackMotionModel: String, Sendable, Equatable, Codable, CaseIterable {
    /// The box stays where it was last seen.
    case none
    /// The box moves by a smoothed per-frame displacement measured between matches.
    case constantVelocity
    /// SORT's constant-velocity Kalman filter on centre, area and aspect ratio.
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
///
/// The Kalman model is SORT's: state centre x, centre y, area and aspect ratio (width/height),
/// with constant velocity on the first three and a constant aspect ratio. Noise (pixels):
/// measurement std 1 on the centre and √10 on area and aspect; initial std √10 on the state and
/// 100 on the velocities; process std 1 on the state, 0.1 on the centre velocities and 0.01
/// on the area velocity. Because every matrix is block-diagonal by coordinate, the filter
/// runs as four independent two-state filters.
struct BoxMotionState: Sendable {
    /// Weight of the newest displacement in the constant-velocity model's running average.
    static let velocitySmoothing = 0.5
    static let measurementCentreStd = 1.0
    static let measurementShapeStd = 10.0.squareRoot()
    static let initialStateStd = 10.0.squareRoot()
    static let initialVelocityStd = 100.0
    static let processStateStd = 1.0
    static let processCentreVelocityStd = 0.1
    static let processAreaVelocityStd = 0.01

    let model: TrackMotionModel
    // Kalman state.
    var centreX: KalmanAxis
    var centreY: KalmanAxis
    var area: KalmanAxis
    var aspect: KalmanAxis
    // Simple models: last corrected box and per-frame displacement of (cx, cy, w, h).
    var current: (Double, Double, Double, Double)
    var velocity: (Double, Double, Double, Double) = (0, 0, 0, 0)
    var framesSinceCorrection: Double = 0
    var hasVelocity = false

    init(model: TrackMotionModel, box: TrackBox) {
        self.model = model
        let cx = Double(box.x) + Double(box.width) / 2
        let cy = Double(box.y) + Double(box.height) / 2
        let w = Double(box.width), h = Double(box.height)
        current = (cx, cy, w, h)
        let s = Self.initialStateStd, v = Self.initialVelocityStd
        centreX = KalmanAxis(value: cx, positionStd: s, rateStd: v)
        centreY = KalmanAxis(value: cy, positionStd: s, rateStd: v)
        area = KalmanAxis(value: w * h, positionStd: s, rateStd: v)
        aspect = KalmanAxis(value: w / h, positionStd: s, rateStd: 0)
    }

    /// The current estimate as a box (sides kept positive).
    var box: TrackBox {
        let (cx, cy, w, h): (Double, Double, Double, Double)
        if model == .kalman {
            let a = max(area.value, 1e-6), r = max(aspect.value, 1e-6)
            (cx, cy, w, h) = (centreX.value, centreY.value, (a * r).squareRoot(), (a / r).squareRoot())
        } else {
            (cx, cy, w, h) = current
        }
        let width = max(w, 1e-3), height = max(h, 1e-3)
        return TrackBox(x: Float(cx - width / 2), y: Float(cy - height / 2), width: Float(width), height: Float(height))
    }

    /// Moves the estimate `dt` frames forward; with `holdingSize` the box keeps its size (its
    /// size velocity is set to zero first).
    mutating func predict(dt: Double, holdingSize: Bool = false) {
        switch model {
        case .none:
            break
        case .constantVelocity:
            framesSinceCorrection += dt
            guard hasVelocity else { return }
            if holdingSize { velocity.2 = 0; velocity.3 = 0 }
            current.0 += velocity.0 * dt
            current.1 += velocity.1 * dt
            current.2 = max(current.2 + velocity.2 * dt, 1e-3)
            current.3 = max(current.3 + velocity.3 * dt, 1e-3)
        case .kalman:
            // A shrinking box must not reach zero area: stop its area velocity instead.
            if holdingSize || area.value + area.rate * dt <= 0 { area.rate = 0 }
            let q = Self.processStateStd
            centreX.predict(dt: dt, positionNoiseStd: q, rateNoiseStd: Self.processCentreVelocityStd)
            centreY.predict(dt: dt, positionNoiseStd: q, rateNoiseStd: Self.processCentreVelocityStd)
            area.predict(dt: dt, positionNoiseStd: q, rateNoiseStd: Self.processAreaVelocityStd)
            aspect.predict(dt: dt, positionNoiseStd: q, rateNoiseStd: 0)
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
            let back = hasVelocity ? framesSinceCorrection : 0
            let base = (current.0 - velocity.0 * back, current.1 - velocity.1 * back,
                        current.2 - velocity.2 * back, current.3 - velocity.3 * back)
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
            centreX.correct(measurement: cx, measurementStd: Self.measurementCentreStd)
            centreY.correct(measurement: cy, measurementStd: Self.measurementCentreStd)
            area.correct(measurement: w * h, measurementStd: Self.measurementShapeStd)
            aspect.correct(measurement: w / h, measurementStd: Self.measurementShapeStd)
        }
    }
}
