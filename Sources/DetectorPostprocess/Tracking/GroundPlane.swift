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
/// far apart in Z; a person walking away barely moves in the image but moves in Z. The plane is
/// trusted (`isTrusted`) only when the line explains at least half of the heights' variance
/// (R² ≥ 0.5; 0.81–0.995 on the eleven MOT sequences, about 0 for objects whose size does not
/// follow their row, such as things on a table).
///
/// ```swift
/// var fit = GroundPlaneFit()
/// fit.add(feetY: 600, height: 200); fit.add(feetY: 800, height: 400)   // ... 50 or more
/// fit.refit(minimumCount: 2)                                           // k = 1, horizon 400
/// ```
/// A foot point on the ground plane (person heights) and the covariance of its position.
struct GroundPoint: Sendable, Equatable {
    var x: Double
    var z: Double
    /// Covariance entries: var(X), cov(X, Z), var(Z).
    var r00: Double
    var r01: Double
    var r11: Double
}

struct GroundPlaneFit: Sendable, Equatable {
    /// Sums over the detections added so far: count, Σy, Σh, Σy², Σy·h, Σh².
    var count = 0.0
    var sumY = 0.0
    var sumH = 0.0
    var sumYY = 0.0
    var sumYH = 0.0
    var sumHH = 0.0
    /// The fraction of the heights' variance the line explains (R²) at the last refit.
    var explained = 0.0
    /// Height per pixel below the horizon (nil until a fit with a clearly positive slope).
    var slope: Double?
    /// The horizon's image row (meaningful when `slope` is set).
    var horizon = 0.0

    /// Smallest slope taken as a fit: flatter lines mean no usable perspective.
    static let minimumSlope = 0.01
    /// Fitted heights below this fraction of the box's own height are not trusted.
    static let minimumHeightFraction = 0.3
    /// Smallest R² for which the plane is trusted.
    static let minimumExplained = 0.5

    /// True when a line was fitted and explains at least half of the heights' variance.
    var isTrusted: Bool { slope != nil && explained >= Self.minimumExplained }

    mutating func add(feetY: Double, height: Double) {
        guard feetY.isFinite, height.isFinite else { return }
        count += 1
        sumY += feetY
        sumH += height
        sumYY += feetY * feetY
        sumYH += feetY * height
        sumHH += height * height
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
        let varianceH = sumHH / count - meanH * meanH
        let covariance = sumYH / count - meanY * meanH
        explained = varianceH > 0 ? min(1, covariance * covariance / (varianceY * varianceH)) : 0
    }

    /// A box's foot point on the ground and the 2×2 covariance (r00, r01, r11) of that position,
    /// from image noise of `noiseX × width` across and `noiseY × height` down; nil when a number
    /// is not finite (absurd sizes), so such a box is neither gated nor followed.
    func groundPoint(of box: TrackBox, frameWidth: Double, focalLength: Double, noiseX: Double, noiseY: Double) -> GroundPoint? {
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
        guard x.isFinite, z.isFinite, r00.isFinite, r01.isFinite, r11.isFinite else { return nil }
        return GroundPoint(x: x, z: z, r00: r00, r01: r01, r11: r11)
    }
}

/// A constant-velocity Kalman filter of a foot point on the ground: position (X, Z) and velocity,
/// white-noise acceleration of `accelerationStd` person heights per second², time in seconds.
/// (Fixed-size SIMD rows, so predicting and correcting allocate nothing.)
struct GroundMotion: Sendable, Equatable {
    /// X, Z, vX, vZ.
    var state: SIMD4<Double>
    /// The 4×4 covariance, by rows.
    var p0, p1, p2, p3: SIMD4<Double>

    static let initialVelocityStd = 1.0

    /// A filter at `point` (its covariance as the position's) with unknown velocity.
    init(at point: GroundPoint) {
        state = SIMD4(point.x, point.z, 0, 0)
        let v = Self.initialVelocityStd * Self.initialVelocityStd
        p0 = SIMD4(point.r00, point.r01, 0, 0)
        p1 = SIMD4(point.r01, point.r11, 0, 0)
        p2 = SIMD4(0, 0, v, 0)
        p3 = SIMD4(0, 0, 0, v)
    }

    /// Rebuilds a filter from its numbers; nil unless there are 4 + 16 finite ones.
    init?(numbers: [Double]) {
        guard numbers.count == 20, numbers.allSatisfy({ $0.isFinite }) else { return nil }
        func row(_ i: Int) -> SIMD4<Double> { SIMD4(numbers[i], numbers[i + 1], numbers[i + 2], numbers[i + 3]) }
        state = row(0)
        p0 = row(4)
        p1 = row(8)
        p2 = row(12)
        p3 = row(16)
    }

    /// X, Z, vX, vZ, then the covariance by rows.
    var numbers: [Double] {
        var numbers: [Double] = []
        numbers.reserveCapacity(20)
        for v in [state, p0, p1, p2, p3] { for i in 0..<4 { numbers.append(v[i]) } }
        return numbers
    }

    /// The covariance entry at (row, column).
    func covariance(_ row: Int, _ column: Int) -> Double {
        switch row {
        case 0: return p0[column]
        case 1: return p1[column]
        case 2: return p2[column]
        default: return p3[column]
        }
    }

    /// True when every number is finite (a step that would leave it otherwise is not taken).
    var isFinite: Bool {
        let all = state + p0 + p1 + p2 + p3
        return all[0].isFinite && all[1].isFinite && all[2].isFinite && all[3].isFinite
    }

    mutating func predict(seconds dt: Double, accelerationStd q: Double) {
        guard dt > 0, dt.isFinite else { return }
        let before = self
        defer { if !isFinite { self = before } }
        state[0] += dt * state[2]
        state[1] += dt * state[3]
        // P ← F P Fᵀ with F = [[I, dt·I], [0, I]]: first F·P (rows 0 and 1 gain dt × rows 2 and 3),
        // then ·Fᵀ (columns 0 and 1 gain dt × columns 2 and 3).
        p0 += dt * p2
        p1 += dt * p3
        func columns(_ row: inout SIMD4<Double>) {
            row[0] += dt * row[2]
            row[1] += dt * row[3]
        }
        columns(&p0)
        columns(&p1)
        columns(&p2)
        columns(&p3)
        // + G Gᵀ q² with G = [[dt²/2, 0], [0, dt²/2], [dt, 0], [0, dt]].
        let a = dt * dt / 2, q2 = q * q
        p0 += SIMD4(a * a, 0, a * dt, 0) * q2
        p1 += SIMD4(0, a * a, 0, a * dt) * q2
        p2 += SIMD4(a * dt, 0, dt * dt, 0) * q2
        p3 += SIMD4(0, a * dt, 0, dt * dt) * q2
    }

    /// The innovation's inverse covariance (i00, i01, i11) for a measured point (nil when singular).
    private func inverseInnovation(_ point: GroundPoint) -> SIMD3<Double>? {
        let s00 = p0[0] + point.r00, s01 = p0[1] + point.r01, s11 = p1[1] + point.r11
        let det = s00 * s11 - s01 * s01
        guard det > 0, det.isFinite else { return nil }
        return SIMD3(s11 / det, -s01 / det, s00 / det)
    }

    /// Squared Mahalanobis distance of a measured ground point from the prediction (nil when
    /// the innovation covariance is singular).
    func squaredDistance(to point: GroundPoint) -> Double? {
        guard let inv = inverseInnovation(point) else { return nil }
        let v0 = point.x - state[0], v1 = point.z - state[1]
        return v0 * v0 * inv[0] + 2 * v0 * v1 * inv[1] + v1 * v1 * inv[2]
    }

    mutating func correct(with point: GroundPoint) {
        guard let inv = inverseInnovation(point) else { return }
        let before = self
        defer { if !isFinite { self = before } }
        // K = P[:, 0..<2] · S⁻¹: column 0 and column 1 of the gain (P is symmetric, so P's
        // first two columns are its first two rows).
        let c0 = p0, c1 = p1
        let k0 = c0 * inv[0] + c1 * inv[1], k1 = c0 * inv[1] + c1 * inv[2]
        let v0 = point.x - state[0], v1 = point.z - state[1]
        state += k0 * v0 + k1 * v1
        // P ← P − K · P[0..<2, :]: row i loses k0[i] × row 0 + k1[i] × row 1.
        p0 -= k0[0] * c0 + k1[0] * c1
        p1 -= k0[1] * c0 + k1[1] * c1
        p2 -= k0[2] * c0 + k1[2] * c1
        p3 -= k0[3] * c0 + k1[3] * c1
    }
}
