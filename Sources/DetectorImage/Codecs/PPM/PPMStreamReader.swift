import DetectorZlib
import DetectorPlatform
import Foundation

/// Reads Netpbm frames one at a time from a stream, e.g. what
/// `ffmpeg -i video.mp4 -f image2pipe -c:v ppm -` writes to a pipe: frames back to back.
/// Only the current frame (and one chunk of look-ahead) is held in memory.
///
/// ```swift
/// let reader = PPMStreamReader(fileHandle: .standardInput)
/// while let frame = try reader.nextFrame() {
///     print(frame.image.width, frame.image.height)
/// }
/// ```
public final class PPMStreamReader {
    private var input: ChunkedInput
    private let maxPixels: Int
    private let maxFrameBytes: Int
    private let wants16Bit: Bool
    /// Frames returned so far.
    public private(set) var frameCount = 0

    /// - Parameters:
    ///   - source: returns the next chunk of bytes, or nil (or an empty chunk) at the end of the stream.
    ///   - maxPixels: a frame whose header claims more pixels is refused before its raster is read.
    ///   - maxFrameBytes: the largest frame buffered (`ImageLimits.defaultMaxFrameBytes`, 256 MiB, by
    ///     default); a raw frame whose header says it is larger is refused before its raster is read.
    public init(source: @escaping () -> [UInt8]?, wants16Bit: Bool = false,
                maxPixels: Int = ImageLimits.defaultMaxPixels, maxFrameBytes: Int = ImageLimits.defaultMaxFrameBytes) {
        self.input = ChunkedInput(source: source)
        self.maxPixels = maxPixels
        self.maxFrameBytes = max(1, maxFrameBytes)
        self.wants16Bit = wants16Bit
    }

    /// Reads from a file handle (a file, a pipe, standard input) in chunks of `chunkSize` bytes.
    public convenience init(fileHandle: FileHandle, chunkSize: Int = 1 << 20, wants16Bit: Bool = false,
                            maxPixels: Int = ImageLimits.defaultMaxPixels, maxFrameBytes: Int = ImageLimits.defaultMaxFrameBytes) {
        self.init(source: ChunkedInput.reading(fileHandle, chunkSize: chunkSize), wants16Bit: wants16Bit,
                  maxPixels: maxPixels, maxFrameBytes: maxFrameBytes)
    }

    /// Reads an in-memory stream.
    public convenience init(bytes: [UInt8], wants16Bit: Bool = false, maxPixels: Int = ImageLimits.defaultMaxPixels) {
        var handed = false
        self.init(source: {
            if handed { return nil }
            handed = true
            return bytes
        }, wants16Bit: wants16Bit, maxPixels: maxPixels)
    }

    /// The next frame, or nil at the end of the stream. A damaged frame throws `PPMError`.
    public func nextFrame() throws(PPMError) -> DecodedImage? {
        while true {
            // Whitespace between frames (e.g. a newline after a plain frame) is skipped.
            input.skipWhitespace()
            if input.position >= input.buffer.count {
                if input.exhausted { return nil }
                input.pull()
                continue
            }
            var parser = PPMFrameParser(bytes: input.buffer, start: input.position, atEnd: input.exhausted,
                                        maxPixels: maxPixels, wants16Bit: wants16Bit)
            parser.maxFrameBytes = maxFrameBytes
            do {
                let (image, end) = try parser.frame()
                input.position = end
                frameCount += 1
                return image
            } catch {
                switch error {
                case .failed(let e): throw e
                case .needMore:
                    // A plain frame's size is not in its header: it is refused once this much is buffered.
                    let buffered = input.buffer.count - input.position
                    if buffered >= maxFrameBytes { throw .frameTooLarge(bytes: buffered, limit: maxFrameBytes) }
                    // Linear, not quadratic, reading: a raw frame waits for its whole length, others
                    // for the buffer to double.
                    input.pullMore(frameLength: parser.rawFrameLength)
                }
            }
        }
    }

    static func skipWhitespace(_ bytes: [UInt8], from start: Int) -> Int {
        var i = start
        while i < bytes.count, bytes[i] == 32 || bytes[i] == 9 || bytes[i] == 10 || bytes[i] == 13 { i += 1 }
        return i
    }
}
