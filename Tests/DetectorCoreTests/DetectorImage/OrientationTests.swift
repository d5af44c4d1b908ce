import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class OrientationTests: XCTestCase {
    /// 3 x 2 gray image
    ///     1 2 3
    ///     4 5 6
    private func sample() throws -> ImageBuffer {
        try ImageBuffer(width: 3, height: 2, format: .gray8, pixels: [1, 2, 3, 4, 5, 6])
    }

    func testEachOrientationByHand() throws {
        let raw = try sample()
        // Expected upright pictures, written out by hand from the EXIF definitions.
        let expected: [ImageOrientation: (Int, Int, [UInt8])] = [
            .up: (3, 2, [1, 2, 3, 4, 5, 6]),
            .upMirrored: (3, 2, [3, 2, 1, 6, 5, 4]),
            .down: (3, 2, [6, 5, 4, 3, 2, 1]),
            .downMirrored: (3, 2, [4, 5, 6, 1, 2, 3]),
            .leftMirrored: (2, 3, [1, 4, 2, 5, 3, 6]),
            .right: (2, 3, [4, 1, 5, 2, 6, 3]),
            .rightMirrored: (2, 3, [6, 3, 5, 2, 4, 1]),
            .left: (2, 3, [3, 6, 2, 5, 1, 4]),
        ]
        for o in ImageOrientation.allCases {
            let up = raw.applyingOrientation(o)
            let (w, h, px) = try XCTUnwrap(expected[o])
            XCTAssertEqual(up.width, w, "\(o)")
            XCTAssertEqual(up.height, h, "\(o)")
            XCTAssertEqual(up.pixels, px, "\(o)")
        }
    }

    func testMultiByteFormatsMoveWholePixels() throws {
        // 2 x 1 RGB: red, green. Rotated clockwise: 1 x 2, green on top (EXIF 6 moves the
        // stored left column to the top row, read from the bottom of the stored image).
        let rgb = try ImageBuffer(width: 2, height: 1, format: .rgb8, pixels: [255, 0, 0, 0, 255, 0])
        let r = rgb.applyingOrientation(.right)
        XCTAssertEqual([r.width, r.height], [1, 2])
        XCTAssertEqual(r.pixels, [255, 0, 0, 0, 255, 0])
        let l = rgb.applyingOrientation(.left)
        XCTAssertEqual(l.pixels, [0, 255, 0, 255, 0, 0])
        let rgba = try ImageBuffer(width: 2, height: 1, format: .rgba8, pixels: [1, 2, 3, 4, 5, 6, 7, 8])
        XCTAssertEqual(rgba.applyingOrientation(.upMirrored).pixels, [5, 6, 7, 8, 1, 2, 3, 4])
        let rgba16 = try ImageBuffer(width: 2, height: 1, format: .rgba16, pixels: Array(1...16))
        XCTAssertEqual(rgba16.applyingOrientation(.down).pixels, Array(9...16) + Array(1...8))
    }

    func testGroupLaws() {
        let all = ImageOrientation.allCases
        for a in all {
            XCTAssertEqual(a.then(.up), a)
            XCTAssertEqual(ImageOrientation.up.then(a), a)
            XCTAssertEqual(a.then(a.inverse), .up, "\(a)")
            XCTAssertEqual(a.inverse.then(a), .up, "\(a)")
            for b in all {
                for c in all {
                    XCTAssertEqual(a.then(b).then(c), a.then(b.then(c)))
                }
            }
            // Each row of the composition table is a permutation (closure + cancellation).
            XCTAssertEqual(Set(all.map { a.then($0) }).count, 8)
        }
        // Known products.
        XCTAssertEqual(ImageOrientation.right.then(.right), .down)
        XCTAssertEqual(ImageOrientation.right.then(.down), .left)
        XCTAssertEqual(ImageOrientation.right.inverse, .left)
        XCTAssertEqual(ImageOrientation.rightMirrored.inverse, .rightMirrored)
        XCTAssertEqual(ImageOrientation.upMirrored.then(.down), .downMirrored)
        // Non-commutative: a mirror and a quarter turn.
        XCTAssertNotEqual(ImageOrientation.upMirrored.then(.right), ImageOrientation.right.then(.upMirrored))
        XCTAssertEqual(all.filter(\.isMirrored).count, 4)
        XCTAssertEqual(all.filter(\.swapsAxes).map(\.exifValue), [5, 6, 7, 8])
    }

    func testRenderingFollowsComposition() throws {
        let pixels = (0..<20).map { UInt8($0) }
        let raw = try ImageBuffer(width: 5, height: 4, format: .gray8, pixels: pixels)
        for a in ImageOrientation.allCases {
            for b in ImageOrientation.allCases {
                XCTAssertEqual(raw.applyingOrientation(a).applyingOrientation(b),
                               raw.applyingOrientation(a.then(b)), "\(a) then \(b)")
            }
            XCTAssertEqual(raw.applyingOrientation(a).applyingOrientation(a.inverse), raw)
        }
    }

    func testPixelAndBoxMappingAgreeWithRendering() throws {
        let w = 7, h = 4
        let pixels = (0..<(w * h)).map { UInt8($0) }
        let raw = try ImageBuffer(width: w, height: h, format: .gray8, pixels: pixels)
        for o in ImageOrientation.allCases {
            let upright = raw.applyingOrientation(o)
            let map = OrientationMapping(rawWidth: w, rawHeight: h, orientation: o)
            XCTAssertEqual(map.uprightSize, ImageSize(width: upright.width, height: upright.height))
            for y in 0..<h {
                for x in 0..<w {
                    let u = map.uprightPixel(fromRawX: x, y: y)
                    XCTAssertEqual(upright.pixels[u.y * upright.width + u.x], raw.pixels[y * w + x])
                    let back = map.rawPixel(fromUprightX: u.x, y: u.y)
                    XCTAssertEqual(back.x, x); XCTAssertEqual(back.y, y)
                    // Pixel centres map to pixel centres.
                    let c = map.uprightPoint(fromRaw: ImagePoint(x: Double(x) + 0.5, y: Double(y) + 0.5))
                    XCTAssertEqual(c, ImagePoint(x: Double(u.x) + 0.5, y: Double(u.y) + 0.5))
                }
            }
            // A box around raw pixels x 1..<4, y 1..<3: its upright box covers exactly the
            // upright positions of those pixels.
            let box = ImageRect(x: 1, y: 1, width: 3, height: 2)
            let ubox = map.uprightRect(fromRaw: box)
            var inside = Set<Int>()
            for y in 0..<upright.height {
                for x in 0..<upright.width {
                    let cx = Double(x) + 0.5, cy = Double(y) + 0.5
                    if cx > ubox.minX, cx < ubox.maxX, cy > ubox.minY, cy < ubox.maxY {
                        inside.insert(Int(upright.pixels[y * upright.width + x]))
                    }
                }
            }
            var expected = Set<Int>()
            for y in 1..<3 { for x in 1..<4 { expected.insert(Int(raw.pixels[y * w + x])) } }
            XCTAssertEqual(inside, expected, "\(o)")
            XCTAssertEqual(map.rawRect(fromUpright: ubox), box, "\(o)")
            let p = ImagePoint(x: 2.25, y: 3.5)
            XCTAssertEqual(map.rawPoint(fromUpright: map.uprightPoint(fromRaw: p)), p)
        }
    }

    func testRightRotationPointByHand() {
        // 640 x 480 raw, EXIF 6: upright is 480 x 640; the raw top-left corner goes to the top-right.
        let map = OrientationMapping(rawWidth: 640, rawHeight: 480, orientation: .right)
        XCTAssertEqual(map.uprightPoint(fromRaw: ImagePoint(x: 0, y: 0)), ImagePoint(x: 480, y: 0))
        XCTAssertEqual(map.uprightPoint(fromRaw: ImagePoint(x: 640, y: 0)), ImagePoint(x: 480, y: 640))
        XCTAssertEqual(map.uprightRect(fromRaw: ImageRect(x: 10, y: 20, width: 30, height: 40)),
                       ImageRect(x: 420, y: 10, width: 40, height: 30))
    }

    func testCameraMapping() {
        let table: [(DeviceOrientation, ImageOrientation, ImageOrientation)] = [
            (.portrait, .right, .leftMirrored),
            (.landscapeLeft, .up, .downMirrored),
            (.portraitUpsideDown, .left, .rightMirrored),
            (.landscapeRight, .down, .upMirrored),
            (.faceUp, .up, .up),
            (.faceDown, .up, .up),
            (.unknown, .up, .up),
        ]
        for (device, back, front) in table {
            XCTAssertEqual(ImageOrientation(device: device, camera: .back), back, "\(device)")
            XCTAssertEqual(ImageOrientation(device: device, camera: .front), front, "\(device)")
        }
    }
}
