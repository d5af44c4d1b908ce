import Foundation
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM as requests to stop: a running `detect`, `label` or `track` stops reading
/// input, finishes the image or frame in hand, closes what it writes in a valid form (a JSON
/// array is closed; jsonl, csv, mot and text lines are whole), prints its summary and exits
/// 128 + the signal (130 for SIGINT, 143 for SIGTERM), the shell's convention. A second signal
/// ends the process at once with the same status. `SIGPIPE` is ignored, so a closed pipe is a
/// write error (`OutputError.closedPipe`) the tool handles instead of a silent kill.
enum Interruption {
    private final class State: @unchecked Sendable {
        let lock = NSLock()
        var signal: Int32?
        var sources: [DispatchSourceSignal] = []
    }
    private static let state = State()

    /// Installs the handlers; called once at start.
    static func install() {
        signal(SIGPIPE, SIG_IGN)
        let queue = DispatchQueue(label: "objdetect.signals")
        var sources: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { received(number) }
            source.resume()
            sources.append(source)
        }
        state.lock.withLock { state.sources = sources }
    }

    private static func received(_ number: Int32) {
        let first = state.lock.withLock { () -> Bool in
            guard state.signal == nil else { return false }
            state.signal = number
            return true
        }
        if !first { _exit(128 + number) }
    }

    /// Whether a stop was asked for.
    static var requested: Bool { state.lock.withLock { state.signal != nil } }

    /// 128 + the signal received (0 when none was).
    static var exitStatus: Int32 { state.lock.withLock { state.signal.map { 128 + $0 } ?? 0 } }
}
