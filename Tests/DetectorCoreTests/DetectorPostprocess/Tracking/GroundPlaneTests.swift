import Foundation
import XCTest
@testable import DetectorPostprocess

/// The learnt ground plane, its foot-point filter and the gate they give the tracker; expected
/// values computed by hand in the comments.
final class GroundPlaneTests: XCTestCase {
    /// Heights 200, 300, 400 px at feet rows 600, 700, 800: the line h = 1 · (y − 400).
    func testFitFindsTheLineThroughHeightAndFeetRow() {
        var fit = GroundPlaneFit()
        fit.add(feetY: 600, height: 200)
        fit.add(feetY: 700, height: 300)
        fit.add(feetY: 800, height: 400)
        fit.refit(minimumCount: 4)
        XCTAssertNil(fit.slope, "fewer detections than asked for: no fit yet")
        fit.refit(minimumCount: 3)
        XCTAssertEqual(fit.slope ?? 0, 1, accuracy: 1e-9)
        XCTAssertEqual(fit.horizon, 400, accuracy: 1e-6)
        XCTAssertEqual(fit.explained, 1, accuracy: 1e-9)
        XCTAssertTrue(fit.isTrusted)

        // Rows 600…900 with heights 100, 300, 200, 400: deviations ±150, ±50 give cov 10,000 and
        // variances 12,500, so slope 0.8 and R² = 10,000² / 12,500² = 0.64 (trusted); heights 200,
        // 100, 400, 300 give cov 7,500: slope 0.6, R² = 0.36 (a line, but not trusted).
        for (heights, r2, trusted) in [([100.0, 300, 200, 400], 0.64, true), ([200.0, 100, 400, 300], 0.36, false)] {
            var loose = GroundPlaneFit()
            for (y, h) in zip([600.0, 700, 800, 900], heights) { loose.add(feetY: y, height: h) }
            loose.refit(minimumCount: 4)
            XCTAssertEqual(loose.explained, r2, accuracy: 1e-9)
            XCTAssertEqual(loose.isTrusted, trusted)
        }

        var flat = GroundPlaneFit()
        for y in [500.0, 600, 700] { flat.add(feetY: y, height: 100) }
        flat.refit(minimumCount: 2)
        XCTAssertNil(flat.slope, "the same height at every row: no perspective to learn")
        flat.add(feetY: .nan, height: 1)
        XCTAssertEqual(flat.count, 3, "non-finite values are not added")
    }

    /// Slope 1, horizon 400, frame 1000 px wide, focal length 1.5 frame widths (1500 px). A box at
    /// x 450, y 400, 100 × 200: feet (500, 600), fitted height ĥ = 200, so X = (500 − 500) / 200 = 0
    /// and Z = 1500 / 200 = 7.5. Jacobian: ∂X/∂x = 1/200, ∂X/∂y = 0 (centred), ∂Z/∂y = −1500 · 1 / 200²
    /// = −0.0375. Image noise 0.2 × 100 = 20 px across, 0.08 × 200 = 16 px down: R = (0.005² · 400,
    /// 0, 0.0375² · 256) = (0.01, 0, 0.36).
    func testFootPointAndItsCovariance() throws {
        var fit = GroundPlaneFit()
        fit.slope = 1
        fit.horizon = 400
        let point = try XCTUnwrap(fit.groundPoint(of: TrackBox(x: 450, y: 400, width: 100, height: 200), frameWidth: 1000, focalLength: 1.5,
                                    noiseX: 0.2, noiseY: 0.08))
        XCTAssertEqual(point.x, 0, accuracy: 1e-12)
        XCTAssertEqual(point.z, 7.5, accuracy: 1e-12)
        XCTAssertEqual(point.r00, 0.01, accuracy: 1e-12)
        XCTAssertEqual(point.r01, 0, accuracy: 1e-12)
        XCTAssertEqual(point.r11, 0.36, accuracy: 1e-12)

        // Off-centre: feet x 700 gives X = 200 / 200 = 1 and ∂X/∂y = −200 · 1 / 200² = −0.005, so
        // R00 = 0.005² · 400 + 0.005² · 256 = 0.0164 and R01 = (−0.005) (−0.0375) · 256 = 0.048.
        let right = try XCTUnwrap(fit.groundPoint(of: TrackBox(x: 650, y: 400, width: 100, height: 200), frameWidth: 1000, focalLength: 1.5,
                                    noiseX: 0.2, noiseY: 0.08))
        XCTAssertEqual(right.x, 1, accuracy: 1e-12)
        XCTAssertEqual(right.r00, 0.0164, accuracy: 1e-12)
        XCTAssertEqual(right.r01, 0.048, accuracy: 1e-12)

        // Feet above the horizon's line (fitted height below 0.3 × the box's): 0.3 × 200 = 60 stands in.
        let high = try XCTUnwrap(fit.groundPoint(of: TrackBox(x: 450, y: 0, width: 100, height: 200), frameWidth: 1000, focalLength: 1.5,
                                   noiseX: 0.2, noiseY: 0.08))
        XCTAssertEqual(high.z, 1500.0 / 60, accuracy: 1e-9)
        XCTAssertNil(fit.groundPoint(of: TrackBox(x: 0, y: 400, width: 1e-30, height: 1e-30), frameWidth: 1e300, focalLength: 1.5,
                                     noiseX: 0.2, noiseY: 0.08), "absurd sizes give no point rather than infinities")
    }

    /// Absurd frame widths and box sizes never trap, never put a non-finite number in the state,
    /// and the state they leave resumes.
    func testAbsurdSizesKeepTheStateFinite() throws {
        for width in [1e300, 1e-300, 3] {
            var tracker = try IoUTracker()
            tracker.frameWidth = width
            for frame in 0..<80 {
                var detections: [TrackerDetection] = []
                for (k, size) in [Float(1e-30), 1e-3, 50, 3e38].enumerated() {
                    detections.append(TrackerDetection(box: TrackBox(x: Float(k) * 10, y: Float(frame) + Float(k) * 100, width: size, height: size * 1.5),
                                                       score: 0.9))
                }
                _ = try tracker.update(detections, timestampMs: Int64(frame) * 33)
            }
            let state = tracker.state
            XCTAssertTrue(state.tracks.allSatisfy { $0.ground?.allSatisfy(\.isFinite) ?? true }, "width \(width)")
            XCTAssertNoThrow(try IoUTracker(state: state), "width \(width)")
        }
    }

    /// From (0, 10) with R = (0.01, 0, 0.36) and velocity variance 1, one second with acceleration
    /// noise 0.3: the position does not move (no velocity yet) and P00 = 0.01 + 1² · 1 + (1/2)² · 0.09
    /// = 1.0325. A measurement at (1, 10) with the same R: S00 = 1.0425, S01 = 0, so d² = 1 / 1.0425.
    /// The correction moves X by the gain P00 / S00 = 1.0325 / 1.0425 of the innovation 1.
    func testFilterPredictsDistanceAndCorrects() {
        let r = (r00: 0.01, r01: 0.0, r11: 0.36)
        var motion = GroundMotion(at: GroundPoint(x: 0, z: 10, r00: r.r00, r01: r.r01, r11: r.r11))
        motion.predict(seconds: 1, accelerationStd: 0.3)
        XCTAssertEqual(motion.state[0], 0)
        XCTAssertEqual(motion.state[1], 10)
        XCTAssertEqual(motion.covariance(0, 0), 1.0325, accuracy: 1e-12)
        XCTAssertEqual(motion.covariance(0, 2), 1 + 0.5 * 0.09, accuracy: 1e-12, "P(X, vX) = dt · 1 + (dt²/2) · dt · q²")
        XCTAssertEqual(motion.covariance(2, 2), 1 + 0.09, accuracy: 1e-12)
        let distance = motion.squaredDistance(to: GroundPoint(x: 1, z: 10, r00: r.r00, r01: r.r01, r11: r.r11))
        XCTAssertEqual(distance ?? -1, 1 / 1.0425, accuracy: 1e-12)
        motion.correct(with: GroundPoint(x: 1, z: 10, r00: r.r00, r01: r.r01, r11: r.r11))
        XCTAssertEqual(motion.state[0], 1.0325 / 1.0425, accuracy: 1e-12)
        XCTAssertEqual(motion.state[2], 1.045 / 1.0425, accuracy: 1e-12, "vX moves by P(vX, X) / S00")
        XCTAssertNil(GroundMotion(numbers: [1, 2, 3]))
        XCTAssertNil(GroundMotion(at: GroundPoint(x: 0, z: 0, r00: 0, r01: 0, r11: 0)).squaredDistance(to: GroundPoint(x: 1, z: 1, r00: 0, r01: 0, r11: 0)),
                     "a singular innovation covariance gives no distance")
    }

    /// Five people stand at feet rows 500…900 with heights 1 · (row − 400) (the line to learn), then
    /// person A (feet row 600, 100 × 200) is joined by a detection B of a nearer person (feet row 800,
    /// 200 × 400) overlapping A's box by IoU 0.25 while A is not detected. B's foot point is
    /// 1500/200 − 1500/400 = 3.75 person heights nearer than A's: far outside the gate, so B starts
    /// a new track; without the frame width (gate off) B continues A's track.
    func testGateKeepsATrackFromANearerPersonItsBoxOverlaps() throws {
        func people(includingA: Bool) -> [TrackerDetection] {
            var list: [TrackerDetection] = []
            for (k, row) in [500.0, 600, 700, 800, 900].enumerated() {
                let h = Float(row - 400), x = Float(100 + 250 * k)
                if k == 1 && !includingA { continue }
                list.append(TrackerDetection(box: TrackBox(x: k == 1 ? 350 : x, y: Float(row) - h, width: h / 2, height: h), score: 0.9))
            }
            return list
        }
        for gated in [true, false] {
            var tracker = try IoUTracker()
            if gated { tracker.frameWidth = 1000 }
            var idOfA: Int?
            for frame in 0..<15 {
                let objects = try tracker.update(people(includingA: true), timestampMs: Int64(frame) * 33)
                idOfA = objects.first { $0.detectionBox.x == 350 }?.trackID
            }
            let a = try XCTUnwrap(idOfA)
            let b = TrackerDetection(box: TrackBox(x: 330, y: 400, width: 200, height: 400), score: 0.9)
            XCTAssertEqual(TrackBox(x: 350, y: 400, width: 100, height: 200).iou(b.box), 0.25, accuracy: 1e-6)
            let objects = try tracker.update(people(includingA: false) + [b], timestampMs: 15 * 33)
            let took = objects.contains { $0.trackID == a && $0.detectionBox == b.box }
            XCTAssertEqual(took, !gated, gated ? "the gate keeps B off A's track" : "without the gate B continues A's track")
        }
    }

    /// A person lost for 10 frames (0.33 s) comes back 70 px (0.7 box widths) to the side: IoU with
    /// the held box is 30/170 < 0.2, so boxes alone cannot re-find them, but their foot point is
    /// 70/200 = 0.35 heights from the predicted one, well inside the gate: the track continues, and
    /// with `hitsAfterGap` 1 it is reported at once under its old ID.
    func testLostTrackIsRecoveredByGroundDistanceWithoutOverlap() throws {
        for gated in [true, false] {
            var tracker = try IoUTracker()
            if gated { tracker.frameWidth = 1000 }
            func crowd(_ a: TrackBox?) -> [TrackerDetection] {
                var list: [TrackerDetection] = []
                for (k, row) in [500.0, 700, 800, 900].enumerated() {
                    let h = Float(row - 400)
                    list.append(TrackerDetection(box: TrackBox(x: Float(600 + 100 * k), y: Float(row) - h, width: h / 2, height: h), score: 0.9))
                }
                if let a { list.append(TrackerDetection(box: a, score: 0.9)) }
                return list
            }
            let home = TrackBox(x: 100, y: 400, width: 100, height: 200)
            var id: Int?
            for frame in 0..<20 {
                id = try tracker.update(crowd(home), timestampMs: Int64(frame) * 33).first { $0.detectionBox == home }?.trackID
            }
            for frame in 20..<30 { _ = try tracker.update(crowd(nil), timestampMs: Int64(frame) * 33) }
            let back = TrackBox(x: 170, y: 400, width: 100, height: 200)
            XCTAssertLessThan(home.iou(back), 0.2)
            let objects = try tracker.update(crowd(back), timestampMs: 30 * 33)
            let reported = objects.first { $0.detectionBox == back }
            if gated {
                XCTAssertEqual(reported?.trackID, try XCTUnwrap(id), "re-found by ground distance, reported under its ID")
            } else {
                XCTAssertNil(reported, "without the gate: a new, tentative track")
            }
        }
    }
    /// The filters are kept while the fit gathers its first 50 detections and while it is trusted;
    /// once 50 are in and the line explains little (sizes that do not follow the row: 10 boxes,
    /// heights 60…240 at rows spread independently, 10 per frame, so after 5 frames), no track
    /// keeps one. Ten people whose heights follow `h = row − 400` keep theirs.
    func testFiltersAreKeptOnlyWhileThePlaneCanBeTrusted() throws {
        func scene(frame: Int, perspective: Bool) -> [TrackerDetection] {
            (0..<10).map { k in
                let row = Float(500 + 40 * k) + Float(frame)
                let h: Float = perspective ? row - 400 : Float(60 + (k * 7) % 10 * 20)
                return TrackerDetection(box: TrackBox(x: Float(150 * k), y: row - h, width: 40, height: h), score: 0.9)
            }
        }
        for perspective in [false, true] {
            var tracker = try IoUTracker()
            tracker.frameWidth = 1600
            for frame in 0..<4 { _ = try tracker.update(scene(frame: frame, perspective: perspective), timestampMs: Int64(frame) * 33) }
            XCTAssertEqual(tracker.state.tracks.filter { $0.ground != nil }.count, 10, "40 detections: still gathering, filters kept")
            for frame in 4..<8 { _ = try tracker.update(scene(frame: frame, perspective: perspective), timestampMs: Int64(frame) * 33) }
            XCTAssertEqual(tracker.groundFit.isTrusted, perspective)
            let kept = tracker.state.tracks.filter { $0.ground != nil }.count
            XCTAssertEqual(kept, perspective ? 10 : 0, perspective ? "a trusted plane: every track keeps its filter" : "an untrusted plane: no upkeep")
            // The state of an untrusted stream resumes without filters and goes on the same way.
            var resumed = try IoUTracker(state: tracker.state)
            for frame in 8..<10 {
                let detections = scene(frame: frame, perspective: perspective)
                XCTAssertEqual(try resumed.update(detections, timestampMs: Int64(frame) * 33),
                               try tracker.update(detections, timestampMs: Int64(frame) * 33))
            }
            XCTAssertEqual(resumed.state, tracker.state)
        }
    }
}
