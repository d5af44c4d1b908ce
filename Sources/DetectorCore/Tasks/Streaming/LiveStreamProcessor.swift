import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
import Dispatch
import Foundation

/// What `LiveStreamProcessor.submit` did with a frame.
public enum LiveStreamSubmission: Sendable, Equatable {
    /// The frame was queued for processing; its result will be delivered.
    case accepted
    /// The processor was busy with an earlier frame, so this one was dropped (and counted).
    case dropped
}

/// The outcome of one processed live-stream frame.
public struct LiveStreamResult<Output: Sendable>: Sendable {
    /// 1-based number of this frame among the accepted frames.
    public let sequenceNumber: Int
    /// The timestamp the frame was submitted with.
    public let timestampMs: Int64
    /// The workload's output, or the error it threw.
    public let result: Result<Output, TaskError>
    /// Frames dropped since the processor started, up to this result's delivery.
    public let droppedFrameCount: Int
    /// The value submitted with the frame (`ObjectDetector.detectAsync(…, context:)`), e.g.
    /// the frame's number and name or the picture to draw the results on; nil when none was
    /// given. Cast it back to the type you gave:
    ///
    /// ```swift
    /// guard let frame = result.context as? CameraFrame else { return }
    /// ```
    public let context: (any Sendable)?
}

/// Runs a workload on frames in live-stream mode, the MediaPipe / ML Kit way: `submit`
/// returns at once; one frame is processed at a time on a private serial queue; a frame that
/// arrives while the previous one is still being processed is dropped and counted; results
/// are delivered in submission order on a serial queue, to a closure and/or to every
/// `AsyncStream` made with `makeResultStream()`. Timestamps must increase strictly (dropped
/// frames included).
///
/// ```swift
/// // A stateful workload: the processor owns the tracker and mutates it on its work queue.
/// let processor = LiveStreamProcessor<[TrackerDetection], [TrackedObject]>(
///     initialState: try IoUTracker(),
///     process: { tracker, detections, timestampMs in try tracker.update(detections, timestampMs: timestampMs) },
///     onResult: { result in print(result.timestampMs, result.result) })
/// try processor.submit(detections, timestampMs: 0)   // .accepted or .dropped
/// for await result in processor.makeResultStream() { … }
/// processor.close()                                   // finish streams after the last result
/// ```
///
/// Thread safety: every method may be called from any thread. The mutable state is guarded by
/// a lock, which is why the class is `@unchecked Sendable`.
package final class LiveStreamProcessor<Input: Sendable, Output: Sendable>: @unchecked Sendable {
    package typealias Workload = @Sendable (Input, Int64) throws -> Output
    package typealias ResultHandler = @Sendable (LiveStreamResult<Output>) -> Void

    private let process: Workload
    private let onResult: ResultHandler?
    private let workQueue: DispatchQueue
    private let deliveryQueue: DispatchQueue
    private let inFlight = DispatchGroup()
    private let lock = NSLock()

    // Guarded by `lock`.
    private var gate = TimestampGate()
    private var busy = false
    private var closed = false
    private var dropped = 0
    private var accepted = 0
    private var delivered = 0
    private var nextStreamKey = 0
    private var continuations: [Int: AsyncStream<LiveStreamResult<Output>>.Continuation] = [:]

    /// Creates a processor.
    ///
    /// - Parameters:
    ///   - label: prefix of the dispatch queue labels (for debugging).
    ///   - deliveryQueue: where results are delivered; a private serial queue targets it, so
    ///     delivery stays serial and in order even if this queue is concurrent. Nil uses a
    ///     private serial queue.
    ///   - process: the workload, called with each accepted frame and its timestamp, never
    ///     concurrently with itself.
    ///   - onResult: optional closure receiving each result, in order, on the delivery queue.
    package init(
        label: String = "objdetect.livestream",
        deliveryQueue: DispatchQueue? = nil,
        process: @escaping Workload,
        onResult: ResultHandler? = nil
    ) {
        self.process = process
        self.onResult = onResult
        workQueue = DispatchQueue(label: label + ".work")
        self.deliveryQueue = DispatchQueue(label: label + ".delivery", target: deliveryQueue)
    }

    /// Creates a processor whose workload carries mutable state from frame to frame (a
    /// detector with its tracker, say). The state lives inside the processor and is only
    /// touched by the workload, which never runs concurrently with itself.
    ///
    /// - Parameters:
    ///   - initialState: the state the first frame sees.
    ///   - process: the workload; it may mutate the state.
    ///   - label, deliveryQueue, onResult: as in the other initializer.
    package convenience init<State: Sendable>(
        label: String = "objdetect.livestream",
        deliveryQueue: DispatchQueue? = nil,
        initialState: State,
        process: @escaping @Sendable (inout State, Input, Int64) throws -> Output,
        onResult: ResultHandler? = nil
    ) {
        let state = SerialState(initialState)
        self.init(label: label, deliveryQueue: deliveryQueue,
                  process: { input, timestampMs in try process(&state.value, input, timestampMs) },
                  onResult: onResult)
    }

    /// Submits a frame and returns at once; `context` comes back with its result.
    ///
    /// - Returns: `.accepted`, or `.dropped` when an earlier frame is still being processed.
    /// - Throws: `TaskError.timestampNotIncreasing` when `timestampMs` is not later than
    ///   the previous submission's; `TaskError.streamFinished` after `close()`.
    @discardableResult
    package func submit(_ input: Input, timestampMs: Int64, context: (any Sendable)? = nil) throws(TaskError) -> LiveStreamSubmission {
        lock.lock()
        if closed {
            lock.unlock()
            throw TaskError.streamFinished
        }
        do {
            try gate.admit(timestampMs)
        } catch {
            lock.unlock()
            throw error
        }
        if busy {
            dropped += 1
            lock.unlock()
            return .dropped
        }
        busy = true
        accepted += 1
        let sequenceNumber = accepted
        // Left twice: once when the result is delivered, once when `busy` is cleared, so
        // `waitUntilIdle` returns only when both are done.
        inFlight.enter()
        inFlight.enter()
        lock.unlock()

        workQueue.async { [self] in
            let result: Result<Output, TaskError>
            do {
                result = .success(try process(input, timestampMs))
            } catch {
                result = .failure(TaskError(wrapping: error))
            }
            // Queue the delivery before clearing `busy`, so deliveries keep submission order.
            deliveryQueue.async { [self] in
                lock.lock()
                let droppedSoFar = dropped
                let streams = Array(continuations.values)
                lock.unlock()
                let outcome = LiveStreamResult(
                    sequenceNumber: sequenceNumber, timestampMs: timestampMs,
                    result: result, droppedFrameCount: droppedSoFar, context: context)
                onResult?(outcome)
                for continuation in streams { continuation.yield(outcome) }
                lock.lock()
                delivered += 1
                lock.unlock()
                inFlight.leave()
            }
            lock.lock()
            busy = false
            lock.unlock()
            inFlight.leave()
        }
        return .accepted
    }

    /// A stream of every result delivered from now on; it finishes after `close()` once the
    /// last accepted frame's result has been delivered.
    package func makeResultStream() -> AsyncStream<LiveStreamResult<Output>> {
        let (stream, continuation) = AsyncStream<LiveStreamResult<Output>>.makeStream()
        lock.lock()
        if closed {
            lock.unlock()
            // Deliver what is still in flight, then finish.
            deliveryQueue.async { continuation.finish() }
            return stream
        }
        let key = nextStreamKey
        nextStreamKey += 1
        continuations[key] = continuation
        lock.unlock()
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.lock()
            self.continuations[key] = nil
            self.lock.unlock()
        }
        return stream
    }

    /// Frames dropped because the processor was busy.
    package var droppedFrameCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return dropped
    }

    /// Frames accepted for processing.
    package var acceptedFrameCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return accepted
    }

    /// Results delivered so far.
    package var deliveredResultCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return delivered
    }

    /// Blocks until every accepted frame's result has been delivered and the processor is free
    /// for the next frame. Do not call it from the
    /// delivery queue (it would wait for itself).
    package func waitUntilIdle() {
        inFlight.wait()
    }

    /// Waits, without blocking a thread, until every accepted frame's result has been delivered
    /// and the processor is free for the next frame.
    package func waitUntilIdle() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            inFlight.notify(queue: deliveryQueue) { done.resume() }
        }
    }

    /// `close()`, then waits without blocking a thread until the last accepted frame's result has
    /// been delivered and every result stream has finished.
    package func finish() async {
        close()
        // `close` queued the streams' end behind the work queue and then the delivery queue;
        // this hop takes the same path after it, so it resumes once they have finished.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            workQueue.async { [self] in deliveryQueue.async { done.resume() } }
        }
    }

    /// Refuses further frames; result streams finish after the last accepted frame's result.
    package func close() {
        lock.lock()
        guard !closed else {
            lock.unlock()
            return
        }
        closed = true
        lock.unlock()
        // The work queue is serial and the delivery is queued from it, so this runs after
        // every earlier delivery.
        workQueue.async { [self] in
            deliveryQueue.async { [self] in
                lock.lock()
                let streams = Array(continuations.values)
                continuations.removeAll()
                lock.unlock()
                for continuation in streams { continuation.finish() }
            }
        }
    }
}

/// Mutable state used only from the processor's serial work queue (one frame at a time), so
/// it needs no lock of its own; hence `@unchecked Sendable`.
private final class SerialState<State>: @unchecked Sendable {
    var value: State
    init(_ value: State) { self.value = value }
}
