import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Detectors used from several threads (run under the thread sanitizer by
/// `Tests/Sanitizers/run_tsan.sh`): one detector shared by many threads takes the calls in turn,
/// and detectors on their own threads (sharing the kernels' worker pool) do not disturb each other.
final class ConcurrentDetectorTests: XCTestCase {
    /// Eight 256x256 crops of the astronaut photo at different offsets.
    private func crops() throws -> [ImageBuffer] {
        let photo = try ImageDecoder.decode(contentsOf: SharedData.fixture("astronaut.png").path).image
        return try (0..<8).map { k in try photo.cropped(x: 20 * k, y: 10 * k, width: 256, height: 256) }
    }

    private static func detector(_ mode: RunningMode) throws -> ObjectDetector {
        var options = ObjectDetectorOptions(model: .embedded("face-short"))
        options.runningMode = mode
        options.threadCount = 2
        return try ObjectDetector(options: options)
    }

    func testOneDetectorSharedByManyThreadsGivesTheSerialResults() throws {
        let images = try crops()
        let shared = try Self.detector(.image)
        let expected = try images.map { try shared.detect(image: $0) }
        XCTAssertTrue(expected.contains { !$0.isEmpty }, "the crops should hold a face")
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var byIndex: [Int: [DetectedObject]] = [:]
            var errors: [String] = []
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 32) { i in
            do {
                let objects = try shared.detect(image: images[i % images.count])
                results.lock.withLock { if i < images.count { results.byIndex[i] = objects } else if objects != expected[i % images.count] { results.errors.append("call \(i)") } }
            } catch {
                results.lock.withLock { results.errors.append("\(error)") }
            }
        }
        XCTAssertEqual(results.errors, [])
        for (i, objects) in results.byIndex { XCTAssertEqual(objects, expected[i], "image \(i)") }
    }

    func testDetectorsOnTheirOwnThreadsTrackIndependently() throws {
        let frames = try crops()
        let serial = try Self.detector(.video)
        let expected = try frames.enumerated().map { k, f in try serial.detect(videoFrame: f, timestampMs: Int64(k * 33)) }
        final class Runs: @unchecked Sendable {
            let lock = NSLock()
            var outcomes: [[[DetectedObject]]] = []
        }
        let runs = Runs()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let outcome = (try? ConcurrentDetectorTests.detector(.video)).flatMap { d in
                try? frames.enumerated().map { k, f in try d.detect(videoFrame: f, timestampMs: Int64(k * 33)) }
            } ?? []
            runs.lock.withLock { runs.outcomes.append(outcome) }
        }
        XCTAssertEqual(runs.outcomes.count, 4)
        for outcome in runs.outcomes { XCTAssertEqual(outcome, expected) }
    }
}
