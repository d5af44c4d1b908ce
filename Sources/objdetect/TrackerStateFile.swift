import Foundation
import DetectorCore

/// `--state-in FILE` / `--state-out FILE`: a tracker's state as JSON (`TrackerState`), read
/// before the first frame and written after the last, so a long video can be tracked in
/// segments with IDs that carry on.
enum TrackerStateFile {
    static let inOption = "--state-in"
    static let outOption = "--state-out"

    /// Reads and checks a state file; a missing, unreadable or damaged file is a one-sentence error.
    static func read(_ path: String) throws -> TrackerState {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure("cannot read the tracker state file '\(path)': \(error.localizedDescription)")
        }
        let state: TrackerState
        do {
            state = try JSONDecoder().decode(TrackerState.self, from: data)
        } catch {
            throw CommandFailure("the tracker state file '\(path)' is not a tracker state written by objdetect")
        }
        do {
            _ = try IoUTracker(state: state)
        } catch let error as TrackerError {
            throw CommandFailure("the tracker state file '\(path)' is damaged: \(error.description)")
        }
        return state
    }

    /// Writes a state as JSON through a checked write.
    static func write(_ state: TrackerState, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(state)
        } catch {
            throw CommandFailure("cannot encode the tracker state: \(error.localizedDescription)")
        }
        try CheckedFile.write(data, to: path)
    }
}

/// Writes a whole file with `open(O_WRONLY | O_CREAT | O_TRUNC)`, checking every `write` and
/// the `close`, so a full disk or a closed pipe is an error, never a silently short file.
/// (A small stand-in until the CLI's shared checked-output type lands on main.)
enum CheckedFile {
    static func write(_ data: Data, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else {
            throw CommandFailure("cannot open '\(path)' for writing: \(String(cString: strerror(errno)))")
        }
        var failure: String?
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(fd, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                if written == 0 {
                    failure = "no bytes were written"
                    return
                }
                offset += written
            }
        }
        let closed = close(fd)
        if let failure { throw CommandFailure("cannot write '\(path)': \(failure)") }
        guard closed == 0 else { throw CommandFailure("cannot write '\(path)': \(String(cString: strerror(errno)))") }
    }
}
