import DetectorModelFile
import DetectorImage
/// Why the tracker refused a configuration or an update.
public enum TrackerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A configuration value is out of range; `field` names it.
    case invalidConfiguration(field: String, reason: String)
    /// An update's timestamp is not later than the previous update's.
    case timestampNotIncreasing(previousMs: Int64, receivedMs: Int64)
    /// An update brought more detections than `IoUTracker.maxDetectionsPerUpdate`.
    case tooManyDetections(count: Int, limit: Int)

    /// A `TrackerState` given to `IoUTracker(state:)` is not one a tracker could have written.
    case invalidState(reason: String)

    public var description: String {
        switch self {
        case let .invalidConfiguration(field, reason):
            return "Tracker configuration field '\(field)' is invalid: \(reason)."
        case let .timestampNotIncreasing(previous, received):
            return "Tracker update timestamp \(received) ms is not later than the previous timestamp \(previous) ms."
        case let .invalidState(reason):
            return "Tracker state is invalid: \(reason)."
        case let .tooManyDetections(count, limit):
            return "Tracker update has \(count) detections, more than the limit of \(limit) per frame."
        }
    }
}
