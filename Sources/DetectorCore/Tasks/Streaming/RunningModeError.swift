/// Why a frame was refused by the video or live-stream running mode.
public enum RunningModeError: Error, Equatable, CustomStringConvertible {
    /// A frame's timestamp is not later than the previous frame's (timestamps must increase strictly).
    case timestampNotIncreasing(previousMs: Int64, receivedMs: Int64)
    /// `submit` was called after `close()`.
    case processorClosed

    public var description: String {
        switch self {
        case let .timestampNotIncreasing(previous, received):
            return "Frame timestamp \(received) ms is not later than the previous frame's \(previous) ms; timestamps must increase strictly."
        case .processorClosed:
            return "The live-stream processor is closed and accepts no more frames."
        }
    }
}
