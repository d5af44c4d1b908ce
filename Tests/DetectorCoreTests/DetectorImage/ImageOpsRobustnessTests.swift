import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Seeded random sweep over sizes, formats, methods, regions and drawing coordinates: every call
/// must end in a result of the promised size or a typed error, never a trap.
final class ImageOpsRobustnessTests: XCTestCase {
    func testPixelsAreEditedInPlaceWithoutChangingTheSize() throws {
        var image = try ImageBuffer(width: 2, height: 2, format: .rgb8)
        image.withMutablePixels { p in
            p[0] = 255          // red of the top-left pixel
            p[p.count - 1] = 7  // blue of the bottom-right pixel
        }
        XCTAssertEqual(image.pixels, [255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7])
        XCTAssertEqual(image.pixels.count, 2 * 2 * 3)
    }

    func testRandomSweep() throws {
        var rng = SplitMix64(seed: 20261130)
        let formats: [PixelFormat] = [.gray8, .rgb8, .rgba8, .rgba16]
        let specials: [Double] = [.nan, .infinity, -.infinity, 1e300, -1e300, 0, -0.5]
        for _ in 0..<400 {
            let w = rng.int(1...37), h = rng.int(1...29)
            let format = formats[rng.int(0...3)]
            let px = (0..<(w * h * format.bytesPerPixel)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let image = try ImageBuffer(width: w, height: h, format: format, pixels: px)
            let method = Resampler.allCases[rng.int(0...3)]
            let ow = rng.int(-2...41), oh = rng.int(-2...41)
            if let out = try? image.resized(width: ow, height: oh, method: method) {
                XCTAssertEqual(out.pixels.count, ow * oh * (format == .gray8 ? 1 : 3))
            } else {
                XCTAssertTrue(ow < 1 || oh < 1, "unexpected failure \(w)x\(h) \(format) -> \(ow)x\(oh) \(method)")
            }
            func coordinate() -> Double {
                rng.int(0...5) == 0 ? specials[rng.int(0...specials.count - 1)] : rng.double(-20, 60)
            }
            let region: ImageRect? = rng.int(0...2) == 0 ? nil
                : ImageRect(x: coordinate(), y: coordinate(), width: coordinate(), height: coordinate())
            let mode: ResizeMode = rng.int(0...1) == 0 ? .stretch : .letterbox
            let fill = UInt8(rng.int(0...255))
            let type: TensorInputType = [.uint8, .float32(.range(min: -1, max: 1)),
                                         .int8(scale: Float(rng.double(0, 0.1)), zeroPoint: rng.int(-200...200), normalization: .meanStd(mean: [0], std: [255]))][rng.int(0...2)]
            let options = ImageToTensorOptions(width: max(ow, 1), height: max(oh, 1), resizeMode: mode, letterboxFill: fill,
                                               resampler: method, inputType: type, region: region)
            if let t = try? ImageToTensor.convert(image, options: options) {
                XCTAssertEqual(t.values.count, max(ow, 1) * max(oh, 1) * 3)
            }
            let orientation = ImageOrientation.allCases[rng.int(0...7)]
            XCTAssertEqual(image.applyingOrientation(orientation).pixels.count, px.count)
            let annotation = ImageAnnotation(rect: ImageRect(x: coordinate(), y: coordinate(), width: coordinate(), height: coordinate()),
                                             label: String(repeating: "é~A ", count: rng.int(0...5)), classIndex: rng.int(-50...50),
                                             keypoints: [ImagePoint(x: coordinate(), y: coordinate())])
            let drawn = ImageAnnotator.draw([annotation], on: image,
                                            style: AnnotationStyle(lineThickness: rng.int(-3...50), textScale: rng.int(-3...9),
                                                                   keypointRadius: rng.int(-3...30)))
            XCTAssertEqual(drawn.width, w)
            XCTAssertEqual(drawn.height, h)
        }
    }
}

extension SplitMix64 {
    /// A uniform value in [lo, hi).
    mutating func double(_ lo: Double, _ hi: Double) -> Double {
        lo + (hi - lo) * Double(next() >> 11) / Double(1 << 53)
    }
}
