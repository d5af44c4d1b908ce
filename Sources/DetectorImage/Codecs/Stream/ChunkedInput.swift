import DetectorZlib
import DetectorPlatform
import Foundation

/// The look-ahead buffer of a frame-stream reader: chunks pulled from a source, the offset of
/// the next frame, and whether the source has ended. Bytes of frames already read are dropped
/// on the next pull, so only the current frame and one chunk are held.
struct ChunkedInput {
    private let source: () -> [UInt8]?
    private(set) var buffer: [UInt8] = []
    /// Where the next frame starts in `buffer`.
    var position = 0
    private(set) var exhausted = false

    init(source: @escaping () -> [UInt8]?) { self.source = source }

    /// A source reading a file handle (a file, a pipe, standard input) in chunks.
    static func reading(_ fileHandle: FileHandle, chunkSize: Int) -> () -> [UInt8]? {
        {
            let data = (try? fileHandle.read(upToCount: max(1, chunkSize))) ?? nil
            guard let data, !data.isEmpty else { return nil }
            return [UInt8](data)
        }
    }

    /// A source handing out `bytes` in chunks of `chunkSize`.
    static func chunks(of bytes: [UInt8], chunkSize: Int) -> () -> [UInt8]? {
        var offset = 0
        let step = max(1, chunkSize)
        return {
            guard offset < bytes.count else { return nil }
            let end = min(bytes.count, offset + step)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }
    }

    /// Skips whitespace between frames (e.g. the newline after a plain PPM frame).
    mutating func skipWhitespace() {
        position = PPMStreamReader.skipWhitespace(buffer, from: position)
    }

    /// Pulls more of the frame at `position`: until `frameLength` bytes from `position` on are
    /// held when the frame's length is known (a raw Netpbm frame whose header is complete,
    /// `PPMFrameParser.rawFrameLength`), else until the bytes held have doubled (or the source
    /// has ended). Either way the frame is parsed O(log n) times while it arrives, not once per
    /// chunk, and never more than one chunk past its end is waited for when its length is known.
    mutating func pullMore(frameLength: Int?) {
        let target = frameLength ?? 2 * (buffer.count - position)
        repeat { pull() } while !exhausted && buffer.count - position < target
    }

    /// Appends the next chunk, first dropping the bytes before `position`; sets `exhausted` at the end.
    mutating func pull() {
        if position > 0 {
            buffer.removeSubrange(0..<position)
            position = 0
        }
        if let chunk = source(), !chunk.isEmpty {
            buffer.append(contentsOf: chunk)
        } else {
            exhausted = true
        }
    }
}
