import Foundation
import DetectorCore

/// Progress and the final summary of a batch or stream, on standard error only: on a terminal
/// one line redrawn in place (cleared before results are written to the same terminal),
/// otherwise a plain line every `interval` seconds; `quiet` turns both off. With a known
/// `total` (a folder or a list of files) progress reads "12/60 images, 8.1 images/s, ETA 6 s".
/// Counts may come from several threads (live mode delivers results on its own queue), so
/// they are locked.
final class ProgressReporter: @unchecked Sendable {
    /// "frames" or "images".
    let unit: String
    /// What is counted in each result: "object" (detect) or "label" (label).
    private let found: String
    /// How many images or frames the run will take, when known.
    private let total: Int?
    private let quiet: Bool
    private let inPlace: Bool
    private let interval: Double
    private let started = DispatchTime.now().uptimeNanoseconds
    private var lastShown: UInt64 = 0
    private var lineShown = false
    private let lock = NSLock()
    private(set) var items = 0
    private(set) var objects = 0
    private(set) var failures = 0
    /// Live mode: frames dropped because the detector was busy.
    private(set) var dropped = 0

    init(unit: String, quiet: Bool, total: Int? = nil, found: String = "object", interval: Double = 5) {
        self.unit = unit
        self.total = total
        self.found = found
        self.quiet = quiet
        self.inPlace = isatty(STDERR_FILENO) == 1
        self.interval = interval
    }

    var elapsedSeconds: Double { Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }

    /// Counts one finished image or frame and shows progress when it is time.
    func add(objects count: Int) {
        lock.withLock {
            items += 1
            objects += count
            show()
        }
    }

    func addFailure() {
        lock.withLock {
            items += 1
            failures += 1
            show()
        }
    }

    /// Live mode: one frame dropped.
    func addDropped() {
        lock.withLock {
            dropped += 1
            show()
        }
    }

    /// Called with `lock` held.
    private func show() {
        guard !quiet else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let wait = inPlace ? 0.2 : interval
        guard Double(now - max(lastShown, started)) / 1e9 >= wait || (inPlace && lastShown == 0) else { return }
        lastShown = now
        let rate = Double(items) / max(elapsedSeconds, 1e-6)
        var text: String
        if let total {
            text = "\(items)/\(total) \(unit), \(String(format: "%.1f", rate)) \(unit)/s"
            if items > 0 && items < total { text += ", ETA " + Self.duration(Double(total - items) / rate) }
        } else {
            text = "\(items) \(items == 1 ? String(unit.dropLast()) : unit), \(String(format: "%.1f", rate)) \(unit)/s"
        }
        text += (dropped > 0 ? ", \(dropped) dropped" : "") + (failures > 0 ? ", \(failures) failed" : "")
        if inPlace {
            printErrorText("\r\u{1B}[K\(text)")
            lineShown = true
        } else {
            printError("objdetect: \(text)")
        }
    }

    /// Clears the in-place line (before something else is written to the terminal).
    func clearLine() {
        lock.withLock { clearLineLocked() }
    }

    private func clearLineLocked() {
        if lineShown {
            printErrorText("\r\u{1B}[K")
            lineShown = false
        }
    }

    /// The final line: "objdetect: 30 frames, 41 objects in 2.13 s (71.0 ms per frame, 14.1 frames/s);
    /// per frame: 3.2 ms decode, 1.9 ms preprocess, 60.3 ms inference, 0.4 ms postprocess",
    /// ending "interrupted" when a signal stopped the run.
    func finish(interrupted: Bool = false, stages: StageSummary? = nil) {
        lock.lock()
        defer { lock.unlock() }
        clearLineLocked()
        guard !quiet else { return }
        let seconds = elapsedSeconds
        let per = items > 0 ? seconds * 1000 / Double(items) : 0
        var text = "objdetect: \(items) \(items == 1 ? String(unit.dropLast()) : unit), \(objects) \(found)\(objects == 1 ? "" : "s") in \(String(format: "%.2f", seconds)) s"
        text += " (\(String(format: "%.1f", per)) ms per \(unit.dropLast()), \(String(format: "%.1f", Double(items) / max(seconds, 1e-6))) \(unit)/s)"
        if dropped > 0 { text += ", \(dropped) dropped (detector busy)" }
        if failures > 0 { text += ", \(failures) failed" }
        if let stages, stages.hasTimings { text += "; per \(unit.dropLast()): " + stages.text }
        if interrupted { text += "; interrupted" }
        printError(text)
    }

    /// "6 s", "2 min 5 s", "1 h 12 min": a remaining time as a person reads it.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "?" }
        let s = Int(seconds.rounded(.up))
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        return "\(s / 3600) h \((s % 3600) / 60) min"
    }
}

/// The time per image or frame split into stages, as `yolo predict` prints its "Speed" line:
/// decoding (reading and decoding the image file or stream frame, timed by the CLI; on stdin
/// this includes waiting for the frame to arrive) and the
/// task's preprocess, inference and postprocess (`StageTimings`). Each stage is averaged over
/// the images it ran on (a frame that failed to decode has no inference).
struct StageSummary {
    var decodeSeconds: Double = 0
    var decodeCount = 0
    var task = StageTimings()

    /// Times `body` as decoding.
    mutating func decoding<T>(_ body: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            decodeSeconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            decodeCount += 1
        }
        return try body()
    }

    /// Times reading the next frame of a stream as decoding (the end of the stream is not a frame).
    mutating func decodingFrame(_ next: () throws -> InputFrame?) rethrows -> InputFrame? {
        let start = DispatchTime.now().uptimeNanoseconds
        let frame = try next()
        decodeSeconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if frame != nil { decodeCount += 1 }
        return frame
    }

    var hasTimings: Bool { decodeCount > 0 || task.count > 0 }

    /// "3.2 ms decode, 1.9 ms preprocess, 60.3 ms inference, 0.4 ms postprocess".
    var text: String {
        // Two decimals below 0.1 ms (a postprocess inside the graph), so it does not read as nothing.
        func ms(_ seconds: Double, _ count: Int) -> String {
            let v = count > 0 ? seconds * 1000 / Double(count) : 0
            return String(format: v < 0.1 ? "%.2f ms" : "%.1f ms", v)
        }
        return "\(ms(decodeSeconds, decodeCount)) decode, \(ms(task.preprocessSeconds, task.count)) preprocess, "
            + "\(ms(task.inferenceSeconds, task.count)) inference, \(ms(task.postprocessSeconds, task.count)) postprocess"
    }
}

/// Writes text to standard error without a newline (best effort, as `printError`).
private func printErrorText(_ text: String) {
    try? OutputChannel.standardError.write(text)
}

extension ProgressReporter {
    /// An image of a batch failed. One image: its error is the command's (rethrown). Several:
    /// reported on stderr as "objdetect: SOURCE: message" and counted, and the batch goes on.
    /// A failed write (`OutputError`) always ends the run.
    func batchFailure(_ error: Error, source: String, single: Bool) throws {
        if single || error is OutputError { throw error }
        clearLine()
        printError("objdetect: \(source): \(oneLine(OptionFlagNames.message(for: error)))")
        addFailure()
    }
}
