import DetectorModelFile
import DetectorImage
/// A ground plane learnt from the detections themselves, without camera parameters.
///
/// For people standing on flat ground seen by a camera with little roll, a box's height grows
/// linearly with how far its bottom edge (the feet) lies below the horizon: `h ≈ k · (y_feet − y0)`.
/// A least-squares line through the (feet row, height) pairs of confident detections gives `k` and
/// the horizon `y0`; the line's height `ĥ` at a box's feet then stands in for the box's own (noisy,
/// occlusion-cut) height. In units of a person's height, a foot point maps to the ground as
/// `X = (x_feet − W/2) / ĥ` (across) and `Z = F / ĥ` (depth), with `F = focalLength × W` (W: the
/// frame width). Two people whose boxes overlap but whose feet stand at different image rows are
/// far apart in Z; a person walking away barely moves in the image but moves in Z.
///
/// ```swift
/// var fit = GroundPlaneFit()
/// fit.add(feetY: 600, height: 200); fit.add(feetY: 800, height: 400)   // ... 50 or more
/// fit.refit(minimumCount: 2)                                           // k = 1, horizon 400
/// ```
struct GroundPlaneFit: Sendable, Equatable {
    /// Sums over the detections added so far: count, Σy, Σh, Σy², Σy·h.
    var count = 0.0
    var sumY = 0.0
    var sumH = 0.0
    var sumYY = 0.0
    var sumYH = 0.0
    /// Height per pixel below the horizon (nil until a fit with a clearly positive slope).
    var slope: Double?
    /// The horizon's image row (meaningful when `slope` is set).
    var horizon = 0.0

    /// Smallest slope taken as a fit: flatter lines mean no usable perspective.
    static let minimumSlope = 0.01
    /// Fitted heights below this fraction of the box's own height are not trusted.
    static let minimumHeightFraction = 0.3

    mutating func add(feetY: Double, height: Double) {
        guard feetY.isFinite, height.isFinite else { return }
        count += 1
        sumY += feetY
        sumH += height
        sumYY += feetY * feetY
        sumYH += feetY * height
    }

    /// Refits the line once `minimumCount` detections were added; keeps the last fit when the rows
    /// do not vary, drops it when the slope is not clearly positive.
    mutating func refit(minimumCount: Int) {
        guard count >= Double(minimumCount), count > 0 else { return }
        let meanY = sumY / count, meanH = sumH / count
        let varianceY = sumYY / count - meanY * meanY
        guard varianceY > 1e-6, varianceY.isFinite else { return }
        let k = (sumYH / count - meanY * meanH) / varianceY
        guard k > Self.minimumSlope, k.isFinite else {
            slope = nil
            return
        }
        slope = k
        horizon = -(meanH - k * meanY) / k
    }

    /// A box's foot point on the ground and the 2×2 covariance (row-major) of that position,
    /// from image noise of `noiseX × width` across and `noiseY × height` down.
    func groundPoint(of box: TrackBox, frameWidth: Double, focalLength: Double, noiseX: Double, noiseY: Double)
        -> (position: (Double, Double), covariance: (Double, Double, Double))
    {
        let w = Double(box.width), h = Double(box.height)
        let feetX = Double(box.x) + w / 2, feetY = Double(box.y) + h
        let centreX = frameWidth / 2, focal = focalLength * frameWidth
        // ĥ and dĥ/d(feet row): the fitted line, or the box's own height (then Z follows the
        // height, and the y noise is taken as noise of the height).
        var hHat = h, k = 0.0
        if let slope {
            let fitted = slope * (feetY - horizon)
            if fitted >= Self.minimumHeightFraction * h {
                hHat = fitted
                k = slope
            } else {
                hHat = Self.minimumHeightFraction * h
            }
        }
        let x = (feetX - centreX) / hHat, z = focal / hHat
        let dRow = k > 0 ? k : 1
        // Jacobian of (X, Z) with respect to (feet x, feet row or height).
        let j00 = 1 / hHat, j01 = -(feetX - centreX) * dRow / (hHat * hHat)
        let j11 = -focal * dRow / (hHat * hHat)
        let sx = noiseX * w, sy = noiseY * h
        let vx = sx * sx, vy = sy * sy
        // R = J · diag(vx, vy) · Jᵀ (J's lower-left entry is 0).
        let r00 = j00 * j00 * vx + j01 * j01 * vy
        let r01 = j01 * j11 * vy
        let r11 = j11 * j11 * vy
        return ((x, z), (r00, r01, r11))
    }
}

/// A constant-velocity Kalman filter of a foot point on the ground: position (X, Z) and velocity,
/// white-noise acceleration of `accelerationStd` person heights per second², time in seconds.
struct GroundMotion: Sendable, Equatable {
    /// X, Z, vX, vZ.
    var state: [Double]
    /// 4×4 covariance, row-major.
    var covariance: [Double]

    static let initialVelocityStd = 1.0

    /// A filter at `position` with covariance `measurement` (r00, r01, r11) and unknown velocity.
    init(position: (Double, Double), measurement r: (Double, Double, Double)) {
        state = [position.0, position.1, 0, 0]
        let v = Self.initialVelocityStd * Self.initialVelocityStd
        covariance = [r.0, r.1, 0, 0,
                      r.1, r.2, 0, 0,
                      0, 0, v, 0,
                      0, 0, 0, v]
    }

    /// Rebuilds a filter from its numbers; nil unless there are 4 + 16 finite ones.
    init?(numbers: [Double]) {
        guard numbers.count == 20, numbers.allSatisfy({ $0.isFinite }) else { return nil }
        state = Array(numbers[0..<4])
        covariance = Array(numbers[4..<20])
    }

    var numbers: [Double] { state + covariance }

    mutating func predict(seconds dt: Double, accelerationStd q: Double) {
        guard dt > 0, dt.isFinite else { return }
        state[0] += dt * state[2]
        state[1] += dt * state[3]
        // P ← F P Fᵀ with F = [[I, dt·I], [0, I]].
        var p = covariance
        for r in 0..<4 {            // P·Fᵀ: columns 0 and 1 gain dt × columns 2 and 3
            p[r * 4] += dt * p[r * 4 + 2]
            p[r * 4 + 1] += dt * p[r * 4 + 3]
        }
        for c in 0..<4 {            // F·(P·Fᵀ): rows 0 and 1 gain dt × rows 2 and 3
            p[c] += dt * p[8 + c]
            p[4 + c] += dt * p[12 + c]
        }
        // + G Gᵀ q² with G = [[dt²/2, 0], [0, dt²/2], [dt, 0], [0, dt]].
        let a = dt * dt / 2, q2 = q * q
        p[0] += a * a * q2
        p[5] += a * a * q2
        p[2] += a * dt * q2
        p[8] += a * dt * q2
        p[7] += a * dt * q2
        p[13] += a * dt * q2
        p[10] += dt * dt * q2
        p[15] += dt * dt * q2
        covariance = p
    }

    /// The innovation's inverse covariance for a measurement with covariance `r` (nil when singular).
    private func inverseInnovation(_ r: (Double, Double, Double)) -> (Double, Double, Double)? {
        let s00 = covariance[0] + r.0, s01 = covariance[1] + r.1, s11 = covariance[5] + r.2
        let det = s00 * s11 - s01 * s01
        guard det > 0, det.isFinite else { return nil }
        return (s11 / det, -s01 / det, s00 / det)
    }

    /// Squared Mahalanobis distance of a measured ground point from the prediction (nil when
    /// the innovation covariance is singular).
    func squaredDistance(to position: (Double, Double), measurement r: (Double, Double, Double)) -> Double? {
        guard let inv = inverseInnovation(r) else { return nil }
        let v0 = position.0 - state[0], v1 = position.1 - state[1]
        return v0 * v0 * inv.0 + 2 * v0 * v1 * inv.1 + v1 * v1 * inv.2
    }

    mutating func correct(position: (Double, Double), measurement r: (Double, Double, Double)) {
        guard let inv = inverseInnovation(r) else { return }
        let p = covariance
        // K = P[:, 0..<2] · S⁻¹ (4×2).
        var gain = [Double](repeating: 0, count: 8)
        for row in 0..<4 {
            let a = p[row * 4], b = p[row * 4 + 1]
            gain[row * 2] = a * inv.0 + b * inv.1
            gain[row * 2 + 1] = a * inv.1 + b * inv.2
        }
        let v0 = position.0 - state[0], v1 = position.1 - state[1]
        for row in 0..<4 { state[row] += gain[row * 2] * v0 + gain[row * 2 + 1] * v1 }
        // P ← (I − K H) P = P − K · P[0..<2, :].
        var updated = p
        for row in 0..<4 {
            for column in 0..<4 {
                updated[row * 4 + column] -= gain[row * 2] * p[column] + gain[row * 2 + 1] * p[4 + column]
            }
        }
        covariance = updated
    }
}
