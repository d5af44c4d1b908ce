import DetectorCore

/// How each input's orientation is chosen, decided once per command from `--orientation` and
/// `--ignore-exif`: the option overrides; else the file's EXIF unless `--ignore-exif`.
struct OrientationChoice {
    let forced: ImageOrientation?
    let ignoresEXIF: Bool

    init(_ args: ParsedOptions) {
        forced = args.string("--orientation").flatMap(ImageOrientation.init(name:))
        ignoresEXIF = args.flag("--ignore-exif")
    }

    func orientation(of decoded: DecodedImage) -> ImageOrientation {
        forced ?? (ignoresEXIF ? .up : decoded.orientation ?? .up)
    }
}

/// One decoded input as the detector or labeler gets it, with its orientation rendered at most
/// once: a picture to be annotated is turned upright here and given to the task as `.up`;
/// otherwise the task turns it (as part of its input conversion) and the command only needs
/// the upright size, which the orientation gives without rendering anything.
struct UprightInput: Sendable {
    /// What to give the task: the raw buffer, or the upright picture when `upright` is set.
    let image: ImageBuffer
    let orientation: ImageOrientation
    /// The size of the upright picture, the space of the results' coordinates.
    let size: ImageSize
    /// The upright picture, rendered only when `rendersUpright` was asked for (to draw on).
    let upright: ImageBuffer?

    init(_ decoded: DecodedImage, orientation: ImageOrientation, rendersUpright: Bool) {
        size = orientation.uprightSize(rawWidth: decoded.image.width, rawHeight: decoded.image.height)
        if rendersUpright {
            let picture = orientation == .up ? decoded.image : decoded.image.applyingOrientation(orientation)
            image = picture
            self.orientation = .up
            upright = picture
        } else {
            image = decoded.image
            self.orientation = orientation
            upright = nil
        }
    }
}
