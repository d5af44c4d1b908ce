import Foundation
import DetectorCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Video files in and out through `ffmpeg` child processes (the library itself never spawns
/// one): a video is decoded to PPM frames on a pipe and read like `ffmpeg -f image2pipe`
/// output on stdin; annotated frames are piped into a second ffmpeg that encodes them.
enum FFmpeg {
    /// File extensions taken as videos (anything ffmpeg reads can also be named with `--video`).
    static let videoExtensions: Set<String> = ["mp4", "m4v", "mov", "mkv", "webm", "avi", "mpg", "mpeg", "ts", "mts", "m2ts",
                                               "flv", "wmv", "3gp", "ogv", "gif"]

    /// Whether an input names a video: by extension, or a stream URL (`rtsp://…`).
    static func isVideo(_ argument: String) -> Bool {
        if argument.contains("://") { return true }
        return videoExtensions.contains(PathName.pathExtension(argument).lowercased())
    }

    /// The path of `name` on `PATH`, if it is there.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// ffmpeg's path, or the one-line failure saying how to get it.
    static func executable(for purpose: String) throws -> String {
        guard let path = find("ffmpeg") else {
            throw CommandFailure("\(purpose) needs ffmpeg, which is not on PATH: install it (Debian/Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg), or pipe frames in yourself: ffmpeg -i VIDEO -f image2pipe -c:v ppm - | objdetect -")
        }
        return path
    }

    /// The frame rate of the first video stream as ffprobe reports it (`avg_frame_rate`, else
    /// `r_frame_rate`), or nil without ffprobe or a usable rate.
    static func frameRate(of input: String) -> Double? {
        guard let ffprobe = find("ffprobe"),
              let text = output(of: ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                              "stream=avg_frame_rate,r_frame_rate", "-of", "default=noprint_wrappers=1", input])
        else { return nil }
        var rates: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            let fraction = parts[1].split(separator: "/").compactMap { Double($0) }
            let rate = fraction.count == 2 && fraction[1] > 0 ? fraction[0] / fraction[1] : fraction.first
            if let rate, rate.isFinite, rate >= 0.001, rate <= 10_000 { rates[parts[0]] = rate }
        }
        return rates["avg_frame_rate"] ?? rates["r_frame_rate"]
    }

    /// Whether ffmpeg has the libx264 encoder (H.264), asked once.
    static func hasH264(_ ffmpeg: String) -> Bool {
        output(of: ffmpeg, ["-hide_banner", "-encoders"])?.contains(" libx264 ") ?? false
    }

    /// What a short-lived tool prints on standard output (its standard error discarded), or nil
    /// when it cannot be started. The tool is always waited for.
    static func output(of executable: String, _ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }
}

/// A child process whose standard error is kept (its last lines explain a failure) and which
/// is always stopped and reaped: `stop()` runs on every path out of a run, including SIGINT and
/// a closed stdout.
final class ChildProcess: @unchecked Sendable {
    let process = Process()
    private let errors = Pipe()
    private let lock = NSLock()
    private var errorText = Data()
    private let drained = DispatchSemaphore(value: 0)

    init(executable: String, arguments: [String]) {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardError = errors
    }

    func start() throws {
        do {
            try process.run()
        } catch {
            throw CommandFailure("cannot start \(process.executableURL?.path ?? "ffmpeg"): \((error as NSError).localizedDescription)")
        }
        let reader = Thread { [self] in drainErrors() }
        reader.start()
    }

    /// Keeps the last 32–64 KiB of the child's standard error (runs on its own thread).
    private func drainErrors() {
        let handle = errors.fileHandleForReading
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            append(chunk)
        }
        drained.signal()
    }

    private func append(_ chunk: Data) {
        lock.lock()
        defer { lock.unlock() }
        errorText.append(chunk)
        if errorText.count > 64 << 10 { errorText.removeFirst(errorText.count - (32 << 10)) }
    }

    /// The last non-empty line the child wrote to its standard error.
    var lastError: String {
        let text = lock.withLock { String(decoding: errorText, as: UTF8.self) }
        return text.split(whereSeparator: \.isNewline).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
    }

    /// Waits for the child to end by itself; returns its exit status (128 + signal if killed).
    func wait() -> Int32 {
        process.waitUntilExit()
        drained.wait()
        drained.signal()
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// Stops the child if it still runs (SIGTERM, then SIGKILL after 2 s) and reaps it.
    func stop() {
        guard process.processIdentifier > 0 else { return }
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(2)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        _ = wait()
    }
}

/// The frames of a video file or stream URL, decoded by `ffmpeg … -f image2pipe -c:v ppm -`.
final class VideoFrames: FrameSource {
    let input: String
    let frameRate: Double?
    private let child: ChildProcess
    /// Kept: its file handle owns the descriptor the frames are read from.
    private let frames = Pipe()
    private let reader: ImageStreamReader
    private var finished = false

    init(input: String, maxFrameBytes: Int) throws {
        self.input = input
        if !input.contains("://") && !FileManager.default.fileExists(atPath: input) {
            throw CommandFailure("no file at \(input)")
        }
        let ffmpeg = try FFmpeg.executable(for: "reading the video \(input)")
        frameRate = FFmpeg.frameRate(of: input)
        child = ChildProcess(executable: ffmpeg, arguments: ["-nostdin", "-hide_banner", "-loglevel", "error", "-i", input,
                                                            "-an", "-sn", "-f", "image2pipe", "-c:v", "ppm", "-"])
        child.process.standardOutput = frames
        child.process.standardInput = FileHandle.nullDevice
        try child.start()
        let descriptor = frames.fileHandleForReading.fileDescriptor
        reader = ImageStreamReader(source: { readChunk(descriptor) }, maxFrameBytes: maxFrameBytes)
    }

    func next() throws -> InputFrame? {
        guard !finished else { return nil }
        let frame: DecodedImage?
        do {
            frame = try reader.nextFrame()
        } catch {
            close()
            throw CommandFailure("the frames ffmpeg decoded from \(input) are unreadable: \(error)")
        }
        if let frame { return InputFrame(name: "\(input)#\(reader.frameCount)", result: .success(frame)) }
        finished = true
        let status = child.wait()
        if status != 0 {
            let why = child.lastError.isEmpty ? "exit status \(status)" : child.lastError
            throw CommandFailure("ffmpeg could not read \(input): \(why)")
        }
        return nil
    }

    func close() {
        finished = true
        child.stop()
    }
}

/// Reads up to 1 MiB from a descriptor (nil at the end or on an error).
func readChunk(_ descriptor: Int32) -> [UInt8]? {
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if n > 0 { return Array(chunk[0..<n]) }
        if n < 0 && errno == EINTR { continue }
        return nil
    }
}

/// Annotated frames encoded into a video file by `ffmpeg -f image2pipe -i - OUT` (H.264 in MP4,
/// MOV and MKV where ffmpeg has libx264, else the container's default codec; yuv420p, so every
/// player shows it), at the frame rate of the source. Started at the first frame.
final class VideoEncoder: @unchecked Sendable {
    let path: String
    private var frameRate: Double = 30
    private var child: ChildProcess?
    private var channel: OutputChannel?

    init(path: String) { self.path = path }

    /// The rate the video is encoded at (the source's).
    func prepare(frameRate: Double) throws {
        self.frameRate = frameRate
        _ = try FFmpeg.executable(for: "writing the video \(path)")
    }

    func write(_ picture: ImageBuffer) throws {
        if channel == nil { try start() }
        do {
            try channel?.write(PPMEncoder.encode(picture))
        } catch {
            if case OutputError.closedPipe = error { throw failure() }
            throw CommandFailure("cannot send frames to ffmpeg for \(path): \(error)")
        }
    }

    private func start() throws {
        let ffmpeg = try FFmpeg.executable(for: "writing the video \(path)")
        let ext = PathName.pathExtension(path).lowercased()
        var codec: [String] = []
        if ["mp4", "m4v", "mov", "mkv"].contains(ext) && FFmpeg.hasH264(ffmpeg) { codec = ["-c:v", "libx264"] }
        let rate = String(format: "%.6g", frameRate)
        let child = ChildProcess(executable: ffmpeg, arguments: ["-nostdin", "-hide_banner", "-loglevel", "error", "-y",
                                                                "-f", "image2pipe", "-c:v", "ppm", "-framerate", rate, "-i", "-"]
                                 + codec + ["-pix_fmt", "yuv420p", "-r", rate, path])
        let frames = Pipe()
        child.process.standardInput = frames
        child.process.standardOutput = FileHandle.nullDevice
        try child.start()
        self.child = child
        channel = OutputChannel.pipe(frames.fileHandleForWriting, target: "annotated frames to ffmpeg")
    }

    private func failure() -> CommandFailure {
        let status = child?.wait() ?? 1
        let why = (child?.lastError).flatMap { $0.isEmpty ? nil : $0 } ?? "exit status \(status)"
        return CommandFailure("ffmpeg could not write \(path): \(why)")
    }

    /// Ends the stream and waits for ffmpeg to finish the file; a failure is one line.
    func finish() throws {
        guard let child, let channel else { return }
        self.channel = nil
        try? channel.close()
        if child.wait() != 0 { throw failure() }
    }

    /// Stops ffmpeg without finishing (an error path): the child is always reaped.
    func stop() {
        try? channel?.close()
        channel = nil
        child?.stop()
    }
}
