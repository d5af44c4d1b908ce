import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The match rule of `shared/goldens/detections/README.md` ("Matching tolerance").
struct GoldenMatchRule {
    struct Item {
        var box: (x: Double, y: Double, w: Double, h: Double)
        var score: Double
        var name: String
    }

    struct Outcome {
        var matched = 0
        var references = 0
        var missingPenalised = 0
        var missingExcused = 0
        var extrasPenalised = 0
        var extrasExcused = 0
        var worstScoreDelta = 0.0
        var worstIoU = 1.0
        var passes: Bool { missingPenalised == 0 && extrasPenalised == 0 }

        mutating func add(_ o: Outcome) {
            matched += o.matched
            references += o.references
            missingPenalised += o.missingPenalised
            missingExcused += o.missingExcused
            extrasPenalised += o.extrasPenalised
            extrasExcused += o.extrasExcused
            worstScoreDelta = max(worstScoreDelta, o.worstScoreDelta)
            worstIoU = min(worstIoU, o.worstIoU)
        }
    }

    static func iou(_ a: Item, _ b: Item) -> Double {
        let ix = max(0, min(a.box.x + a.box.w, b.box.x + b.box.w) - max(a.box.x, b.box.x))
        let iy = max(0, min(a.box.y + a.box.h, b.box.y + b.box.h) - max(a.box.y, b.box.y))
        let inter = ix * iy
        let union = a.box.w * a.box.h + b.box.w * b.box.h - inter
        return union > 0 ? inter / union : 0
    }

    /// - Parameters:
    ///   - cutoff: the option set's threshold, raised to the lowest reference score when a
    ///     count limit cut the reference list.
    static func compare(references: [Item], port: [Item], cutoff: Double, minIoU: Double = 0.85,
                        maxScoreDelta: Double = 0.05) -> Outcome {
        var o = Outcome()
        o.references = references.count
        var used = [Bool](repeating: false, count: port.count)
        for ref in references.sorted(by: { $0.score > $1.score }) {
            var best = -1
            var bestIoU = -1.0
            for (j, p) in port.enumerated() where !used[j] && p.name == ref.name && abs(p.score - ref.score) <= maxScoreDelta {
                let v = iou(ref, p)
                if v >= minIoU && v > bestIoU {
                    best = j
                    bestIoU = v
                }
            }
            if best >= 0 {
                used[best] = true
                o.matched += 1
                o.worstIoU = min(o.worstIoU, bestIoU)
                o.worstScoreDelta = max(o.worstScoreDelta, abs(port[best].score - ref.score))
            } else if ref.score < cutoff + maxScoreDelta {
                o.missingExcused += 1
            } else {
                o.missingPenalised += 1
            }
        }
        for (j, p) in port.enumerated() where !used[j] {
            if p.score < cutoff + maxScoreDelta { o.extrasExcused += 1 } else { o.extrasPenalised += 1 }
        }
        return o
    }

    /// The detections of an SSD golden image entry as match items (integer pixel boxes).
    static func ssdItems(_ dets: [[String: Any]]) throws -> [Item] {
        try dets.map { d in
            guard let bb = d["bounding_box"] as? [String: Int], let x = bb["origin_x"], let y = bb["origin_y"],
                  let w = bb["width"], let h = bb["height"],
                  let c = (d["categories"] as? [[String: Any]])?.first, let score = c["score"] as? Double else {
                throw XCTSkip("malformed SSD golden entry")
            }
            return Item(box: (Double(x), Double(y), Double(w), Double(h)), score: score, name: c["category_name"] as? String ?? "")
        }
    }
}
