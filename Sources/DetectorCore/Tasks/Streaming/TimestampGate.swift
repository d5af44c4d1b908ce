/// Enforces strictly increasing frame timestamps, as video and live-stream modes require:
/// a repeated or earlier timestamp is an error, never silently accepted.
///
/// ```swift
/// var gate = TimestampGate()
/// try gate.admit(0)
/// try gate.admit(33)
/// try gate.admit(33)   // throws RunningModeError.timestampNotIncreasing(previousMs: 33, receivedMs: 33)
/// ```
public struct TimestampGate: Sendable, Equatable {
    /// The last timestamp admitted, or nil before the first frame.
    public private(set) var lastTimestampMs: Int64?

    public init() {}

    /// Admits `timestampMs` if it is later than the last admitted one; otherwise throws
    /// `RunningModeError.timestampNotIncreasing` and leaves the gate unchanged.
    public mutating func admit(_ timestampMs: Int64) throws {
        if let last = lastTimestampMs, timestampMs <= last {
            throw RunningModeError.timestampNotIncreasing(previousMs: last, receivedMs: timestampMs)
        }
        lastTimestampMs = timestampMs
    }

    /// Forgets the last timestamp (a new stream starts).
    public mutating func reset() { lastTimestampMs = nil }
}
