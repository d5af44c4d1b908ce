import Dispatch
import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// A thread-safe list the fake workloads and result handlers write into.
final class Recorder<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.lock(); items.append(item); lock.unlock() }
    var values: [T] { lock.lock(); defer { lock.unlock() }; return items }
}

struct FakeWorkloadError: Error, Equatable { let timestamp: Int64 }

final class RunningModeTests: XCTestCase {
    func testTimestampGate() throws {
        var gate = TimestampGate()
        try gate.admit(-5)
        try gate.admit(0)
        try gate.admit(33)
        XCTAssertThrowsError(try gate.admit(33)) { error in
            XCTAssertEqual(error as? TaskError, .timestampNotIncreasing(previousMs: 33, receivedMs: 33))
        }
        XCTAssertThrowsError(try gate.admit(10))
        XCTAssertEqual(gate.lastTimestampMs, 33, "a refused timestamp leaves the gate unchanged")
        try gate.admit(34)
        gate.reset()
        try gate.admit(0)
    }

    func testResultsArriveInOrderOnTheDeliveryQueue() throws {
        let userQueue = DispatchQueue(label: "test.user", attributes: .concurrent)
        let key = DispatchSpecificKey<String>()
        userQueue.setSpecific(key: key, value: "user")
        let received = Recorder<(Int64, Int, Bool)>()
        let processor = LiveStreamProcessor<Int, Int>(
            deliveryQueue: userQueue,
            process: { value, _ in
                usleep(UInt32.random(in: 0...2000))   // uneven work
                return value * 2
            },
            onResult: { result in
                received.append((result.timestampMs, (try? result.result.get()) ?? -1, DispatchQueue.getSpecific(key: key) == "user"))
            })
        for frame in 0..<30 {
            XCTAssertEqual(try processor.submit(frame, timestampMs: Int64(frame) * 33), .accepted)
            processor.waitUntilIdle()   // never busy: every frame is accepted
        }
        let values = received.values
        XCTAssertEqual(values.map(\.0), (0..<30).map { Int64($0) * 33 })
        XCTAssertEqual(values.map(\.1), (0..<30).map { $0 * 2 })
        XCTAssertTrue(values.allSatisfy(\.2), "delivered on the given queue")
        XCTAssertEqual(processor.droppedFrameCount, 0)
        XCTAssertEqual(processor.deliveredResultCount, 30)
    }

    func testFramesArrivingWhileBusyAreDroppedAndCounted() throws {
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let received = Recorder<LiveStreamResult<Int64>>()
        let processor = LiveStreamProcessor<Int, Int64>(
            process: { _, timestamp in
                started.signal()
                release.wait()
                return timestamp
            },
            onResult: { received.append($0) })
        XCTAssertEqual(try processor.submit(1, timestampMs: 0), .accepted)
        started.wait()
        // The workload is blocked: the next frames are dropped at once.
        XCTAssertEqual(try processor.submit(2, timestampMs: 33), .dropped)
        XCTAssertEqual(try processor.submit(3, timestampMs: 66), .dropped)
        // A dropped frame's timestamp still counts for the increasing-timestamp rule.
        XCTAssertThrowsError(try processor.submit(4, timestampMs: 66)) { error in
            XCTAssertEqual(error as? TaskError, .timestampNotIncreasing(previousMs: 66, receivedMs: 66))
        }
        release.signal()
        processor.waitUntilIdle()
        XCTAssertEqual(try processor.submit(5, timestampMs: 99), .accepted)
        started.wait()
        release.signal()
        processor.waitUntilIdle()
        let results = received.values
        XCTAssertEqual(results.map(\.timestampMs), [0, 99])
        XCTAssertEqual(results.map(\.sequenceNumber), [1, 2])
        XCTAssertEqual(results.map(\.droppedFrameCount), [2, 2])
        XCTAssertEqual(processor.droppedFrameCount, 2)
        XCTAssertEqual(processor.acceptedFrameCount, 2)
    }

    /// A workload's errors arrive in order, as task errors: a lower layer's typed error in its
    /// own case, any other error as `.failed` with its description.
    func testWorkloadErrorsAreDeliveredInOrder() throws {
        let received = Recorder<Result<Int64, TaskError>>()
        let processor = LiveStreamProcessor<Int, Int64>(
            process: { _, timestamp in
                if timestamp == 33 { throw InterpreterError.invalidModel("frame 33") }
                if timestamp == 99 { throw FakeWorkloadError(timestamp: timestamp) }
                return timestamp
            },
            onResult: { result in received.append(result.result) })
        for t in [Int64(0), 33, 66, 99] {
            try processor.submit(0, timestampMs: t)
            processor.waitUntilIdle()
        }
        XCTAssertEqual(received.values, [.success(0), .failure(.interpreter(.invalidModel("frame 33"))), .success(66),
                                         .failure(.failed("FakeWorkloadError(timestamp: 99)"))])
    }

    func testAsyncStreamReceivesResultsAndFinishesOnClose() async throws {
        let processor = LiveStreamProcessor<Int, Int>(process: { value, _ in value + 100 })
        let stream = processor.makeResultStream()
        let collector = Task { () -> [Int] in
            var values: [Int] = []
            for await result in stream { values.append((try? result.result.get()) ?? -1) }
            return values
        }
        for frame in 0..<5 {
            try processor.submit(frame, timestampMs: Int64(frame))
            await processor.waitUntilIdle()
        }
        processor.close()
        let values = await collector.value
        XCTAssertEqual(values, [100, 101, 102, 103, 104])
        XCTAssertThrowsError(try processor.submit(9, timestampMs: 100)) { error in
            XCTAssertEqual(error as? TaskError, .streamFinished)
        }
        // A stream made after close finishes at once.
        var late = 0
        for await _ in processor.makeResultStream() { late += 1 }
        XCTAssertEqual(late, 0)
    }

    /// Many threads submitting at once: no crash, every frame is either accepted or dropped,
    /// and the accepted ones are delivered in sequence order.
    func testConcurrentSubmissions() throws {
        let received = Recorder<Int>()
        let processor = LiveStreamProcessor<Int, Int>(
            process: { value, _ in usleep(200); return value },
            onResult: { received.append($0.sequenceNumber) })
        let clock = NSLock()
        nonisolated(unsafe) var nextTimestamp: Int64 = 0
        DispatchQueue.concurrentPerform(iterations: 200) { i in
            clock.lock()
            nextTimestamp += 1
            let t = nextTimestamp
            _ = try? processor.submit(i, timestampMs: t)
            clock.unlock()
        }
        processor.waitUntilIdle()
        XCTAssertEqual(processor.acceptedFrameCount + processor.droppedFrameCount, 200)
        XCTAssertEqual(received.values, Array(1...processor.acceptedFrameCount))
    }

    /// The tracker as live-stream state: IDs persist across submitted frames.
    func testStatefulWorkloadKeepsTrackerState() throws {
        let received = Recorder<[Int]>()
        let processor = LiveStreamProcessor<[TrackerDetection], [TrackedObject]>(
            initialState: try IoUTracker(),
            process: { tracker, detections, timestampMs in try tracker.update(detections, timestampMs: timestampMs) },
            onResult: { received.append(((try? $0.result.get()) ?? []).map(\.trackID)) })
        for frame in 0..<6 {
            let x = Float(frame) * 3
            try processor.submit([TrackerDetection(box: TrackBox(x: x, y: 0, width: 20, height: 40), score: 0.9),
                                  TrackerDetection(box: TrackBox(x: 200 - x, y: 0, width: 20, height: 40), score: 0.9)],
                                 timestampMs: Int64(frame) * 33)
            processor.waitUntilIdle()
        }
        XCTAssertEqual(received.values, Array(repeating: [1, 2], count: 6))
    }
}
