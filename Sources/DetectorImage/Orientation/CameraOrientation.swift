import DetectorZlib
import DetectorPlatform
/// How the device is held (UIKit's `UIDeviceOrientation`).
public enum DeviceOrientation: String, Sendable, CaseIterable {
    case unknown
    case portrait
    case portraitUpsideDown
    case landscapeLeft
    case landscapeRight
    case faceUp
    case faceDown
}

/// Which camera took the frame.
public enum CameraPosition: String, Sendable, CaseIterable {
    case back
    case front
}

extension ImageOrientation {
    /// The orientation of a camera frame, as ML Kit's guide computes it from the device
    /// orientation and the camera position (the front camera's frames are mirrored).
    ///
    /// | device | back camera | front camera |
    /// |---|---|---|
    /// | portrait | `right` | `leftMirrored` |
    /// | landscapeLeft | `up` | `downMirrored` |
    /// | portraitUpsideDown | `left` | `rightMirrored` |
    /// | landscapeRight | `down` | `upMirrored` |
    /// | faceUp, faceDown, unknown | `up` | `up` |
    ///
    /// ```swift
    /// let o = ImageOrientation(device: .portrait, camera: .back)   // .right
    /// ```
    public init(device: DeviceOrientation, camera: CameraPosition) {
        switch (device, camera) {
        case (.portrait, .back): self = .right
        case (.portrait, .front): self = .leftMirrored
        case (.landscapeLeft, .back): self = .up
        case (.landscapeLeft, .front): self = .downMirrored
        case (.portraitUpsideDown, .back): self = .left
        case (.portraitUpsideDown, .front): self = .rightMirrored
        case (.landscapeRight, .back): self = .down
        case (.landscapeRight, .front): self = .upMirrored
        case (.faceUp, _), (.faceDown, _), (.unknown, _): self = .up
        }
    }
}
