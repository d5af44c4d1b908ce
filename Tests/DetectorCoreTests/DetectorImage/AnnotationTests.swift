import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class AnnotationTests: XCTestCase {
    private func blank(_ w: Int, _ h: Int, _ format: PixelFormat = .rgb8) throws -> ImageBuffer {
        try ImageBuffer(width: w, height: h, format: format)
    }

    /// Coordinates of pixels whose red channel is non-zero.
    private func painted(_ image: ImageBuffer) -> Set<[Int]> {
        var s = Set<[Int]>()
        let bpp = image.format.bytesPerPixel
        for y in 0..<image.height {
            for x in 0..<image.width where image.pixels[(y * image.width + x) * bpp] != 0 { s.insert([x, y]) }
        }
        return s
    }

    func testStrokeRectByHand() throws {
        var c = ImageCanvas(try blank(6, 5))
        c.strokeRect(x: 1, y: 1, width: 4, height: 3, thickness: 1, color: RGBColor(r: 9, g: 8, b: 7))
        // Outline of x 1...4, y 1...3: everything except the interior (2...3, 2).
        var expected = Set<[Int]>()
        for y in 1...3 { for x in 1...4 where !(y == 2 && (2...3).contains(x)) { expected.insert([x, y]) } }
        XCTAssertEqual(painted(c.image), expected)
        XCTAssertEqual(Array(c.image.pixels[(1 * 6 + 1) * 3..<(1 * 6 + 1) * 3 + 3]), [9, 8, 7])
        // Thickness 2 on a 4x3 box leaves nothing inside.
        var t = ImageCanvas(try blank(6, 5))
        t.strokeRect(x: 1, y: 1, width: 4, height: 3, thickness: 2, color: .white)
        XCTAssertEqual(painted(t.image).count, 12)
    }

    func testClippingNeverWritesOutside() throws {
        var c = ImageCanvas(try blank(8, 6, .rgba8))
        let before = c.image.pixels.count
        c.fillRect(x: -5, y: -5, width: 7, height: 7, color: .white)          // top-left 2x2 inside
        c.strokeRect(x: 6, y: 4, width: 100, height: 100, thickness: 3, color: .white)
        c.fillRect(x: Int.max - 1, y: 0, width: Int.max, height: 3, color: .white)
        c.fillRect(x: Int.min, y: Int.min, width: Int.max, height: Int.max, color: .white)
        c.strokeRect(x: Int.max, y: Int.max, width: Int.max, height: Int.max, thickness: Int.max, color: .white)
        c.fillCircle(centerX: Int.max, centerY: Int.min, radius: 3, color: .white)
        c.drawText("overflow", x: Int.max - 3, y: Int.max - 3, scale: 50, color: .white)
        c.drawText("clip", x: -1000, y: -2, scale: 1, color: .white)
        XCTAssertEqual(c.image.pixels.count, before)
        let p = painted(c.image)
        XCTAssertTrue(p.contains([0, 0]) && p.contains([1, 1]))
        XCTAssertFalse(p.contains([2, 2]))
        XCTAssertTrue(p.contains([7, 5]) && p.contains([6, 4]))
        // Drawn rgba8 pixels are opaque.
        XCTAssertEqual(c.image.pixels[3], 255)
        XCTAssertEqual(c.image.pixels[(3 * 8 + 3) * 4 + 3], 0)
        // Annotations with NaN / huge / inverted boxes and keypoints do not trap.
        let odd = [ImageAnnotation(rect: ImageRect(x: .nan, y: 0, width: 1, height: 1), label: "x"),
                   ImageAnnotation(rect: ImageRect(x: -1e300, y: 1e300, width: .infinity, height: 5), label: "y"),
                   ImageAnnotation(rect: ImageRect(x: 5, y: 5, width: -10, height: -10), label: "inverted",
                                   keypoints: [ImagePoint(x: .nan, y: 1), ImagePoint(x: 1e12, y: -1e12)])]
        let out = ImageAnnotator.draw(odd, on: try blank(8, 6))
        XCTAssertEqual(out.pixels.count, 8 * 6 * 3)
    }

    func testTextUsesTheFontBitmap() throws {
        var c = ImageCanvas(try blank(5, 7))
        c.drawText("A", x: 0, y: 0, color: .white)
        // 'A' as designed: .###. / #...# / #...# / ##### / #...# / #...# / #...#
        let rows = [".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"]
        var expected = Set<[Int]>()
        for (y, r) in rows.enumerated() { for (x, ch) in r.enumerated() where ch == "#" { expected.insert([x, y]) } }
        XCTAssertEqual(painted(c.image), expected)
        // Scale 2 doubles every font pixel; shifted left by 2 font pixels, the clipped part disappears.
        var s = ImageCanvas(try blank(10, 14))
        s.drawText("A", x: -4, y: 0, scale: 2, color: .white)
        var expected2 = Set<[Int]>()
        for p in expected where p[0] >= 2 {
            for dy in 0..<2 { for dx in 0..<2 { expected2.insert([(p[0] - 2) * 2 + dx, p[1] * 2 + dy]) } }
        }
        XCTAssertEqual(painted(s.image), expected2)
        XCTAssertEqual(BitmapFont.size(of: "ab", scale: 2).width, 22)
        // Every printable character has a glyph; space is empty and the others are not.
        for code in 33...126 {
            XCTAssertTrue(BitmapFont.glyph(Character(UnicodeScalar(UInt8(code)))).contains { $0 != 0 }, "\(code)")
        }
        XCTAssertEqual(BitmapFont.glyph(" "), [0, 0, 0, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(BitmapFont.glyph("é"), BitmapFont.glyph("?"))
        XCTAssertEqual(BitmapFont.glyphs.count, 95)
        XCTAssertTrue(BitmapFont.glyphs.allSatisfy { $0.count == 9 && $0.allSatisfy { $0 < 32 } })
    }

    func testAnnotatorDrawsBoxLabelAndKeypoints() throws {
        let image = try blank(100, 80)
        let a = ImageAnnotation(rect: ImageRect(x: 20, y: 30, width: 40, height: 30), label: "cat 0.9",
                                classIndex: 3, keypoints: [ImagePoint(x: 40.5, y: 45.5)])
        let out = ImageAnnotator.draw([a], on: image, style: AnnotationStyle(lineThickness: 2, textScale: 1, keypointRadius: 1))
        let color = RGBColor.forClass(3)
        func px(_ x: Int, _ y: Int) -> RGBColor {
            let o = (y * 100 + x) * 3
            return RGBColor(r: out.pixels[o], g: out.pixels[o + 1], b: out.pixels[o + 2])
        }
        XCTAssertEqual(px(20, 30), color)       // box corner
        XCTAssertEqual(px(21, 45), color)       // left edge, second line of thickness 2
        XCTAssertEqual(px(22, 45), .black)      // inside
        XCTAssertEqual(px(59, 59), color)       // bottom-right corner
        XCTAssertEqual(px(60, 60), .black)      // just outside
        XCTAssertEqual(px(40, 45), color)       // keypoint centre
        XCTAssertEqual(px(41, 45), color)       // radius 1
        XCTAssertEqual(px(42, 45), .black)
        // Label box above the box: 7 chars → 41 + 2 wide, 9 + 2 high, at y 19..<30.
        XCTAssertEqual(px(20, 19), color)
        XCTAssertEqual(px(62, 29), color)
        XCTAssertEqual(px(63, 25), .black)
        XCTAssertEqual(px(20, 18), .black)
        // Text inside the label box in the contrasting colour (first column of "c" is set in glyph rows 3-5).
        XCTAssertEqual(px(21, 20 + 3), color.contrastingText)
        XCTAssertEqual(px(21, 20 + 2), color)
        // Class colours repeat every 20 and negative indices are safe.
        XCTAssertEqual(RGBColor.forClass(23), color)
        XCTAssertEqual(RGBColor.forClass(-17), color)
        // A box at the top edge puts its label inside; gray input becomes rgb8.
        let g = ImageAnnotator.draw([ImageAnnotation(rect: ImageRect(x: 0, y: 0, width: 30, height: 20), label: "x")],
                                    on: try blank(40, 30, .gray8), style: AnnotationStyle(lineThickness: 1, textScale: 1))
        XCTAssertEqual(g.format, .rgb8)
        XCTAssertEqual(Array(g.pixels[((3 * 40) + 3) * 3..<((3 * 40) + 3) * 3 + 3]), [RGBColor.forClass(0).r, RGBColor.forClass(0).g, RGBColor.forClass(0).b])
    }

    /// Consecutive class indices get clearly different colours; a box at the bottom edge keeps its
    /// label inside the image.
    func testClassColoursAndLabelsAtTheBottomEdge() throws {
        func distance(_ a: RGBColor, _ b: RGBColor) -> Int { abs(Int(a.r) - Int(b.r)) + abs(Int(a.g) - Int(b.g)) + abs(Int(a.b) - Int(b.b)) }
        for i in 0..<40 { XCTAssertGreaterThanOrEqual(distance(.forClass(i), .forClass(i + 1)), 269, "classes \(i), \(i + 1)") }
        XCTAssertEqual(Set((0..<20).map(RGBColor.forClass)).count, 20)
        // An image too low for the label above or below the box's top edge: the label moves up.
        let out = ImageAnnotator.draw([ImageAnnotation(rect: ImageRect(x: 5, y: 5, width: 20, height: 6), label: "x", classIndex: 2)],
                                      on: try blank(40, 12), style: AnnotationStyle(lineThickness: 1, textScale: 1))
        let color = RGBColor.forClass(2)
        func px(_ x: Int, _ y: Int) -> RGBColor {
            let o = (y * 40 + x) * 3
            return RGBColor(r: out.pixels[o], g: out.pixels[o + 1], b: out.pixels[o + 2])
        }
        // "x" is 5 wide + 2 padding = 7, 9 high + 2 = 11: rows 1..<12 (the last 11 rows), columns 5..<12.
        XCTAssertEqual(px(11, 1), color)
        XCTAssertEqual(px(11, 11), color)
        XCTAssertEqual(px(11, 0), .black)
        XCTAssertEqual(px(12, 7), .black)
    }
}
