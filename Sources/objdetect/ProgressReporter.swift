import Foundation

/// Progress and the final summary of a batch or stream, on standard error only: on a terminal
/// one line redrawn in place (cleared before results are written to the same terminal),
/// otherwise a plain line every `interval` seconds; `quiet` turns both off. Counts may come
/// from several threads (live mode delivers results on its own queue), so they are locked.
final class ProgressReporter: @unchecked Sendable {
    /// "frames" or "images".
    let unit: String
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

    init(unit: String, quiet: Bool, interval: Double = 5) {
        self.unit = unit
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
        let text = "\(items) \(items == 1 ? String(unit.dropLast()) : unit), \(String(format: "%.1f", Double(items) / max(elapsedSeconds, 1e-6))) \(unit)/s"
            + (dropped > 0 ? ", \(dropped) dropped" : "") + (failures > 0 ? ", \(failures) failed" : "")
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

    /// The final line: "objdetect: 30 frames, 41 objects in 2.13 s (71.0 ms per frame, 14.1 frames/s)",
    /// ending "interrupted" when a signal stopped the run.
    func finish(interrupted: Bool = false) {
        lock.lock()
        defer { lock.unlock() }
        clearLineLocked()
        guard !quiet else { return }
        let seconds = elapsedSeconds
        let per = items > 0 ? seconds * 1000 / Double(items) : 0
        var text = "objdetect: \(items) \(items == 1 ? String(unit.dropLast()) : unit), \(objects) object\(objects == 1 ? "" : "s") in \(String(format: "%.2f", seconds)) s"
        text += " (\(String(format: "%.1f", per)) ms per \(unit.dropLast()), \(String(format: "%.1f", Double(items) / max(seconds, 1e-6))) \(unit)/s)"
        if dropped > 0 { text += ", \(dropped) dropped (detector busy)" }
        if failures > 0 { text += ", \(failures) failed" }
        if interrupted { text += "; interrupted" }
        printError(text)
    }
}

/// Writes text to standard error without a newline (best effort, as `printError`).
private func printErrorText(_ text: String) {
    try? OutputChannel.standardError.write(text)
}
