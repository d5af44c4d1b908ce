import Foundation
import DetectorCore

/// `objdetect track --benchmark N`: times the tracker on a synthetic scene of N moving boxes
/// (1920×1080, jittered, 5 % missed detections, occasional false positives) and prints the
/// mean cost per frame. Measures only `IoUTracker.update`.
enum TrackBenchmark {
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func run(boxes: Int, frames: Int, configuration: TrackerConfiguration) throws -> Int32 {
        guard boxes >= 1, boxes <= 10_000 else { throw UsageError("--benchmark needs 1...10000 boxes, got \(boxes)") }
        var rng = Generator(state: 1)
        struct Mover { var x, y, w, h, vx, vy: Float }
        var movers = (0..<boxes).map { _ in
            Mover(x: .random(in: 0...1800, using: &rng), y: .random(in: 0...900, using: &rng),
                  w: .random(in: 30...120, using: &rng), h: .random(in: 60...200, using: &rng),
                  vx: .random(in: -6...6, using: &rng), vy: .random(in: -3...3, using: &rng))
        }
        var scene: [[TrackerDetection]] = []
        scene.reserveCapacity(frames)
        for _ in 0..<frames {
            var detections: [TrackerDetection] = []
            for i in movers.indices {
                movers[i].x += movers[i].vx
                movers[i].y += movers[i].vy
                if movers[i].x < 0 || movers[i].x > 1800 { movers[i].vx = -movers[i].vx }
                if movers[i].y < 0 || movers[i].y > 900 { movers[i].vy = -movers[i].vy }
                if Float.random(in: 0..<1, using: &rng) < 0.05 { continue }
                let m = movers[i]
                detections.append(TrackerDetection(
                    box: TrackBox(x: m.x + .random(in: -2...2, using: &rng), y: m.y + .random(in: -2...2, using: &rng),
                                  width: m.w, height: m.h),
                    score: .random(in: 0.5...1, using: &rng), classIndex: i % 3))
            }
            if Float.random(in: 0..<1, using: &rng) < 0.2 {
                detections.append(TrackerDetection(
                    box: TrackBox(x: .random(in: 0...1800, using: &rng), y: .random(in: 0...900, using: &rng), width: 50, height: 100),
                    score: 0.55, classIndex: 0))
            }
            scene.append(detections)
        }
        var tracker = try IoUTracker(configuration: configuration)
        tracker.frameWidth = 1920    // the scene's width: the ground-plane gate is part of the cost
        var reported = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuStart = threadCPUNanoseconds()
        for (index, detections) in scene.enumerated() {
            reported += try tracker.update(detections, timestampMs: Int64(index) * 33).count
        }
        let cpu = Double(threadCPUNanoseconds() - cpuStart) / 1e6
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        try writeLine(String(format: "tracker benchmark: %d boxes/frame, %d frames: %.4f ms/frame CPU, %.4f ms/frame wall (%d objects reported, %d IDs)",
                     boxes, frames, cpu / Double(frames), elapsed / Double(frames), reported, tracker.nextTrackID - 1))
        return 0
    }
}

/// CPU time of the calling thread (robust to other processes sharing the machine).
func threadCPUNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}
