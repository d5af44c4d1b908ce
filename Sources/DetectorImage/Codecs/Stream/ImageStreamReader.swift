import DetectorZlib
import DetectorPlatform
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
    private var input: ChunkedInput
    private let maxPixels: Int
    private let maxFrameBytes: Int
    /// Where the JPEG boundary search of the current frame goes on when more bytes arrive.
    private var jpegResume: FrameBoundary.JPEGResume?
    /// Where the PNG boundary scan of the frame at `position` goes on (`FrameBoundary.pngEnd`).
    private var pngResume: Int?
    /// Frames delimited so far (including one that did not decode).
    public private(set) var frameCount = 0
    /// False once the stream has ended or hit an error after which no frame boundary can be found.
    public private(set) var canContinue = true

    /// - Parameters:
    ///   - source: returns the next chunk of bytes, or nil (or an empty chunk) at the end.
    ///   - maxPixels: the largest `width * height` accepted; a PNG, JPEG or PPM frame whose
    ///     header claims more is refused as soon as the header is in.
    ///   - maxFrameBytes: the largest frame accepted (`ImageLimits.defaultMaxFrameBytes`, 256 MiB,
    ///     by default). A frame whose header shows it is larger (a raw PPM raster, a PNG chunk
    ///     length) is refused before its bytes are buffered; any other is refused once this many
    ///     bytes are buffered without its end.
    public init(source: @escaping () -> [UInt8]?, maxPixels: Int = ImageLimits.defaultMaxPixels,
                maxFrameBytes: Int = ImageLimits.defaultMaxFrameBytes) {
        self.input = ChunkedInput(source: source)
        self.maxPixels = maxPixels
        self.maxFrameBytes = max(1, maxFrameBytes)
    }

    /// Reads from a file handle (a file, a pipe, standard input) in chunks of up to `chunkSize` bytes.
    public convenience init(fileHandle: FileHandle, chunkSize: Int = 1 << 20, maxPixels: Int = ImageLimits.defaultMaxPixels,
                            maxFrameBytes: Int = ImageLimits.defaultMaxFrameBytes) {
        self.init(source: ChunkedInput.reading(fileHandle, chunkSize: chunkSize), maxPixels: maxPixels, maxFrameBytes: maxFrameBytes)
    }

    /// Reads an in-memory stream, `chunkSize` bytes at a time (small chunks exercise the
    /// boundary search the way a pipe does).
    public convenience init(bytes: [UInt8], chunkSize: Int = 1 << 20, maxPixels: Int = ImageLimits.defaultMaxPixels,
                            maxFrameBytes: Int = ImageLimits.defaultMaxFrameBytes) {
        self.init(source: ChunkedInput.chunks(of: bytes, chunkSize: chunkSize), maxPixels: maxPixels, maxFrameBytes: maxFrameBytes)
    }

    /// The next frame, or nil at the end of the stream.
    public func nextFrame() throws(ImageStreamError) -> DecodedImage? {
        guard canContinue else { return nil }
        while true {
            input.skipWhitespace()
            let available = input.buffer.count - input.position
            if available == 0 {
                if input.exhausted { canContinue = false; return nil }
                input.pull()
                continue
            }
            if available < 8 && !input.exhausted { input.pull(); continue }
            let head = Array(input.buffer[input.position..<min(input.buffer.count, input.position + 8)])
            guard let format = ImageDecoder.sniff(head) else {
                canContinue = false
                throw frameCount == 0 ? .notAnImageStream(firstBytes: head) : .unexpectedBytes(afterFrame: frameCount, firstBytes: head)
            }
            let (scan, parsed) = boundary(format)
            switch scan {
            case let .end(end):
                let frameBytes = parsed == nil ? Array(input.buffer[input.position..<end]) : []
                input.position = end
                frameCount += 1
                if let parsed { return parsed }
                do {
                    return try ImageDecoder.decode(frameBytes, maxPixels: maxPixels)
                } catch {
                    throw .undecodableFrame(frame: frameCount, error: error)
                }
            case .needMore:
                if input.exhausted {
                    canContinue = false
                    throw .truncatedFrame(frame: frameCount + 1, format: format)
                }
                // `.needMore` means the frame is longer than what is buffered.
                if available >= maxFrameBytes {
                    canContinue = false
                    throw .frameTooLarge(frame: frameCount + 1, bytes: nil, limit: maxFrameBytes)
                }
                if format == .ppm {
                    var parser = PPMFrameParser(bytes: input.buffer, start: input.position, atEnd: false,
                                                maxPixels: maxPixels, wants16Bit: false)
                    parser.maxFrameBytes = maxFrameBytes
                    input.pullMore(frameLength: parser.rawFrameLength)
                } else {
                    input.pull()
                }
            case let .tooLarge(bytes):
                canContinue = false
                throw .frameTooLarge(frame: frameCount + 1, bytes: bytes, limit: maxFrameBytes)
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
        case .png:
            let scan = FrameBoundary.pngEnd(input.buffer, from: input.position, resume: &pngResume, maxBytes: maxFrameBytes, maxPixels: maxPixels)
            if scan != .needMore { pngResume = nil }
            return (scan, nil)
        case .jpeg:
            let scan = FrameBoundary.jpegEnd(input.buffer, from: input.position, resume: &jpegResume, maxPixels: maxPixels)
            if scan != .needMore { jpegResume = nil }
            return (scan, nil)
        case .ppm:
            var parser = PPMFrameParser(bytes: input.buffer, start: input.position, atEnd: input.exhausted, maxPixels: maxPixels, wants16Bit: false)
            parser.maxFrameBytes = maxFrameBytes
            do {
                let (image, end) = try parser.frame()
                return (.end(end), image)
            } catch {
                switch error {
                case .needMore: return (.needMore, nil)
                case let .failed(.frameTooLarge(bytes, _)): return (.tooLarge(bytes: bytes), nil)
                case let .failed(e): return (.invalid(e.description), nil)
                }
            }
        }
    }
}
