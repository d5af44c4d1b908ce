import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class DetectorDecoderConfigTests: XCTestCase {
    func testPresetsCarryMediaPipesGraphSettings() throws {
        let short = DetectorDecoderConfig.faceShortRange
        XCTAssertEqual(short.inputWidth, 128)
        XCTAssertEqual(short.resize, .letterbox)
        XCTAssertEqual(short.inputRange, InputRange(min: -1, max: 1))
        XCTAssertEqual(short.anchors?.strides, [8, 16, 16, 16])
        XCTAssertEqual(short.anchors?.minScale, 0.1484375)
        XCTAssertEqual(short.anchors?.maxScale, 0.75)
        XCTAssertEqual(short.anchors?.fixedAnchorSize, true)
        XCTAssertEqual(short.decoding?.numCoords, 16)
        XCTAssertEqual(short.decoding?.numKeypoints, 6)
        XCTAssertEqual(short.decoding?.scoreClippingThresh, 100)
        XCTAssertEqual(short.decoding?.reverseOutputOrder, true)
        XCTAssertEqual(short.decoding?.xScale, 128)
        XCTAssertEqual(short.decoding?.minScoreThresh, 0.5)
        XCTAssertEqual(short.nms, NmsOptions(algorithm: .weighted, iouThreshold: 0.3))
        XCTAssertTrue(short.appliesLetterboxRemoval)

        let full = try XCTUnwrap(DetectorDecoderConfig.preset(named: "face"))
        XCTAssertEqual(full.inputWidth, 192)
        XCTAssertEqual(full.anchors?.strides, [4])
        XCTAssertEqual(full.anchors?.interpolatedScaleAspectRatio, 0)
        XCTAssertEqual(full.decoding?.numBoxes, 2304)
        XCTAssertEqual(full.decoding?.minScoreThresh, 0.6)

        let palm = try XCTUnwrap(DetectorDecoderConfig.preset(named: "palm"))
        XCTAssertEqual(palm.inputRange, InputRange(min: 0, max: 1))
        XCTAssertEqual(palm.decoding?.numCoords, 18)
        XCTAssertEqual(palm.decoding?.numKeypoints, 7)
        XCTAssertEqual(palm.decoding?.numBoxes, 2016)
        XCTAssertEqual(DetectorDecoderConfig.preset(named: "face-short"), short)
        XCTAssertNil(DetectorDecoderConfig.preset(named: "cat"))
        for c in [short, full, palm] { XCTAssertNoThrow(try c.validate()) }
    }

    func testJSONRoundTripAndDefaults() throws {
        for preset in [DetectorDecoderConfig.faceShortRange, .faceFullRange, .palm, .yolo(.yolov8)] {
            let data = try preset.jsonData()
            XCTAssertEqual(try DetectorDecoderConfig(jsonData: data), preset)
        }
        // Omitted keys take MediaPipe's proto defaults.
        let json = """
        {"family": "anchors", "inputWidth": 128, "inputHeight": 128, "resize": "letterbox",
         "anchors": {"numLayers": 4, "minScale": 0.1484375, "maxScale": 0.75, "inputSizeWidth": 128,
                     "inputSizeHeight": 128, "strides": [8, 16, 16, 16], "aspectRatios": [1.0], "fixedAnchorSize": true},
         "decoding": {"numBoxes": 896, "numCoords": 16, "keypointCoordOffset": 4, "numKeypoints": 6,
                      "sigmoidScore": true, "scoreClippingThresh": 100, "reverseOutputOrder": true,
                      "xScale": 128, "yScale": 128, "wScale": 128, "hScale": 128, "minScoreThresh": 0.5},
         "nms": {"algorithm": "weighted", "iouThreshold": 0.3}}
        """
        let c = try DetectorDecoderConfig(jsonData: Data(json.utf8))
        XCTAssertEqual(c.anchors?.anchorOffsetX, 0.5)
        XCTAssertEqual(c.anchors?.interpolatedScaleAspectRatio, 1.0)
        XCTAssertEqual(c.decoding?.numClasses, 1)
        XCTAssertEqual(c.decoding?.numValuesPerKeypoint, 2)
        XCTAssertEqual(c.nms?.overlapType, .intersectionOverUnion)
        XCTAssertEqual(c.anchors, DetectorDecoderConfig.faceShortRange.anchors)
        XCTAssertEqual(c.decoding, DetectorDecoderConfig.faceShortRange.decoding)
        XCTAssertEqual(try c.makeAnchorPostProcessor().decoder.anchors.count, 896)
    }

    func testBadConfigsGiveOneLineErrors() throws {
        func error(_ json: String) -> String? {
            do {
                _ = try DetectorDecoderConfig(jsonData: Data(json.utf8))
                return nil
            } catch {
                return "\(error)"
            }
        }
        XCTAssertNotNil(error("{"))
        let missing = try XCTUnwrap(error(#"{"family": "anchors", "inputHeight": 1, "resize": "stretch"}"#))
        XCTAssertTrue(missing.contains("inputWidth"), missing)
        let wrongType = try XCTUnwrap(error(#"{"family": "anchors", "inputWidth": "x", "inputHeight": 1, "resize": "stretch"}"#))
        XCTAssertTrue(wrongType.contains("inputWidth"), wrongType)
        let badFamily = try XCTUnwrap(error(#"{"family": "rcnn", "inputWidth": 1, "inputHeight": 1, "resize": "stretch"}"#))
        XCTAssertTrue(badFamily.contains("family"), badFamily)
        let noAnchors = try XCTUnwrap(error(#"{"family": "anchors", "inputWidth": 1, "inputHeight": 1, "resize": "stretch"}"#))
        XCTAssertTrue(noAnchors.contains("anchors"), noAnchors)
        // numBoxes that does not match the anchors.
        var c = DetectorDecoderConfig.faceShortRange
        c.decoding?.numBoxes = 895
        XCTAssertThrowsError(try DetectorDecoderConfig(jsonData: c.jsonData())) { e in
            XCTAssertTrue("\(e)".contains("896"), "\(e)")
        }
        c = DetectorDecoderConfig.faceShortRange
        c.letterboxFill = 300
        XCTAssertThrowsError(try c.validate())
        for message in [missing, wrongType, badFamily, noAnchors] {
            XCTAssertFalse(message.contains("\n"), message)
        }
        XCTAssertThrowsError(try DetectorDecoderConfig.load(from: URL(fileURLWithPath: "/nonexistent/config.json"))) { e in
            XCTAssertTrue("\(e)".contains("/nonexistent/config.json"))
        }
        XCTAssertThrowsError(try DetectorDecoderConfig(jsonData: Data(count: DetectorDecoderConfig.maxFileBytes + 1)))
    }

    func testCheckAgainstModelTensors() throws {
        let short = DetectorDecoderConfig.faceShortRange
        XCTAssertNoThrow(try short.check(inputShape: [1, 128, 128, 3], outputShapes: [[1, 896, 16], [1, 896, 1]]))
        XCTAssertThrowsError(try short.check(inputShape: [1, 192, 192, 3], outputShapes: [[1, 896, 16], [1, 896, 1]]))
        XCTAssertThrowsError(try short.check(inputShape: [1, 128, 128, 3], outputShapes: [[1, 2304, 16], [1, 2304, 1]])) { e in
            XCTAssertTrue("\(e)".contains("output 0"), "\(e)")
        }
        XCTAssertThrowsError(try short.check(inputShape: [1, 128, 128, 3], outputShapes: [[1, 896, 16]]))
        XCTAssertNoThrow(try DetectorDecoderConfig.yolo(.yolov8).check(inputShape: [1, 640, 640, 3], outputShapes: [[1, 84, 8400]]))
        XCTAssertThrowsError(try DetectorDecoderConfig.yolo(.yolov5).check(inputShape: [1, 640, 640, 3], outputShapes: [[1, 4]]))
    }

    /// A YOLOX config from JSON: the new resize mode and channel order by their names; an input
    /// that is no multiple of 32 has no strides-8/16/32 grid and is refused.
    func testYoloxConfigFromJSON() throws {
        let json = #"{"family": "yolox", "inputWidth": 416, "inputHeight": 416, "resize": "letterbox-top-left", "letterboxFill": 114, "channelOrder": "rgb"}"#
        let config = try DetectorDecoderConfig(jsonData: Data(json.utf8))
        XCTAssertEqual(config.family, .yolox)
        XCTAssertEqual(config.resize, .letterboxTopLeft)
        XCTAssertEqual(config.channelOrder, .rgb)
        XCTAssertTrue(config.appliesLetterboxRemoval)
        // 52² + 26² + 13² = 3549 rows.
        XCTAssertNoThrow(try config.check(inputShape: [1, 416, 416, 3], outputShapes: [[1, 3549, 85]]))
        XCTAssertThrowsError(try config.check(inputShape: [1, 416, 416, 3], outputShapes: [[1, 3 * 3549, 85]]))
        let odd = #"{"family": "yolox", "inputWidth": 300, "inputHeight": 300, "resize": "letterbox-top-left"}"#
        XCTAssertThrowsError(try DetectorDecoderConfig(jsonData: Data(odd.utf8))) { e in
            XCTAssertTrue(String(describing: e).contains("multiple of 32"), String(describing: e))
        }
        XCTAssertEqual(try DetectorDecoderConfig(jsonData: Data(#"{"family": "end2end", "inputWidth": 640, "inputHeight": 640, "resize": "letterbox"}"#.utf8)).family, .endToEnd)
    }
}
