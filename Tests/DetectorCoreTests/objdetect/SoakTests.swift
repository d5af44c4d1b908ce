import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// A long stream through the CLI (issue 14): `OBJDETECT_SOAK=1` pipes 100,000 generated
/// 320x240 PPM frames into `objdetect - --mode stream --model face-short` and samples the
/// process's resident memory (VmRSS) after 1,000, 10,000 and 100,000 result lines. After the
/// first 1,000 frames (warm-up) it may grow by at most 5 MB. `OBJDETECT_SOAK_FRAMES=N` runs a
/// shorter soak (samples at 1,000, N/10 and N). Skipped unless asked for: it takes minutes.
///
/// The frames: a face (the astronaut fixture) sliding across a dark background at two
/// brightnesses, and every 500 frames 40 empty frames, so tracks end and new IDs are issued
/// all through the run.
final class SoakTests: XCTestCase {
    func testLongStreamKeepsItsMemoryFlat() throws {
        let environment = ProcessInfo.processInfo.environment
        guard environment["OBJDETECT_SOAK"] == "1" else {
            throw XCTSkip("soak test: set OBJDETECT_SOAK=1 to run it (100,000 frames, several minutes)")
        }
        let total = Int(environment["OBJDETECT_SOAK_FRAMES"] ?? "") ?? 100_000
        let checkpoints = [1_000, max(1_000, total / 10), total]
        let frames = try Self.frames()
        let empty = PPMEncoder.encode(try ImageBuffer(width: 320, height: 240, format: .rgb8,
                                                      pixels: [UInt8](repeating: 16, count: 320 * 240 * 3)))

        let process = Process()
        process.executableURL = try CLIRunner.executable()
        process.arguments = ["-", "--mode", "stream", "--model", "face-short", "--quiet"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier

        // Results are counted on this thread; frames are written on another. Standard input stays
        // open until the last sample, so the process is alive when it is taken.
        final class Samples: @unchecked Sendable {
            let lock = NSLock()
            var rss: [Int: Int] = [:]
            var maxTrackID = 0
        }
        let samples = Samples()
        let lastSampled = DispatchSemaphore(value: 0)
        let writer = input.fileHandleForWriting
        signal(SIGPIPE, SIG_IGN)
        DispatchQueue.global().async {
            for i in 0..<total {
                let bytes = i % 540 >= 500 ? empty : frames[i % frames.count]
                do { try writer.write(contentsOf: bytes) } catch { break }
            }
            lastSampled.wait()
            try? writer.close()
        }
        var lines = 0
        var pending = [UInt8]()
        let reader = output.fileHandleForReading
        while true {
            let data = reader.availableData
            if data.isEmpty { break }
            for byte in data {
                if byte != 10 { pending.append(byte); continue }
                lines += 1
                if let id = Self.largestTrackID(in: pending) { samples.maxTrackID = max(samples.maxTrackID, id) }
                pending.removeAll(keepingCapacity: true)
                if checkpoints.contains(lines) {
                    samples.rss[lines] = try Self.residentKilobytes(pid: pid)
                    if lines == total { lastSampled.signal() }
                }
            }
        }
        lastSampled.signal()   // in case the process ended early
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(lines, total)
        let warm = try XCTUnwrap(samples.rss[checkpoints[0]])
        let end = try XCTUnwrap(samples.rss[total])
        let summary = checkpoints.map { "\($0) frames: \(samples.rss[$0].map { "\($0) kB" } ?? "-")" }.joined(separator: ", ")
        print("soak: VmRSS \(summary); growth after warm-up \(end - warm) kB; largest tracking ID \(samples.maxTrackID)")
        XCTAssertLessThanOrEqual(end - warm, 5_000, summary)
        XCTAssertGreaterThan(samples.maxTrackID, 1, "the stream should have ended tracks and issued new IDs")
    }

    /// 80 positions x 2 brightnesses of the face on a 320x240 dark frame, as PPM files.
    static func frames() throws -> [[UInt8]] {
        let photo = try ImageDecoder.decode(contentsOf: SharedData.fixture("astronaut.png").path).image.converted(to: .rgb8)
        let face = try photo.resized(width: 200, height: 200, method: .bilinear)
        var frames: [[UInt8]] = []
        for brightness in [0, 24] {
            for step in 0..<80 {
                var pixels = [UInt8](repeating: 16, count: 320 * 240 * 3)
                let x0 = step * 3 / 2, y0 = 20 + step % 20
                for y in 0..<200 {
                    for x in 0..<200 {
                        for c in 0..<3 {
                            let v = Int(face.pixels[(y * 200 + x) * 3 + c]) + brightness
                            pixels[((y0 + y) * 320 + x0 + x) * 3 + c] = UInt8(min(255, v))
                        }
                    }
                }
                frames.append(PPMEncoder.encode(try ImageBuffer(width: 320, height: 240, format: .rgb8, pixels: pixels)))
            }
        }
        return frames
    }

    /// The largest `"trackingID":N` in one JSON line.
    static func largestTrackID(in line: [UInt8]) -> Int? {
        let key = Array(#""trackingID":"#.utf8)
        var best: Int?
        var i = 0
        while i + key.count <= line.count {
            if line[i..<(i + key.count)].elementsEqual(key) {
                var j = i + key.count, v = 0
                while j < line.count, line[j] >= 48, line[j] <= 57 { v = v * 10 + Int(line[j] - 48); j += 1 }
                best = max(best ?? 0, v)
                i = j
            } else {
                i += 1
            }
        }
        return best
    }

    /// VmRSS of a process, from /proc/PID/status.
    static func residentKilobytes(pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kB = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else {
            throw XCTSkip("no VmRSS in /proc/\(pid)/status")
        }
        return kB
    }
}
