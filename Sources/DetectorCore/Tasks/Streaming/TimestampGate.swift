import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
/// Enforces strictly increasing frame timestamps, as video and live-stream modes require:
/// a repeated or earlier timestamp is an error, never silently accepted.
///
/// ```swift
/// var gate = TimestampGate()
/// try gate.admit(0)
/// try gate.admit(33)
/// try gate.admit(33)   // throws TaskError.timestampNotIncreasing(previousMs: 33, receivedMs: 33)
/// ```
package struct TimestampGate: Sendable, Equatable {
    /// The last timestamp admitted, or nil before the first frame.
    package private(set) var lastTimestampMs: Int64?

    package init() {}

    /// Admits `timestampMs` if it is later than the last admitted one; otherwise throws
    /// `TaskError.timestampNotIncreasing` and leaves the gate unchanged.
    package mutating func admit(_ timestampMs: Int64) throws(TaskError) {
        if let last = lastTimestampMs, timestampMs <= last {
            throw TaskError.timestampNotIncreasing(previousMs: last, receivedMs: timestampMs)
        }
        lastTimestampMs = timestampMs
    }

    /// Forgets the last timestamp (a new stream starts).
    package mutating func reset() { lastTimestampMs = nil }
}
