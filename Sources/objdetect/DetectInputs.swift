import Foundation
import DetectorCore

/// One image or frame to detect on: a name for results and messages, and its pixels (or why
/// they could not be read).
struct InputFrame {
    let name: String
    let result: Result<DecodedImage, Error>
}

/// Turns `detect`'s arguments into images: in single mode each file (or each image file of a
/// folder, or each match of a quoted pattern) on its own; in stream mode the frames of one
/// video — a folder in natural sort order, files in the order given, a path list, or
/// concatenated PNG/JPEG/PPM frames on standard input.
enum DetectInputs {
    static let imageExtensions = ["png", "jpg", "jpeg", "ppm", "pgm", "pbm", "pnm"]

    /// Single mode: every image path (or "-" for one image on standard input), checked to exist.
    static func singleImages(_ arguments: [String], pathsFrom: String?) throws -> [String] {
        if arguments.contains("-") {
            guard arguments.count == 1, pathsFrom == nil else { throw UsageError("'-' (an image on standard input) must be the only input") }
            return ["-"]
        }
        var paths: [String] = []
        for argument in arguments {
            paths += try files(argument) { folder in try folderImages(folder) }
        }
        if let pathsFrom { paths += try pathList(pathsFrom) }
        guard !paths.isEmpty else { throw UsageError("detect needs an INPUT: image files, a folder, - or --paths-from FILE") }
        return paths
    }

    /// Stream mode: the frame source for the arguments; a frame on stdin above `maxFrameBytes` is refused.
    static func frames(_ arguments: [String], pathsFrom: String?, maxFrameBytes: Int, video: Bool = false) throws -> FrameSource {
        if arguments == ["-"], pathsFrom == nil { return StandardInputFrames(maxFrameBytes: maxFrameBytes) }
        if video || arguments.contains(where: FFmpeg.isVideo) {
            guard arguments.count == 1, pathsFrom == nil else {
                throw UsageError("a video must be the only input (run one objdetect per video)")
            }
            return try VideoFrames(input: arguments[0], maxFrameBytes: maxFrameBytes)
        }
        if arguments.contains("-") { throw UsageError("'-' (frames on standard input) must be the only input") }
        var paths: [String] = []
        if arguments.count == 1, pathsFrom == nil {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: arguments[0], isDirectory: &isDirectory), isDirectory.boolValue {
                return PathFrames(paths: try folderImages(arguments[0]))
            }
        }
        for argument in arguments {
            paths += try files(argument) { folder in
                throw UsageError("stream mode takes one folder, '-' or files, not a folder among other inputs (\(folder))")
            }
        }
        if let pathsFrom { paths += try pathList(pathsFrom) }
        guard !paths.isEmpty else { throw UsageError("detect needs an INPUT: a folder of frames, - or --paths-from FILE") }
        return PathFrames(paths: paths)
    }

    /// Decodes one image file (or standard input for "-"); a video given as an image gets a
    /// message saying how to feed it.
    static func decodeImage(_ path: String) throws -> DecodedImage {
        do {
            return try path == "-" ? ImageDecoder.decode([UInt8](FileHandle.standardInput.readDataToEndOfFile()))
                                   : ImageDecoder.decode(contentsOf: path)
        } catch {
            guard case let .unknownFormat(first) = error, ImageDecoder.videoFormat(first) != nil else { throw error }
            let hint = path == "-" ? "for a video on standard input, let ffmpeg decode it: ffmpeg -i - -f image2pipe -c:v ppm - | objdetect -"
                                   : "to detect in a video, run objdetect \(path) --video (ffmpeg decodes it)"
            throw CommandFailure("\(ImageDecodeError.unknownFormat(firstBytes: first)); \(hint)")
        }
    }

    /// The files one argument names: itself, a folder's files (`inFolder`), or a pattern's matches.
    static func files(_ argument: String, inFolder: (String) throws -> [String]) throws -> [String] {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) {
            return isDirectory.boolValue ? try inFolder(argument) : [argument]
        }
        if argument.contains(where: { "*?[".contains($0) }) {
            let matches = expandGlob(argument)
            guard !matches.isEmpty else { throw CommandFailure("no file matches '\(argument)'") }
            return matches
        }
        throw CommandFailure("no file at \(argument)")
    }

    /// The image files of a folder (by extension), in natural sort order.
    static func folderImages(_ folder: String) throws -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw CommandFailure("cannot list \(folder): \((error as NSError).localizedDescription)")
        }
        let images = NaturalSort.sorted(names.filter { imageExtensions.contains(PathName.pathExtension($0).lowercased()) })
        guard !images.isEmpty else { throw CommandFailure("no image files (.png, .jpg, .ppm, .pgm) in \(folder)") }
        return images.map { (folder as NSString).appendingPathComponent($0) }
    }

    /// The paths listed one per line in FILE, or on standard input for "-" (blank lines skipped).
    static func pathList(_ source: String) throws -> [String] {
        let data: Data
        if source == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let d = FileManager.default.contents(atPath: source) else { throw CommandFailure("cannot read the path list \(source)") }
            data = d
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure("the path list \(source == "-" ? "on standard input" : source) is not UTF-8 text")
        }
        let paths = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if let missing = paths.first(where: { !FileManager.default.fileExists(atPath: $0) }) {
            throw CommandFailure("the path list \(source == "-" ? "on standard input" : source) names \(missing), which does not exist")
        }
        return paths
    }

    /// A shell pattern's matches (for patterns the shell did not expand, e.g. quoted), sorted.
    static func expandGlob(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(pattern, 0, nil, &result) == 0 else { return [] }
        var paths: [String] = []
        for i in 0..<Int(result.gl_pathc) {
            if let p = result.gl_pathv[i] { paths.append(String(cString: p)) }
        }
        return NaturalSort.sorted(paths)
    }
}

/// Frames in order; `next()` throws only when the input as a whole is unusable.
protocol FrameSource {
    func next() throws -> InputFrame?
    /// The source's own frame rate (a video's), if it has one.
    var frameRate: Double? { get }
    /// How many frames there are, when known before reading them (progress shows a total and an ETA).
    var count: Int? { get }
    /// Stops reading (a child process is stopped and reaped); called on every way out of a run.
    func close()
}

extension FrameSource {
    var frameRate: Double? { nil }
    var count: Int? { nil }
    func close() {}
}

/// Frames from image files.
final class PathFrames: FrameSource {
    private var iterator: IndexingIterator<[String]>
    let count: Int?
    init(paths: [String]) {
        iterator = paths.makeIterator()
        count = paths.count
    }
    func next() throws -> InputFrame? {
        guard let path = iterator.next() else { return nil }
        return InputFrame(name: path, result: Result { try ImageDecoder.decode(contentsOf: path) })
    }
}

/// Concatenated PNG, JPEG or PPM/PGM frames on standard input, read as they arrive.
final class StandardInputFrames: FrameSource {
    private let reader: ImageStreamReader

    init(maxFrameBytes: Int) {
        reader = ImageStreamReader(source: { readChunk(STDIN_FILENO) }, maxFrameBytes: maxFrameBytes)
    }

    func next() throws -> InputFrame? {
        do {
            guard let frame = try reader.nextFrame() else { return nil }
            return InputFrame(name: "stdin#\(reader.frameCount)", result: .success(frame))
        } catch {
            if case .notAnImageStream = error {
                throw CommandFailure("standard input: \(error) (for a list of image paths use --paths-from -)")
            }
            return InputFrame(name: "stdin#\(reader.frameCount + (reader.canContinue ? 0 : 1))", result: .failure(error))
        }
    }
}
