import Foundation
import DetectorCore

/// Where `--annotate` writes pictures with the results drawn on them: one PNG file (one image),
/// a folder of PNGs (several images: NAME.png; stream frames: frame_000001.png…, the pattern
/// `ffmpeg -i DIR/frame_%06d.png` reads), or `-`, a PPM stream on standard output for
/// `ffmpeg -f image2pipe -i - out.mp4`.
enum AnnotationTarget {
    case file(String)
    case folder(String)
    case standardOutput
    /// A video file encoded by ffmpeg (stream mode).
    case video(VideoEncoder)

    /// - Parameter imageCount: images in single mode (nil in stream mode).
    static func parse(_ value: String, imageCount: Int?) throws -> AnnotationTarget {
        if value == "-" { return .standardOutput }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: value, isDirectory: &isDirectory)
        let ext = PathName.pathExtension(value).lowercased()
        if exists && isDirectory.boolValue || ext.isEmpty {
            return .folder(value)
        }
        if FFmpeg.videoExtensions.contains(ext) && ext != "gif" {
            guard imageCount == nil else {
                throw UsageError("--annotate \(value) writes a video: it needs --mode stream (a video or frames as input)")
            }
            return .video(VideoEncoder(path: value))
        }
        guard ext == "png" else {
            throw UsageError("--annotate writes PNG: give a .png file, a folder, - or a video file (.mp4, .mkv, .mov), got '\(value)'")
        }
        guard imageCount == 1 else {
            throw UsageError(imageCount == nil ? "--annotate in stream mode needs a folder or -, got '\(value)'"
                                               : "--annotate FILE.png takes one image; give a folder for \(imageCount ?? 0) images")
        }
        return .file(value)
    }

    /// The picture for one result: boxes and labels on the upright image, the best object drawn
    /// last so its box is on top and its label gets the place it prefers. A label says what the
    /// text format does ("#3 cat 0.94 / Pembroke 0.82"); the colour is the detector's category's.
    static func render(_ image: ImageBuffer, objects: [DetectedObject]) -> ImageBuffer {
        let annotations = objects.reversed().map { o -> ImageAnnotation in
            var text = ObjectResult(o).summary
            if let id = o.trackingID { text = "#\(id) " + text }
            return ImageAnnotation(rect: o.frame, label: text, classIndex: o.category.index, keypoints: o.keypoints)
        }
        let base = image.format == .rgb8 ? image : image.converted(to: .rgb8)
        let picture = ImageAnnotator.draw(annotations, on: base)
        return picture.format == .rgb8 ? picture : picture.converted(to: .rgb8)
    }

    /// Writes the annotated picture of one image or frame (`name`: the file name in a folder).
    func write(_ image: ImageBuffer, objects: [DetectedObject], name: String) throws {
        let picture = Self.render(image, objects: objects)
        switch self {
        case .standardOutput:
            try OutputChannel.standardOutput.write(PPMEncoder.encode(picture))
        case let .file(path):
            try Self.writePNG(picture, to: path)
        case let .folder(folder):
            try Self.writePNG(picture, to: (folder as NSString).appendingPathComponent(name))
        case let .video(encoder):
            try encoder.write(picture)
        }
    }

    /// Ends a video (ffmpeg finishes the file); nothing to do for pictures.
    func finish() throws {
        if case let .video(encoder) = self { try encoder.finish() }
    }

    /// Stops a video encoder left running by an error (always reaped).
    func stop() {
        if case let .video(encoder) = self { encoder.stop() }
    }

    /// Creates the folder if needed; a video is encoded at `frameRate` (the source's).
    func prepare(frameRate: Double = 30) throws {
        if case let .video(encoder) = self { try encoder.prepare(frameRate: frameRate) }
        guard case let .folder(folder) = self else { return }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("cannot create the folder \(folder): \((error as NSError).localizedDescription)")
        }
    }

    /// Annotated PNGs keep up with the detector: Paeth rows and run-length DEFLATE, 12–23 times
    /// faster than zlib level 6 for files 1–18 % larger (README, "Formats and annotated output").
    static let pngCompression = PNGEncoder.Compression.fast

    static func writePNG(_ picture: ImageBuffer, to path: String) throws {
        let png = try PNGEncoder.encode(picture, compression: pngCompression)
        try OutputChannel.writeFile(png, to: path, what: "the annotated picture")
    }
}
