import Foundation
import DetectorCore

/// Stream mode: frames from a directory (natural sort order), concatenated PPM/PGM frames on
/// standard input, or a list of image paths on standard input; tracked with the detector's
/// video mode and written one frame at a time (jsonl, MOTChallenge rows or text).
enum StreamRunner {
    /// Where frames come from: each call gives the next frame's name and decoded image (or the
    /// error that frame hit), nil at the end.
    typealias FrameSource = () -> (name: String, result: Result<DecodedImage, Error>)?

    static func run(target: String, isDirectory: Bool, options: ObjectDetectorOptions, args: ArgumentReader) throws -> Int32 {
        let format = args.value("--format") ?? "jsonl"
        guard ["jsonl", "mot", "text"].contains(format) else { throw UsageError("--format must be jsonl, mot or text in stream mode, got '\(format)'") }
        let fps = try args.double("--fps") ?? 30
        guard fps > 0 else { throw UsageError("--fps must be positive") }
        let detector = try ObjectDetector(options: options)
        let source = try frameSource(target: target, isDirectory: isDirectory)
        let showProgress = isatty(STDERR_FILENO) == 1
        let started = Date()
        var index = 0
        var failures = 0
        while let frame = source() {
            index += 1
            let timestamp = Int64((Double(index - 1) * 1000 / fps).rounded())
            let decoded: DecodedImage
            switch frame.result {
            case let .success(d): decoded = d
            case let .failure(error):
                failures += 1
                printError("objdetect: frame \(index) (\(frame.name)) skipped: \(error)")
                continue
            }
            let orientation = try DetectCommand.orientation(args, decoded: decoded)
            let objects: [DetectedObject]
            do {
                objects = try detector.detect(videoFrame: decoded.image, timestampMs: timestamp, orientation: orientation)
            } catch {
                failures += 1
                printError("objdetect: frame \(index) (\(frame.name)) failed: \(error)")
                continue
            }
            switch format {
            case "jsonl":
                try printJSON(["frame": index, "timestamp_ms": timestamp, "source": frame.name,
                               "objects": objects.map { DetectCommand.objectJSON($0, includeKeypoints: false) }] as [String: Any])
            case "mot":
                for o in objects {
                    let id = o.trackingID ?? -1
                    writeLine("\(index),\(id),\(mot(o.frame.x)),\(mot(o.frame.y)),\(mot(o.frame.width)),\(mot(o.frame.height)),\(String(format: "%.4f", Double(o.score))),-1,-1,-1")
                }
            default:
                writeLine("Frame \(index) (\(frame.name), \(timestamp) ms):")
                writeLine(DetectCommand.textReport(objects))
            }
            if showProgress {
                let elapsed = Date().timeIntervalSince(started)
                FileHandle.standardError.write(Data(String(format: "\rframes: %d  %.1f fps", index, Double(index) / max(elapsed, 1e-6)).utf8))
            }
        }
        if showProgress { FileHandle.standardError.write(Data("\n".utf8)) }
        if failures > 0 {
            printError("objdetect: \(failures) of \(index) frames failed")
            return 1
        }
        return 0
    }

    static func mot(_ v: Double) -> String { String(format: "%.2f", v) }

    static func frameSource(target: String, isDirectory: Bool) throws -> FrameSource {
        if isDirectory {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: target)
            } catch {
                throw CommandFailure("cannot list \(target): \((error as NSError).localizedDescription)")
            }
            let images = NaturalSort.sorted(names.filter { name in
                let lower = name.lowercased()
                return [".png", ".ppm", ".pgm", ".pbm", ".pnm", ".jpg", ".jpeg"].contains { lower.hasSuffix($0) }
            })
            guard !images.isEmpty else { throw CommandFailure("no image files (.png, .ppm, .pgm, .jpg) in \(target)") }
            var iterator = images.makeIterator()
            return {
                guard let name = iterator.next() else { return nil }
                let path = (target as NSString).appendingPathComponent(name)
                return (name, Result { try ImageDecoder.decode(contentsOf: path) })
            }
        }
        // Standard input: concatenated PPM/PGM frames, or one image path per line.
        let stdin = FileHandle.standardInput
        let first = stdin.readData(ofLength: 1)
        guard let firstByte = first.first else { throw CommandFailure("standard input is empty: no frames") }
        if firstByte == UInt8(ascii: "P") {
            var pending: [UInt8]? = [firstByte]
            let reader = PPMStreamReader(source: {
                if let p = pending { pending = nil; return p }
                let chunk = stdin.readData(ofLength: 1 << 20)
                return chunk.isEmpty ? nil : [UInt8](chunk)
            })
            var done = false
            return {
                guard !done else { return nil }
                do {
                    guard let frame = try reader.nextFrame() else { return nil }
                    return ("stdin#\(reader.frameCount)", .success(frame))
                } catch {
                    // A broken frame ends a byte stream: the next frame's start cannot be found.
                    done = true
                    return ("stdin#\(reader.frameCount + 1)", .failure(error))
                }
            }
        }
        var rest = first + stdin.readDataToEndOfFile()
        if rest.last != 0x0A { rest.append(0x0A) }
        let lines = String(decoding: rest, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
        var iterator = lines.makeIterator()
        return {
            guard let path = iterator.next() else { return nil }
            return ((path as NSString).lastPathComponent, Result { try ImageDecoder.decode(contentsOf: path) })
        }
    }
}
