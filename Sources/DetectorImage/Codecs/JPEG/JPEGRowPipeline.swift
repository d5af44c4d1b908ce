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
    private let convert: (Range<Int>) -> Void
    private static let chunk = 64

    init(height: Int, convert: @escaping (Range<Int>) -> Void) {
        self.height = height
        self.convert = convert
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
            let range = claimed..<min(ready, claimed + Self.chunk)
            claimed = range.upperBound
            busy = true
            condition.unlock()
            convert(range)
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
        condition.broadcast()
        condition.unlock()
        if !rest.isEmpty { convert(rest) }
        condition.lock()
        while busy { condition.wait() }
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
