import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The seven-sequence MOT15 benchmark of `../shared/mot`: runs the tracker with its shipped
/// defaults on every sequence (timed at the sequence's own frame rate), scores it with the
/// in-test evaluator (`MOTMetrics`, py-motmetrics' rules) and prints the full table next to
/// the anchors of `../shared/mot/baselines.md` (read at test time).
final class MOTBenchmarkTests: XCTestCase {
    static let sequences = ["TUD-Campus", "TUD-Stadtmitte", "KITTI-17", "ETH-Sunnyday", "ADL-Rundle-6", "ETH-Bahnhof", "PETS09-S2L1"]

    struct Cell: Equatable { var mota: Double; var idf1: Double; var switches: Int }

    /// `| tracker | a / b / n | ... |` rows of the first table of baselines.md, in percent.
    static func anchors(_ text: String) throws -> [(name: String, cells: [String: Cell])] {
        var lines = text.split(separator: "\n").map(String.init)
        guard let header = lines.firstIndex(where: { $0.hasPrefix("| tracker |") }) else {
            throw XCTSkip("baselines.md has no table")
        }
        let columns = lines[header].split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        lines = Array(lines[(header + 2)...])
        var result: [(String, [String: Cell])] = []
        for line in lines {
            guard line.hasPrefix("|") else { break }
            let fields = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == columns.count else { break }
            var cells: [String: Cell] = [:]
            for (column, field) in zip(columns.dropFirst(), fields.dropFirst()) {
                let parts = field.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 3, let mota = Double(parts[0]), let idf1 = Double(parts[1]), let n = Int(parts[2]) else { continue }
                cells[column] = Cell(mota: mota, idf1: idf1, switches: n)
            }
            result.append((fields[0], cells))
        }
        return result
    }

    func rows(_ relative: String) throws -> [MOTRow] {
        try MOTFormat.parse(String(contentsOf: try SharedData.url(relative), encoding: .utf8))
    }

    /// Runs a tracker over a detection file as `objdetect track` does (frame k at k/fps s).
    /// Tracks as `objdetect track` does: timed at `fps`, with the frame width of the sequence's
    /// `seqinfo.ini` (which the ground-plane gate needs).
    static func track(_ detections: [MOTRow], fps: Double, frameWidth: Double?, configuration: TrackerConfiguration) throws -> [MOTRow] {
        var tracker = try IoUTracker(configuration: configuration)
        tracker.frameWidth = frameWidth
        var results: [MOTRow] = []
        for (offset, frame) in MOTFormat.groupByFrame(detections).enumerated() {
            let timestamp = Int64((Double(offset) * 1000 / fps).rounded())
            let objects = try tracker.update(frame.map { TrackerDetection(box: $0.box, score: $0.score) }, timestampMs: timestamp)
            results += objects.map { MOTRow(frame: offset + 1, id: $0.trackID, box: $0.box, score: $0.score) }
        }
        return results
    }

    func evaluate(configuration: TrackerConfiguration) throws -> [String: MOTMetrics] {
        var metrics: [String: MOTMetrics] = [:]
        for sequence in Self.sequences {
            let info = try String(contentsOf: try SharedData.url("mot/\(sequence)/seqinfo.ini"), encoding: .utf8)
            let fps = try XCTUnwrap(MOTFormat.frameRate(seqinfo: info), "\(sequence) seqinfo.ini has a frameRate")
            let results = try Self.track(try rows("mot/\(sequence)/det.txt"), fps: fps, frameWidth: MOTFormat.imageWidth(seqinfo: info),
                                         configuration: configuration)
            metrics[sequence] = try MOTMetrics.evaluate(groundTruth: try rows("mot/\(sequence)/gt.txt"), results: results)
        }
        metrics["combined"] = Self.sequences.compactMap { metrics[$0] }.reduce(MOTMetrics(), +)
        return metrics
    }

    func testSevenSequenceTableWithDefaults() throws {
        let anchors = try Self.anchors(String(contentsOf: try SharedData.url("mot/baselines.md"), encoding: .utf8))
        XCTAssertEqual(anchors.count, 5, "SORT ×2, OC-SORT, ByteTrack, BoT-SORT")
        let ours = try evaluate(configuration: TrackerConfiguration())
        let columns = Self.sequences + ["combined"]

        func format(_ cell: Cell) -> String { String(format: "%.1f / %.1f / %d", cell.mota, cell.idf1, cell.switches) }
        func cell(_ m: MOTMetrics) -> Cell { Cell(mota: 100 * m.mota, idf1: 100 * m.idf1, switches: m.switches) }
        var table = "| tracker | " + columns.joined(separator: " | ") + " |\n"
        table += "|---" + String(repeating: "|---", count: columns.count) + "|\n"
        table += "| ours (defaults) | " + columns.map { ours[$0].map { format(cell($0)) } ?? "?" }.joined(separator: " | ") + " |\n"
        for anchor in anchors {
            table += "| \(anchor.name) | " + columns.map { anchor.cells[$0].map(format) ?? "?" }.joined(separator: " | ") + " |\n"
        }
        table += "| best anchor | " + columns.map { column in
            let cells = anchors.compactMap { $0.cells[column] }
            return String(format: "%.1f / %.1f / %d", cells.map(\.mota).max() ?? .nan, cells.map(\.idf1).max() ?? .nan,
                          cells.map(\.switches).min() ?? -1)
        }.joined(separator: " | ") + " |\n"
        table += "\nours, FP / FN / jitter (centre, size px over n still pairs):\n"
        for column in columns {
            guard let m = ours[column] else { continue }
            table += String(format: "  %@: FP %d, FN %d, recall %.3f, precision %.3f, jitter %.2f / %.2f px (n %d)\n",
                            column, m.falsePositives, m.misses, m.recall, m.precision, m.jitterCentre, m.jitterSize, m.jitterPairs)
        }
        print(table)

        let combined = try XCTUnwrap(ours["combined"])
        XCTAssertEqual(combined.objects, 18_956, "ground-truth boxes of the seven sequences with confidence 1")
        // Issue 29's bar for MOT15, against the anchors as read from baselines.md: combined, better
        // MOTA and IDF1 than every anchor and no more ID switches than the fewest (229), with the
        // one default that also runs MOT17 (MOT17BenchmarkTests). Per sequence the table is
        // printed, not asserted: one default for two detectors trades a point here and there
        // (Tracking/README.md, leave-one-out results).
        for column in ["combined"] {
            let cells = anchors.compactMap { $0.cells[column] }
            guard let m = ours[column], cells.count == anchors.count else { XCTFail("\(column) missing"); continue }
            XCTAssertGreaterThan(100 * m.mota, cells.map(\.mota).max() ?? .nan, column)
            XCTAssertGreaterThan(100 * m.idf1, cells.map(\.idf1).max() ?? .nan, column)
            XCTAssertLessThanOrEqual(m.switches, cells.map(\.switches).min() ?? 0, column)
        }
    }
}
