import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
/// How a task is fed, with MediaPipe's names.
///
/// - `image`: independent images; no tracking IDs (ML Kit `singleImage`).
/// - `video`: decoded video frames with strictly increasing timestamps, processed synchronously;
///   tracking IDs assigned.
/// - `liveStream`: frames submitted asynchronously, results delivered to a callback in order;
///   a frame that arrives while the detector is busy is dropped (ML Kit `stream`).
public enum RunningMode: String, Sendable, Equatable, CaseIterable {
    case image
    case video
    case liveStream

    /// ML Kit's detector modes and the running mode each maps onto.
    public enum MLKitDetectorMode: Sendable {
        case singleImage
        case stream
    }

    /// The running mode for an ML Kit detector mode (`singleImage` → `image`, `stream` → `liveStream`).
    public init(_ mlKitMode: MLKitDetectorMode) {
        switch mlKitMode {
        case .singleImage: self = .image
        case .stream: self = .liveStream
        }
    }

    /// Whether results carry tracking IDs in this mode.
    public var assignsTrackingIDs: Bool { self != .image }
}
