import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Letterboxed input gives boxes in image pixels for every family. The check is independent of
/// our mapping code: letterboxing an image gives (nearly) the same input tensor as stretching
/// that image padded to a square with the letterbox colour, so the letterbox detections must
/// equal the padded-square image's detections shifted back by the padding. (Today's bar: every
/// detection above 0.3 on either side has a partner of the same class with IoU ≥ 0.9 and
/// |Δscore| ≤ 0.05; SSD matched 0 of 69 before the shared output mapping.)
final class LetterboxMappingTests: XCTestCase {
    /// `image` centred on a square of `fill` (the extra pixel of an odd padding right/below).
    func paddedSquare(_ image: ImageBuffer, fill: UInt8) throws -> (ImageBuffer, left: Int, top: Int) {
        let rgb = image.format == .rgb8 ? image : image.converted(to: .rgb8)
        let side = max(rgb.width, rgb.height)
        let left = (side - rgb.width) / 2, top = (side - rgb.height) / 2
        var pixels = [UInt8](repeating: fill, count: side * side * 3)
        for y in 0..<rgb.height {
            let source = y * rgb.width * 3, target = ((y + top) * side + left) * 3
            pixels.replaceSubrange(target..<(target + rgb.width * 3), with: rgb.pixels[source..<(source + rgb.width * 3)])
        }
        return (try ImageBuffer(width: side, height: side, format: .rgb8, pixels: pixels), left, top)
    }

    func iou(_ a: ImageRect, _ b: ImageRect) -> Double {
        let w = max(0, min(a.maxX, b.maxX) - max(a.minX, b.minX)), h = max(0, min(a.maxY, b.maxY) - max(a.minY, b.minY))
        let union = a.width * a.height + b.width * b.height - w * h
        return union > 0 ? w * h / union : 0
    }

    /// Every detection above 0.3 on either side has a partner (same class) with IoU ≥ 0.9 and |Δscore| ≤ 0.05.
    func unmatched(_ a: [DetectedObject], _ b: [DetectedObject]) -> Int {
        let missing = a.filter { $0.score > 0.3 }.filter { x in
            !b.contains { y in y.category.index == x.category.index && iou(x.frame, y.frame) >= 0.9 && abs(x.score - y.score) <= 0.05 }
        }
        for x in missing {
            let best = b.filter { $0.category.index == x.category.index }.max { iou(x.frame, $0.frame) < iou(x.frame, $1.frame) }
            print("  unmatched \(x.category.text) \(x.score) \(x.frame) best \(best.map { "\($0.score) iou \(iou(x.frame, $0.frame))" } ?? "none")")
        }
        return missing.count
    }

    func clip(_ r: ImageRect, _ image: ImageBuffer) -> ImageRect {
        let x1 = min(max(r.minX, 0), Double(image.width)), y1 = min(max(r.minY, 0), Double(image.height))
        let x2 = min(max(r.maxX, 0), Double(image.width)), y2 = min(max(r.maxY, 0), Double(image.height))
        return ImageRect(x: x1, y: y1, width: x2 - x1, height: y2 - y1)
    }

    func check(_ model: ModelSource, fill: UInt8, name: String, minimumDetections: Int, clips: Bool = true) throws {
        var options = ObjectDetectorOptions(model: model)
        options.resizeMode = .letterbox
        options.scoreThreshold = 0.2
        options.threadCount = 2
        // The same resampler both ways (the families' defaults differ between stretch and letterbox).
        options.resampler = fill == 114 ? .bilinear : .mediaPipe
        let detector = try ObjectDetector(options: options)
        var stretchOptions = options
        stretchOptions.resizeMode = .stretch
        let squareDetector = try ObjectDetector(options: stretchOptions)
        let folder = try SharedData.url("images")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.sorted()
        var compared = 0, failures = 0, photos = 0
        for file in files {
            let decoded = try ImageDecoder.decode(contentsOf: folder.appendingPathComponent(file).path)
            var image = decoded.image.applyingOrientation(decoded.orientation ?? .up)
            guard image.width != image.height else { continue }
            // MediaPipe's letterbox centres the image, so an odd padding puts it half a pixel off
            // the pixel grid, which no padded image can reproduce: trim one column or row of the
            // shorter side so the padding is even and both tensors are the same.
            if abs(image.width - image.height) % 2 == 1 {
                image = try image.cropped(x: 0, y: 0, width: image.width - (image.width < image.height ? 1 : 0),
                                          height: image.height - (image.height < image.width ? 1 : 0))
            }
            photos += 1
            let letterboxed = try detector.detect(image: image).map { o -> DetectedObject in
                var o = o
                if clips { o.frame = clip(o.frame, image) }
                return o
            }
            let (square, left, top) = try paddedSquare(image, fill: fill)
            let shifted = try squareDetector.detect(image: square).map { o -> DetectedObject in
                var o = o
                // Back to the photo's pixels, clipped to the photo as the letterbox results are
                // (SSD and YOLO clip to the image; the face graph does not, so neither side is clipped there).
                let moved = ImageRect(x: o.frame.x - Double(left), y: o.frame.y - Double(top), width: o.frame.width, height: o.frame.height)
                o.frame = clips ? clip(moved, image) : moved
                return o
            }
            let missing = unmatched(letterboxed, shifted) + unmatched(shifted, letterboxed)
            compared += letterboxed.filter { $0.score > 0.3 }.count
            failures += missing
            XCTAssertEqual(missing, 0, "\(name) \(file): letterbox \(letterboxed.map { ($0.category.text, $0.frame, $0.score) }) vs padded square \(shifted.map { ($0.category.text, $0.frame, $0.score) })")
        }
        print("[letterbox \(name)] \(photos) non-square photos, \(compared - failures)/\(compared) detections above 0.3 match the padded square's")
        XCTAssertGreaterThanOrEqual(compared, minimumDetections, "\(name): too few detections to test")
    }

    func testSsdLetterboxBoxesAreInImagePixels() throws {
        try check(.file(try SharedData.url("models/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite").path), fill: 0,
                  name: "ssd", minimumDetections: 20)
    }

    func testRawAnchorLetterboxBoxesAreInImagePixels() throws {
        _ = try SharedData.url("images")
        try check(.embedded("face"), fill: 0, name: "face full range", minimumDetections: 3, clips: false)
    }

    func testYoloLetterboxBoxesAreInImagePixels() throws {
        try check(.file(try SharedData.url("models/yolov5n-fp16.tflite").path), fill: 114, name: "yolov5n", minimumDetections: 20)
    }
}
