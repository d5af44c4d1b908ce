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
        try OutputChannel.writeFile([UInt8](data), to: path, what: "the tracker state")
    }
}
