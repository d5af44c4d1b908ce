import DetectorZlib
import DetectorPlatform
import Dispatch
import Foundation

/// Upsampling and colour conversion of a streamed YCbCr scan on a second thread while the
/// decoding thread still runs the entropy decoding and IDCT of later MCU rows: the decoder
/// `publish`es how many output rows have all their samples, a worker claims them 64 rows at a
/// time, and `finish` converts on the calling thread whatever the worker has not claimed (all of
/// it when the worker never got a thread), then waits only for the worker's current chunk. So
/// the decode never waits for a thread to become free, and memory the rows use stays alive
/// until no conversion runs.
///
/// ```swift
/// let pipeline = JPEGRowPipeline(height: h) { rows in /* convert rows */ }
/// pipeline.start(); pipeline.publish(64); pipeline.finish(complete: true)
/// ```
final class JPEGRowPipeline: @unchecked Sendable {
    // `@unchecked Sendable`: every mutable field is guarded by `condition`; `convert` only
    // touches the rows it is given, which no other call converts.
    private let condition = NSCondition()
    private var ready = 0
    private var claimed = 0
    private var busy = false
    private var closed = false
    private let height: Int
    private let chunk: Int
    /// Set to nil by `finish` once no call runs, so `run(_:chunk:_:)` can lend a non-escaping body.
    private var convert: ((Range<Int>) -> Void)?

    init(height: Int, chunk: Int = 64, convert: @escaping (Range<Int>) -> Void) {
        self.height = height
        self.chunk = max(1, chunk)
        self.convert = convert
    }

    /// Runs `body` over `0..<count` in chunks of `chunk` on the calling thread and a worker
    /// (when this process may use more than one core), returning when every chunk is done. Unlike
    /// `DispatchQueue.concurrentPerform`, it never waits for the worker to get a core: on a
    /// busy machine the caller simply does every chunk itself.
    static func run(_ count: Int, chunk: Int, _ body: (Range<Int>) -> Void) {
        guard count > chunk, availableCores > 1 else {
            if count > 0 { body(0..<count) }
            return
        }
        withoutActuallyEscaping(body) { escapable in
            let pipeline = JPEGRowPipeline(height: count, chunk: chunk, convert: escapable)
            pipeline.start()
            pipeline.publish(count)
            while let range = pipeline.claim() { escapable(range) }
            pipeline.finish(complete: true)
        }
    }

    /// The next unclaimed chunk of the published rows, for the calling thread, or nil.
    private func claim() -> Range<Int>? {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, claimed < ready else { return nil }
        let range = claimed..<min(ready, claimed + chunk)
        claimed = range.upperBound
        return range
    }

    /// Starts the worker (on Dispatch's global queue).
    func start() {
        DispatchQueue.global(qos: .userInitiated).async { self.work() }
    }

    private func work() {
        while true {
            condition.lock()
            while claimed >= ready && !closed { condition.wait() }
            if closed {
                condition.unlock()
                return
            }
            let range = claimed..<min(ready, claimed + chunk)
            claimed = range.upperBound
            busy = true
            var work = convert
            condition.unlock()
            work?(range)
            work = nil   // released before `busy` clears (`run` checks the body did not escape)
            condition.lock()
            busy = false
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Output rows `0..<rows` have all their samples.
    func publish(_ rows: Int) {
        condition.lock()
        if rows > ready {
            ready = min(rows, height)
            condition.signal()
        }
        condition.unlock()
    }

    /// Stops the worker: when `complete` (every row has its samples), converts the rows it has
    /// not claimed here; then waits until its chunk in progress, if any, is done.
    func finish(complete: Bool) {
        condition.lock()
        closed = true
        let rest = complete ? claimed..<height : claimed..<claimed
        claimed = height
        var work = convert
        condition.broadcast()
        condition.unlock()
        if !rest.isEmpty { work?(rest) }
        work = nil
        condition.lock()
        while busy { condition.wait() }
        convert = nil
        condition.unlock()
    }

    /// CPUs this process may run on (the `Cpus_allowed` mask of `/proc/self/status` on Linux:
    /// `activeProcessorCount` ignores `taskset`), at least 1.
    static let availableCores: Int = {
        let online = max(1, ProcessInfo.processInfo.activeProcessorCount)
        #if os(Linux)
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) {
            var count = 0
            for character in line.dropFirst("Cpus_allowed:".count) {
                if let digit = character.hexDigitValue { count += digit.nonzeroBitCount }
            }
            if count > 0 { return min(count, online) }
        }
        #endif
        return online
    }()
}
