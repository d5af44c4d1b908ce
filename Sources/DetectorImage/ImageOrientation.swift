import DetectorZlib
import DetectorPlatform
/// The eight orientations a camera frame or photo can have, with UIKit's names and meanings.
///
/// The raw value is the EXIF `Orientation` tag (1–8). The case says how the stored
/// pixels must be turned to show the picture upright, as `UIImage.Orientation` does:
/// `.right` (EXIF 6) is a buffer whose upright picture is the buffer rotated 90° clockwise.
///
/// ```swift
/// let o = ImageOrientation(exif: 6)   // .right
/// ```
public enum ImageOrientation: Int, Sendable, CaseIterable, CustomStringConvertible {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8

    /// The orientation for an EXIF `Orientation` value, or nil outside 1...8.
    public init?(exif: Int) { self.init(rawValue: exif) }

    /// The EXIF `Orientation` value (1–8).
    public var exifValue: Int { rawValue }

    /// The UIKit name (`up`, `upMirrored`, …).
    public var name: String {
        switch self {
        case .up: return "up"
        case .upMirrored: return "upMirrored"
        case .down: return "down"
        case .downMirrored: return "downMirrored"
        case .leftMirrored: return "leftMirrored"
        case .right: return "right"
        case .rightMirrored: return "rightMirrored"
        case .left: return "left"
        }
    }

    /// Parses a UIKit name (case-insensitive) or an EXIF number "1"…"8".
    public init?(name: String) {
        if let n = Int(name), let o = ImageOrientation(exif: n) { self = o; return }
        guard let o = ImageOrientation.allCases.first(where: { $0.name.lowercased() == name.lowercased() }) else { return nil }
        self = o
    }

    public var description: String { name }
}
