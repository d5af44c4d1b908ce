import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Small resizes and conversions checked by hand.
final class ResizeAndTensorTests: XCTestCase {
    private func gray(_ w: Int, _ h: Int, _ px: [UInt8]) throws -> ImageBuffer {
        try ImageBuffer(width: w, height: h, format: .gray8, pixels: px)
    }

    func testHalfPixelBilinearByHand() throws {
        // Upscale 2 -> 4: sample positions -0.25, 0.25, 0.75, 1.25 (clamped at the ends).
        let up = try gray(2, 1, [0, 100]).resized(width: 4, height: 1, method: .bilinear)
        XCTAssertEqual(up.pixels, [0, 25, 75, 100])
        // 2x2 -> 1x1 samples the centre: the mean.
        let down = try gray(2, 2, [10, 20, 30, 40]).resized(width: 1, height: 1, method: .bilinear)
        XCTAssertEqual(down.pixels, [25])
        // Same size: identity.
        let same = try gray(3, 2, [1, 2, 3, 4, 5, 6]).resized(width: 3, height: 2, method: .bilinear)
        XCTAssertEqual(same.pixels, [1, 2, 3, 4, 5, 6])
    }

    func testAreaByHand() throws {
        // 4x4 -> 2x2: block means.
        let img = try gray(4, 4, [0, 2, 10, 12,
                                  4, 6, 14, 16,
                                  20, 20, 40, 40,
                                  20, 20, 40, 44])
        XCTAssertEqual(try img.resized(width: 2, height: 2, method: .area).pixels, [3, 13, 20, 41])
        // 3 -> 2: output 0 covers [0, 1.5): (0 + 0.5·90) / 1.5 = 30; output 1: (0.5·90 + 180) / 1.5 = 150.
        XCTAssertEqual(try gray(3, 1, [0, 90, 180]).resized(width: 2, height: 1, method: .area).pixels, [30, 150])
    }

    func testMediaPipeByHand() throws {
        // Corner-aligned: x samples 0, 0.5, 1, 1.5 → (0, 32, 64, 64) with the edge replicated.
        let up = try gray(2, 1, [0, 64]).resized(width: 4, height: 1, method: .mediaPipe)
        XCTAssertEqual(up.pixels, [0, 32, 64, 64])
        // 1/32 grid: 3 -> 2 samples x = 0 and 1.5; 1.5 = 48/32 → fx = 16: (100 + 200) / 2.
        let down = try gray(3, 1, [0, 100, 200]).resized(width: 2, height: 1, method: .mediaPipe)
        XCTAssertEqual(down.pixels, [0, 150])
    }

    func testPillowByHand() throws {
        // 4 -> 2 (scale 2, support 2): output 0 has centre 1 and taps 0..2.
        // Weights for output 0: j = 0,1,2 → t = |j − 1 + 0.5| / 2 = 0.25, 0.25, 0.75 → w = 0.75, 0.75, 0.25,
        // normalised 3/7, 3/7, 1/7: (3·0 + 3·70 + 1·140) / 7 = 50.
        let out = try gray(4, 1, [0, 70, 140, 210]).resized(width: 2, height: 1, method: .pillowBilinear)
        XCTAssertEqual(out.pixels[0], 50)
        // Output 1: centre 3, taps 1..3 (clamped at 4): w = 0.25, 0.75, 0.75 → (70 + 3·140 + 3·210) / 7 = 160.
        XCTAssertEqual(out.pixels[1], 160)
    }

    func testInputFormats() throws {
        // gray8 stays gray8; rgba8 drops alpha; rgba16 uses the high bytes.
        let rgba = try ImageBuffer(width: 1, height: 1, format: .rgba8, pixels: [10, 20, 30, 0])
        let r = try rgba.resized(width: 2, height: 1, method: .pillowBilinear)
        XCTAssertEqual(r.format, .rgb8)
        XCTAssertEqual(r.pixels, [10, 20, 30, 10, 20, 30])
        let wide = try ImageBuffer(width: 1, height: 1, format: .rgba16, pixels: [1, 2, 3, 4, 5, 6, 7, 8])
        XCTAssertEqual(try wide.resized(width: 1, height: 2, method: .mediaPipe).pixels, [1, 3, 5, 1, 3, 5])
        XCTAssertThrowsError(try rgba.resized(width: 0, height: 3, method: .area))
        XCTAssertThrowsError(try rgba.resized(width: Int.max, height: 3, method: .area))
        for m in Resampler.allCases { XCTAssertEqual(Resampler(name: m.description), m) }
        // A buffer whose pixels were replaced by a wrong-sized array is rejected, never read past.
        var broken = try ImageBuffer(width: 4, height: 4, format: .rgb8)
        broken.pixels = [1, 2, 3]
        for m in Resampler.allCases {
            XCTAssertThrowsError(try broken.resized(width: 8, height: 8, method: m)) { error in
                XCTAssertTrue("\(error)".contains("does not match"))
            }
        }
        XCTAssertThrowsError(try ImageToTensor.convert(broken, options: ImageToTensorOptions(width: 2, height: 2, inputType: .uint8)))
        XCTAssertEqual(broken.applyingOrientation(.right), broken)
        XCTAssertEqual(ImageToTensor.convertValues(broken, inputType: .uint8).count, 0)
        var canvas = ImageCanvas(broken)
        canvas.fillRect(x: 0, y: 0, width: 4, height: 4, color: .white)
        XCTAssertEqual(canvas.image.pixels, [1, 2, 3])
        // Extreme aspect ratios still give a legal letterbox.
        let strip = try ImageBuffer(width: 1000, height: 1, format: .rgb8)
        for m in Resampler.allCases {
            let t = try ImageToTensor.convert(strip, options: ImageToTensorOptions(width: 4, height: 4, resizeMode: .letterbox, letterboxFill: 7,
                                                                                  resampler: m, inputType: .uint8))
            XCTAssertEqual(t.values.count, 48, "\(m)")
        }
    }

    func testStretchTensorAndTransform() throws {
        let g = try gray(2, 1, [10, 200])
        let t = try ImageToTensor.convert(g, options: ImageToTensorOptions(width: 2, height: 1, inputType: .uint8))
        XCTAssertEqual(t.values, .uint8([10, 10, 10, 200, 200, 200]))
        let big = try ImageBuffer(width: 640, height: 480, format: .rgb8)
        let s = try ImageToTensor.convert(big, options: ImageToTensorOptions(width: 320, height: 320, inputType: .uint8))
        XCTAssertEqual(s.transform.imagePoint(fromNormalized: ImagePoint(x: 0.5, y: 0.5)), ImagePoint(x: 320, y: 240))
        XCTAssertEqual(s.transform.imagePoint(fromTensorPixel: ImagePoint(x: 320, y: 320)), ImagePoint(x: 640, y: 480))
        XCTAssertEqual(s.transform.tensorPoint(fromImage: ImagePoint(x: 64, y: 48)), ImagePoint(x: 32, y: 32))
        XCTAssertEqual(s.transform.padding, .zero)
    }

    func testMediaPipeLetterboxByHand() throws {
        // 4x2 into 4x4: the square region is 4x4 centred, so rows -1 and 2 lie outside (fill).
        let img = try gray(4, 2, [1, 2, 3, 4, 5, 6, 7, 8])
        let opts = ImageToTensorOptions(width: 4, height: 4, resizeMode: .letterbox, letterboxFill: 0,
                                        resampler: .mediaPipe, inputType: .uint8)
        let t = try ImageToTensor.convert(img, options: opts)
        let row = { (v: [UInt8]) in v.flatMap { [$0, $0, $0] } }
        XCTAssertEqual(t.values, .uint8(row([0, 0, 0, 0]) + row([1, 2, 3, 4]) + row([5, 6, 7, 8]) + row([0, 0, 0, 0])))
        XCTAssertEqual(t.transform.padding, TensorPadding(left: 0, top: 0.25, right: 0, bottom: 0.25))
        // Tensor pixel (0, 1) is image (0, 0); normalized (1, 0.75) is the image's bottom-right corner.
        XCTAssertEqual(t.transform.imagePoint(fromTensorPixel: ImagePoint(x: 0, y: 1)), ImagePoint(x: 0, y: 0))
        XCTAssertEqual(t.transform.imagePoint(fromNormalized: ImagePoint(x: 1, y: 0.75)), ImagePoint(x: 4, y: 2))
        // Fill value other than zero reads outside the image.
        let t114 = try ImageToTensor.convert(img, options: ImageToTensorOptions(width: 4, height: 4, resizeMode: .letterbox, letterboxFill: 114,
                                                                                  resampler: .mediaPipe, inputType: .uint8))
        guard case let .uint8(v) = t114.values else { return XCTFail("uint8 expected") }
        XCTAssertEqual(Array(v[0..<12]), [UInt8](repeating: 114, count: 12))
    }

    func testPasteLetterboxByHand() throws {
        // 2x4 (portrait) into 4x4 with Pillow: scale 1, pasted at left = 1, fill 114 on both sides.
        let img = try gray(2, 4, [1, 2, 3, 4, 5, 6, 7, 8])
        let opts = ImageToTensorOptions(width: 4, height: 4, resizeMode: .letterbox, letterboxFill: 114,
                                        resampler: .pillowBilinear, inputType: .uint8)
        let t = try ImageToTensor.convert(img, options: opts)
        XCTAssertEqual(Array(t.resized.pixels[0..<12]), [114, 114, 114, 1, 1, 1, 2, 2, 2, 114, 114, 114])
        XCTAssertEqual(t.transform.padding, TensorPadding(left: 0.25, top: 0, right: 0.25, bottom: 0))
        XCTAssertEqual(t.transform.imagePoint(fromTensorPixel: ImagePoint(x: 1, y: 0)), ImagePoint(x: 0, y: 0))
        XCTAssertEqual(t.transform.imagePoint(fromNormalized: ImagePoint(x: 0.75, y: 1)), ImagePoint(x: 2, y: 4))
        // 8x2 into 4x4 with area: scale 0.5 → 4x1 pasted at top = 1 (floor of 3/2).
        let wide = try gray(8, 2, [UInt8](repeating: 50, count: 16))
        let w = try ImageToTensor.convert(wide, options: ImageToTensorOptions(width: 4, height: 4, resizeMode: .letterbox, letterboxFill: 0,
                                                                               resampler: .area, inputType: .uint8))
        XCTAssertEqual(w.transform.padding, TensorPadding(left: 0, top: 0.25, right: 0, bottom: 0.5))
        XCTAssertEqual(Array(w.resized.pixels[12..<24]), [UInt8](repeating: 50, count: 12))
        XCTAssertEqual(w.transform.imagePoint(fromTensorPixel: ImagePoint(x: 4, y: 2)), ImagePoint(x: 8, y: 2))
    }

    func testValueConversions() throws {
        let img = try gray(3, 1, [0, 100, 255])
        // MediaPipe's float conversion: x · 0.007843138 − 1 (classification README).
        let mp = ImageToTensor.convertValues(img.converted(to: .rgb8), inputType: .float32(.mediaPipe(mean: 127.5, std: 127.5)))
        guard case let .float32(f) = mp else { return XCTFail("float expected") }
        XCTAssertEqual(f[0], -1)
        XCTAssertEqual(f[3], Float(100) * Float(0.007843138) - 1)
        XCTAssertEqual(f[6], 1, accuracy: 1e-6)
        let yolo = ImageToTensor.convertValues(img.converted(to: .rgb8), inputType: .float32(.meanStd(mean: [0], std: [255])))
        guard case let .float32(y) = yolo else { return XCTFail("float expected") }
        XCTAssertEqual(y[3], Float(100) / Float(255))
        // int8 with scale 1/255 and zero point −128: 0 → −128, 255 → 127, 100 → −28.
        let q = ImageToTensor.convertValues(img.converted(to: .rgb8),
                                            inputType: .int8(scale: 1.0 / 255, zeroPoint: -128, normalization: .meanStd(mean: [0], std: [255])))
        XCTAssertEqual(q, .int8([-128, -128, -128, -28, -28, -28, 127, 127, 127]))
        // Saturation: scale 1/510 doubles the range, so 255 clamps to 127.
        let sat = ImageToTensor.convertValues(img.converted(to: .rgb8),
                                              inputType: .int8(scale: 1.0 / 510, zeroPoint: 0, normalization: .meanStd(mean: [0], std: [255])))
        guard case let .int8(s) = sat else { return XCTFail("int8 expected") }
        XCTAssertEqual(s[6], 127)
        XCTAssertEqual(s[3], 127)   // 100/255·510 = 200 → clamped
        // Per-channel mean/std.
        let rgb = try ImageBuffer(width: 1, height: 1, format: .rgb8, pixels: [10, 20, 30])
        let pc = ImageToTensor.convertValues(rgb, inputType: .float32(.meanStd(mean: [10, 10, 10], std: [1, 2, 4])))
        XCTAssertEqual(pc, .float32([0, 5, 5]))
    }

    func testRegionOfInterest() throws {
        // MediaPipe samples the region at sub-pixel positions 1, 1.5, 2, 2.5: the last one reads
        // pixel 3, outside the region but inside the image (no crop).
        let img = try gray(4, 1, [0, 40, 80, 120])
        let region = ImageRect(x: 1, y: 0, width: 2, height: 1)
        let mp = try ImageToTensor.convert(img, options: ImageToTensorOptions(width: 4, height: 1, inputType: .uint8, region: region))
        XCTAssertEqual(mp.values, .uint8([40, 40, 40, 60, 60, 60, 80, 80, 80, 100, 100, 100]))
        XCTAssertEqual(mp.transform.imagePoint(fromTensorPixel: ImagePoint(x: 0, y: 0)), ImagePoint(x: 1, y: 0))
        XCTAssertEqual(mp.transform.imagePoint(fromNormalized: ImagePoint(x: 1, y: 1)), ImagePoint(x: 3, y: 1))
        // Other resamplers crop the covered pixels: same result as cropping first, transform shifted.
        let big = try ResizeConformanceTests.synthetic(width: 40, height: 30, channels: 3)
        let r = ImageRect(x: 5.5, y: 3, width: 20, height: 17.2)   // covers pixels x 5..<26, y 3..<21
        let viaRegion = try ImageToTensor.convert(big, options: ImageToTensorOptions(width: 16, height: 16, resampler: .pillowBilinear,
                                                                                    inputType: .uint8, region: r))
        let crop = try big.cropped(x: 5, y: 3, width: 21, height: 18)
        XCTAssertEqual(viaRegion.resized, try crop.resized(width: 16, height: 16, method: .pillowBilinear))
        XCTAssertEqual(viaRegion.transform.imagePoint(fromTensorPixel: ImagePoint(x: 0, y: 0)), ImagePoint(x: 5, y: 3))
        XCTAssertEqual(viaRegion.transform.imagePoint(fromTensorPixel: ImagePoint(x: 16, y: 16)), ImagePoint(x: 26, y: 21))
        XCTAssertEqual(viaRegion.transform.imageWidth, 40)
        // Letterboxed region with MediaPipe: a 2x1 region grown to 2x2 about its centre.
        let lb = try ImageToTensor.convert(try gray(4, 4, Array(0..<16).map { UInt8($0 * 10) }),
                                           options: ImageToTensorOptions(width: 2, height: 2, resizeMode: .letterbox, letterboxFill: 0,
                                                                         inputType: .uint8, region: ImageRect(x: 1, y: 1, width: 2, height: 1)))
        XCTAssertEqual(lb.transform.padding, TensorPadding(left: 0, top: 0.25, right: 0, bottom: 0.25))
        XCTAssertEqual(lb.transform.imagePoint(fromTensorPixel: ImagePoint(x: 0, y: 0)), ImagePoint(x: 1, y: 0.5))
        // Orientation: the tensor is made from the upright picture.
        let raw = try ResizeConformanceTests.synthetic(width: 12, height: 7, channels: 3)
        let o = try ImageToTensor.convert(raw, orientation: .right, options: ImageToTensorOptions(width: 7, height: 12, inputType: .uint8))
        XCTAssertEqual(o.resized, raw.applyingOrientation(.right))
        XCTAssertEqual(o.transform.imageWidth, 7)
        // Bad regions are typed errors.
        for bad in [ImageRect(x: .nan, y: 0, width: 1, height: 1), ImageRect(x: 0, y: 0, width: 0, height: 1),
                    ImageRect(x: 50, y: 0, width: 3, height: 3), ImageRect(x: -10, y: -10, width: 5, height: 5),
                    ImageRect(x: 0, y: 0, width: .infinity, height: 1)] {
            for m in Resampler.allCases {
                XCTAssertThrowsError(try ImageToTensor.convert(big, options: ImageToTensorOptions(width: 4, height: 4, resampler: m,
                                                                                                 inputType: .uint8, region: bad)), "\(bad) \(m)")
            }
        }
    }

    /// MediaPipe's letterbox removal, `(x − left) / (1 − left − right)` on normalized coordinates,
    /// agrees with the transform for both letterbox kinds.
    func testPaddingAgreesWithTransform() throws {
        for (w, h) in [(640, 480), (300, 900), (1280, 720)] {
            let img = try ImageBuffer(width: w, height: h, format: .rgb8)
            for m in [Resampler.mediaPipe, .pillowBilinear] {
                let t = try ImageToTensor.convert(img, options: ImageToTensorOptions(width: 192, height: 192, resizeMode: .letterbox, letterboxFill: 0,
                                                                                  resampler: m, inputType: .uint8)).transform
                let p = t.padding
                for (nx, ny) in [(0.3, 0.6), (0.5, 0.5), (0.9, 0.15)] {
                    let viaPadding = ImagePoint(x: (nx - Double(p.left)) / (1 - Double(p.left) - Double(p.right)) * Double(w),
                                                y: (ny - Double(p.top)) / (1 - Double(p.top) - Double(p.bottom)) * Double(h))
                    let viaTransform = t.imagePoint(fromNormalized: ImagePoint(x: nx, y: ny))
                    XCTAssertEqual(viaPadding.x, viaTransform.x, accuracy: 1e-3 * Double(w), "\(w)x\(h) \(m)")
                    XCTAssertEqual(viaPadding.y, viaTransform.y, accuracy: 1e-3 * Double(h), "\(w)x\(h) \(m)")
                }
            }
        }
    }
}
