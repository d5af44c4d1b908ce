import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// `ObjectDetector` and `ImageLabeler` are `Sendable`: one instance called from many Swift tasks
/// at once gives, for every call, exactly the result of the same call made alone.
final class ConcurrentTaskTests: XCTestCase {
    /// Under the thread sanitizer (`Tests/Sanitizers/run_tsan.sh`) model runs are 10–20× slower: fewer repetitions.
    let underSanitizer = ProcessInfo.processInfo.environment["OBJDETECT_SANITIZER"] != nil

    /// Eight shared photos, decoded and turned upright.
    func photos() throws -> [ImageBuffer] {
        let folder = try SharedData.url("images")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.sorted().prefix(8)
        return try names.map { name in
            let decoded = try ImageDecoder.decode(contentsOf: folder.appendingPathComponent(name).path)
            return decoded.image.applyingOrientation(decoded.orientation ?? .up)
        }
    }

    /// Runs `work` on every (repetition, photo) pair, `concurrency` calls in flight at a time,
    /// and returns the results by photo.
    func concurrently<R: Sendable>(_ images: [ImageBuffer], repetitions: Int, concurrency: Int,
                                   _ work: @escaping @Sendable (ImageBuffer) throws -> R) async throws -> [[R]] {
        let jobs = (0..<repetitions).flatMap { _ in images.indices }
        var results = [[R]](repeating: [], count: images.count)
        try await withThrowingTaskGroup(of: (Int, R).self) { group in
            var next = 0
            func add() {
                let photo = jobs[next]
                let image = images[photo]
                group.addTask { (photo, try work(image)) }
                next += 1
            }
            while next < min(concurrency, jobs.count) { add() }
            for try await (photo, result) in group {
                results[photo].append(result)
                if next < jobs.count { add() }
            }
        }
        return results
    }

    func testConcurrentDetectCallsGiveTheSequentialResults() async throws {
        let images = try photos()
        for (model, repetitions) in [(ModelSource.embedded("face-short"), underSanitizer ? 4 : 20),
                                     (.file(try SharedData.url("models/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite").path), underSanitizer ? 1 : 5)] {
            var options = ObjectDetectorOptions(model: model)
            options.threadCount = 2
            let detector = try ObjectDetector(options: options)
            let sequential = try images.map { try detector.detect(image: $0) }
            let concurrent = try await concurrently(images, repetitions: repetitions, concurrency: 64) { try detector.detect(image: $0) }
            var calls = 0
            for (photo, results) in concurrent.enumerated() {
                XCTAssertEqual(results.count, repetitions)
                for r in results {
                    calls += 1
                    XCTAssertEqual(r, sequential[photo], "\(model) photo \(photo)")
                }
            }
            XCTAssertEqual(calls, repetitions * images.count)
            XCTAssertGreaterThan(sequential.map(\.count).reduce(0, +), 0, "\(model): the photos give some detections")
        }
    }

    func testConcurrentLabelCallsGiveTheSequentialResults() async throws {
        let images = try photos()
        let labeler = try ImageLabeler(options: ImageLabelerOptions(model: .file(try SharedData.url("models/automl_labeler_model.tflite").path)))
        let sequential = try images.map { try labeler.label(image: $0) }
        let repetitions = underSanitizer ? 2 : 10
        let concurrent = try await concurrently(images, repetitions: repetitions, concurrency: 64) { try labeler.label(image: $0) }
        for (photo, results) in concurrent.enumerated() {
            XCTAssertEqual(results.count, repetitions)
            for r in results { XCTAssertEqual(r, sequential[photo], "photo \(photo)") }
        }
    }
}
