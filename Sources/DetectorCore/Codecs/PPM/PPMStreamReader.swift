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
    private let source: () -> [UInt8]?
    private var buffer: [UInt8] = []
    private var position = 0
    private var exhausted = false
    private let maxPixels: Int
    private let wants16Bit: Bool
    /// Frames returned so far.
    public private(set) var frameCount = 0

    /// - Parameter source: returns the next chunk of bytes, or nil (or an empty chunk) at the end of the stream.
    public init(source: @escaping () -> [UInt8]?, wants16Bit: Bool = false,
                maxPixels: Int = ImageLimits.defaultMaxPixels) {
        self.source = source
        self.maxPixels = maxPixels
        self.wants16Bit = wants16Bit
    }

    /// Reads from a file handle (a file, a pipe, standard input) in chunks of `chunkSize` bytes.
    public convenience init(fileHandle: FileHandle, chunkSize: Int = 1 << 20, wants16Bit: Bool = false,
                            maxPixels: Int = ImageLimits.defaultMaxPixels) {
        self.init(source: {
            let data = (try? fileHandle.read(upToCount: max(1, chunkSize))) ?? nil
            guard let data, !data.isEmpty else { return nil }
            return [UInt8](data)
        }, wants16Bit: wants16Bit, maxPixels: maxPixels)
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
            position = PPMStreamReader.skipWhitespace(buffer, from: position)
            if position >= buffer.count {
                if exhausted { return nil }
                pull()
                continue
            }
            let parser = PPMFrameParser(bytes: buffer, start: position, atEnd: exhausted,
                                        maxPixels: maxPixels, wants16Bit: wants16Bit)
            do {
                let (image, end) = try parser.frame()
                position = end
                frameCount += 1
                return image
            } catch {
                switch error {
                case .failed(let e): throw e
                case .needMore: pull()
                }
            }
        }
    }

    /// Appends the next chunk, first dropping the bytes of frames already returned.
    private func pull() {
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

    static func skipWhitespace(_ bytes: [UInt8], from start: Int) -> Int {
        var i = start
        while i < bytes.count, bytes[i] == 32 || bytes[i] == 9 || bytes[i] == 10 || bytes[i] == 13 { i += 1 }
        return i
    }
}
