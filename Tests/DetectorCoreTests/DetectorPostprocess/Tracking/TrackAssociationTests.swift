import XCTest
@testable import DetectorPostprocess

/// The association scan's fast pieces against plain one-by-one versions of the same tests.
final class TrackAssociationTests: XCTestCase {
    /// The integer keys order boxes as comparing their left edges as floats would, ties (-0 and
    /// +0 included) by index.
    func testOrderByLeftEdgeIsThePlainSort() {
        var rng = SplitMix64(seed: 11)
        for count in [0, 1, 2, 7, 100, 1_000] {
            var boxes: [TrackBox] = []
            for _ in 0..<count {
                // Few distinct edges, negative ones and both zeros, so ties are common.
                let choices: [Float] = [-0.0, 0, -3.5, -1e-30, 1e-30, 2, 17.25, 1919, -250]
                let x = Bool.random(using: &rng) ? choices[Int.random(in: 0..<choices.count, using: &rng)]
                    : Float.random(in: -500...2_000, using: &rng)
                boxes.append(TrackBox(x: x, y: 0, width: 10, height: 10))
            }
            let plain = boxes.indices.sorted { boxes[$0].x < boxes[$1].x || (boxes[$0].x == boxes[$1].x && $0 < $1) }
            XCTAssertEqual(IoUTracker.orderByLeftEdge(boxes), plain, "\(count) boxes")
        }
    }

    /// Each bit of `overlapBits` is the four edge tests made one box at a time; NaN padding
    /// overlaps nothing.
    func testOverlapBitsAreTheOneByOneTests() {
        var rng = SplitMix64(seed: 5)
        let count = 203, lanes = IoUTracker.overlapLanes
        var edges = [[Float]](repeating: [Float](repeating: .nan, count: count + lanes), count: 4)
        for k in 0..<count {
            let x = Float(Int.random(in: 0..<60, using: &rng)), y = Float(Int.random(in: 0..<60, using: &rng))
            let w = Float(Int.random(in: 1..<20, using: &rng)), h = Float(Int.random(in: 1..<20, using: &rng))
            edges[0][k] = x
            edges[1][k] = y
            edges[2][k] = x + w
            edges[3][k] = y + h
        }
        var hits = 0
        for _ in 0..<300 {
            let left = Float(Int.random(in: -10..<70, using: &rng)), top = Float(Int.random(in: -10..<70, using: &rng))
            let right = left + Float(Int.random(in: 1..<25, using: &rng)), bottom = top + Float(Int.random(in: 1..<25, using: &rng))
            for start in stride(from: 0, to: count, by: 3) {
                let bits = IoUTracker.overlapBits(
                    lefts: edges[0], tops: edges[1], rights: edges[2], bottoms: edges[3], at: start,
                    left: left, top: top, right: right, bottom: bottom)
                for lane in 0..<lanes {
                    let k = start + lane
                    let expected = k < count && !(edges[1][k] >= bottom || edges[2][k] <= left || edges[3][k] <= top)
                        && edges[0][k] < right
                    XCTAssertEqual(bits & (1 << lane) != 0, expected, "box \(k) against (\(left), \(top), \(right), \(bottom))")
                    if expected { hits += 1 }
                }
            }
        }
        XCTAssertGreaterThan(hits, 1_000, "the scene has overlaps to find")
    }
}
