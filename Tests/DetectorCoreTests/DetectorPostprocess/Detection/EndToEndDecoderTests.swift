import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The end-to-end (NMS-free) family: the decoder on hand-written rows, and the whole pipeline
/// (image → tensor → interpreter → decoder → mapping → filter) on a model built in memory whose
/// output is a reshape of its input, so the pixels of a 3 × 2 image are the detections.
final class EndToEndDecoderTests: XCTestCase {
    func testRowsInPixelsAndNormalized() throws {
        // x1, y1, x2, y2, score, class — in input pixels (a corner above 1.5).
        let pixels: [Float] = [10, 20, 110, 220, 0.9, 2,
                               12, 22, 108, 218, 0.8, 2,     // the same object again: no NMS, both stay
                               0, 0, 5, 5, 0.1, 0]
        let d = EndToEndDecoder(scoreThreshold: 0.25)
        let (found, units) = try d.decodeWithUnits(pixels, shape: [1, 3, 6], inputWidth: 640, inputHeight: 640)
        XCTAssertEqual(units, .pixels)
        XCTAssertEqual(found.map(\.classIndex), [2, 2])
        XCTAssertEqual([found[0].x1, found[0].y1, found[0].x2, found[0].y2], [10, 20, 110, 220])
        XCTAssertEqual(found.map(\.score), [Double(Float(0.9)), Double(Float(0.8))])
        // Normalized (no corner above 1.5): multiplied by the input size; no threshold keeps all, by score.
        let normalized: [Float] = [0.5, 0.25, 1, 0.75, 0.3, 1, 0, 0, 0.5, 0.5, 0.6, 0.4]
        let (rows, u) = try EndToEndDecoder().decodeWithUnits(normalized, shape: [1, 2, 6], inputWidth: 320, inputHeight: 160)
        XCTAssertEqual(u, .normalized)
        XCTAssertEqual(rows.map(\.classIndex), [0, 1], "class 0.4 rounds to 0")
        XCTAssertEqual([rows[1].x1, rows[1].y1, rows[1].x2, rows[1].y2], [160, 40, 320, 120])
        // [1, N, 4 + C]: the best of C class scores.
        let scored: [Float] = [1, 2, 30, 40, 0.1, 0.7, 0.2]
        let best = try EndToEndDecoder().decode(scored, shape: [1, 1, 7], inputWidth: 64, inputHeight: 64)
        XCTAssertEqual(best.first?.classIndex, 1)
        XCTAssertEqual(best.first?.score, Double(Float(0.7)))
        XCTAssertThrowsError(try EndToEndDecoder().decode([0, 0, 0, 0], shape: [1, 1, 4], inputWidth: 64, inputHeight: 64))
    }

    /// A 3 × 2 float model whose output [1, 3, 6] is a RESHAPE of its input [1, 2, 3, 3]: with the
    /// family's [0, 1] input range, pixel p becomes p / 255, so each pair of pixels is one row.
    func testAConstructedModelEndToEnd() throws {
        var g = GraphBuilder()
        let input = g.input([1, 2, 3, 3])
        let shape = g.intConstant([1, 3, 6], shape: [3])
        let out = g.op(.reshape, [input, shape])[0]
        g.outputs = [out]
        // Rows: the whole input (0, 0, 1, 1) as dog at 0.8 and again at 0.6 (NMS would drop it);
        // a box (0.2, 0, 0.6, 0.4) as cat at 0.098, below 0.25.
        let pixels: [UInt8] = [0, 0, 255, 255, 204, 255,
                               0, 0, 255, 255, 153, 255,
                               51, 0, 153, 102, 25, 0]
        let image = ImageBuffer(uncheckedWidth: 3, height: 2, format: .rgb8, pixels: pixels)
        func detect(_ change: (inout ObjectDetectorOptions) -> Void) throws -> [DetectedObject] {
            let interpreter = try Interpreter(graph: g.build(), options: .init(threadCount: 1))
            let info = ModelFamilyDetector.rowsFamily(inputShape: [1, 2, 3, 3], outputShape: [1, 3, 6])
            let facts = ModelFacts(input: interpreter.inputs[0], outputs: interpreter.outputs, family: info)
            var options = ObjectDetectorOptions(model: .file("in-memory.tflite"))
            options.labels = ["cat", "dog"]
            change(&options)
            let plan = try DetectionPlan.make(facts: facts, options: options)
            XCTAssertEqual(plan.family, .endToEnd)
            return try DetectorPipeline(interpreter: interpreter, plan: plan).detect(image)
        }
        let all = try detect { _ in }
        XCTAssertEqual(all.map(\.category.text), ["dog", "dog", "cat"], "no threshold, no NMS")
        XCTAssertEqual(all[0].frame.x, 0, accuracy: 1e-6)
        XCTAssertEqual(all[0].frame.width, 3, accuracy: 1e-5)
        XCTAssertEqual(all[0].frame.height, 2, accuracy: 1e-5)
        XCTAssertEqual(all[2].frame.x, 0.6, accuracy: 1e-5)
        XCTAssertEqual(all[2].frame.width, 1.2, accuracy: 1e-5)
        XCTAssertEqual(all[2].frame.height, 0.8, accuracy: 1e-5)
        XCTAssertEqual(all.map(\.score), [204, 153, 25].map { Float($0) / 255 })
        XCTAssertEqual(try detect { $0.scoreThreshold = 0.25 }.map(\.score), [0.8, 0.6])
        XCTAssertEqual(try detect { $0.fallbackScoreThreshold = 0.7 }.map(\.score), [0.8])
        XCTAssertEqual(try detect { $0.categoryAllowlist = ["cat"] }.map(\.category.text), ["cat"])
        XCTAssertEqual(try detect { $0.categoryDenylist = ["cat"] }.count, 2)
        XCTAssertEqual(try detect { $0.maxResults = 1 }.map(\.score), [0.8])
    }
}
