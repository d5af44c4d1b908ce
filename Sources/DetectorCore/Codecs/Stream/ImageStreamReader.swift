import Foundation

/// Reads images one at a time from a stream of files written back to back, such as
/// `ffmpeg -i video.mp4 -f image2pipe -c:v png -` (or `-c:v mjpeg`, `-c:v ppm`) on a pipe.
/// Each frame's format is recognised from its first bytes (PNG, JPEG, PPM/PGM/PBM); PNG frames
/// end after their `IEND` chunk, JPEG frames at their EOI marker (see `FrameBoundary`), Netpbm
/// frames after their raster. Only the current frame and one chunk of look-ahead are held in memory.
///
/// ```swift
/// let reader = ImageStreamReader(fileHandle: .standardInput)
/// while let frame = try reader.nextFrame() {
///     print(reader.frameCount, frame.format, frame.image.width, frame.image.height)
/// }
/// ```
///
/// A frame that is delimited but does not decode throws `ImageStreamError.undecodableFrame`
/// and the reader can go on (`canContinue` stays true); any other error ends the stream.
public final class ImageStreamReader {
    private let source: () -> [UInt8]?
    private var buffer: [UInt8] = []
    private var position = 0
    private var exhausted = false
    private let maxPixels: Int
    private let maxFrameBytes: Int
    /// Frames delimited so far (including one that did not decode).
    public private(set) var frameCount = 0
    /// False once the stream has ended or hit an error after which no frame boundary can be found.
    public private(set) var canContinue = true

    /// - Parameters:
    ///   - source: returns the next chunk of bytes, or nil (or an empty chunk) at the end.
    ///   - maxFrameBytes: the largest frame accepted (1 GiB by default).
    public init(source: @escaping () -> [UInt8]?, maxPixels: Int = ImageLimits.defaultMaxPixels,
                maxFrameBytes: Int = 1 << 30) {
        self.source = source
        self.maxPixels = maxPixels
        self.maxFrameBytes = max(1, maxFrameBytes)
    }

    /// Reads from a file handle (a file, a pipe, standard input) in chunks of up to `chunkSize` bytes.
    public convenience init(fileHandle: FileHandle, chunkSize: Int = 1 << 20, maxPixels: Int = ImageLimits.defaultMaxPixels) {
        self.init(source: {
            let data = (try? fileHandle.read(upToCount: max(1, chunkSize))) ?? nil
            guard let data, !data.isEmpty else { return nil }
            return [UInt8](data)
        }, maxPixels: maxPixels)
    }

    /// Reads an in-memory stream, `chunkSize` bytes at a time (small chunks exercise the
    /// boundary search the way a pipe does).
    public convenience init(bytes: [UInt8], chunkSize: Int = 1 << 20, maxPixels: Int = ImageLimits.defaultMaxPixels) {
        var offset = 0
        let step = max(1, chunkSize)
        self.init(source: {
            guard offset < bytes.count else { return nil }
            let end = min(bytes.count, offset + step)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }, maxPixels: maxPixels)
    }

    /// The next frame, or nil at the end of the stream.
    public func nextFrame() throws(ImageStreamError) -> DecodedImage? {
        guard canContinue else { return nil }
        while true {
            // Whitespace between frames (a newline after a plain PPM frame) is skipped.
            position = PPMStreamReader.skipWhitespace(buffer, from: position)
            let available = buffer.count - position
            if available == 0 {
                if exhausted { canContinue = false; return nil }
                pull()
                continue
            }
            if available < 8 && !exhausted { pull(); continue }
            let head = Array(buffer[position..<min(buffer.count, position + 8)])
            guard let format = ImageDecoder.sniff(head) else {
                canContinue = false
                throw frameCount == 0 ? .notAnImageStream(firstBytes: head) : .unexpectedBytes(afterFrame: frameCount, firstBytes: head)
            }
            let (scan, parsed) = boundary(format)
            switch scan {
            case let .end(end):
                let frameBytes = parsed == nil ? Array(buffer[position..<end]) : []
                position = end
                frameCount += 1
                if let parsed { return parsed }
                do {
                    return try ImageDecoder.decode(frameBytes, maxPixels: maxPixels)
                } catch {
                    throw .undecodableFrame(frame: frameCount, error: error)
                }
            case .needMore:
                if exhausted {
                    canContinue = false
                    throw .truncatedFrame(frame: frameCount + 1, format: format)
                }
                if available > maxFrameBytes {
                    canContinue = false
                    throw .frameTooLarge(frame: frameCount + 1, limit: maxFrameBytes)
                }
                pull()
            case let .invalid(reason):
                canContinue = false
                throw .malformedFrame(frame: frameCount + 1, format: format, reason: reason)
            }
        }
    }

    /// Where the frame at `position` ends. Netpbm frames are decoded on the way (their size is
    /// in the header), so they come back with the image.
    private func boundary(_ format: ImageFileFormat) -> (FrameBoundary.Scan, DecodedImage?) {
        switch format {
        case .png: return (FrameBoundary.pngEnd(buffer, from: position), nil)
        case .jpeg: return (FrameBoundary.jpegEnd(buffer, from: position), nil)
        case .ppm:
            let parser = PPMFrameParser(bytes: buffer, start: position, atEnd: exhausted, maxPixels: maxPixels, wants16Bit: false)
            do {
                let (image, end) = try parser.frame()
                return (.end(end), image)
            } catch {
                switch error {
                case .needMore: return (.needMore, nil)
                case let .failed(e): return (.invalid(e.description), nil)
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
}
