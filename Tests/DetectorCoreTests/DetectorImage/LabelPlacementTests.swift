import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Label tags stay inside the image and clear of each other; positions computed by hand from the
/// rule in `LabelPlacement` (tags at scale 1 are 9 + 2 = 11 pixels high, 6·n − 1 + 2 wide).
final class LabelPlacementTests: XCTestCase {
    private typealias Tag = LabelPlacement.PlacedTag

    private func rgb(_ image: ImageBuffer, _ x: Int, _ y: Int) -> RGBColor {
        let o = (y * image.width + x) * 3
        return RGBColor(r: image.pixels[o], g: image.pixels[o + 1], b: image.pixels[o + 2])
    }

    func testPlacesAboveThenInsideThenBelowThenStacks() {
        var p = LabelPlacement(imageWidth: 100, imageHeight: 60, tagHeight: 11)
        // A box at the top edge of the image (x 10…90, y 0…15): no room above.
        XCTAssertEqual(p.place(width: 20, boxMinX: 10, boxMinY: 0, boxMaxY: 15), Tag(x: 10, y: 0, width: 20, height: 11))   // inside
        XCTAssertEqual(p.place(width: 20, boxMinX: 10, boxMinY: 0, boxMaxY: 15), Tag(x: 10, y: 15, width: 20, height: 11))  // below
        // Inside (0) and below (15) are taken; rows from 0 down: 11 overlaps 15…26, 22 too, 33 is free.
        XCTAssertEqual(p.place(width: 20, boxMinX: 10, boxMinY: 0, boxMaxY: 15), Tag(x: 10, y: 33, width: 20, height: 11))
        // A tag further right does not touch them and takes its first place.
        XCTAssertEqual(p.place(width: 20, boxMinX: 40, boxMinY: 0, boxMaxY: 15), Tag(x: 40, y: 0, width: 20, height: 11))
    }

    func testRightAndBottomEdges() {
        var p = LabelPlacement(imageWidth: 100, imageHeight: 60, tagHeight: 11)
        // 67 wide at x 80 would end at 147: moved left to 100 − 67 = 33; above the box at 20 − 11 = 9.
        XCTAssertEqual(p.place(width: 67, boxMinX: 80, boxMinY: 20, boxMaxY: 50), Tag(x: 33, y: 9, width: 67, height: 11))
        // A box hanging off the bottom-left (x −5, y 55…70): above it at 44, x clamped to 0.
        XCTAssertEqual(p.place(width: 30, boxMinX: -5, boxMinY: 55, boxMaxY: 70), Tag(x: 0, y: 44, width: 30, height: 11))
        // A box starting below the image: its first place is the lowest row inside, 60 − 11 = 49.
        XCTAssertEqual(p.place(width: 30, boxMinX: 50, boxMinY: 80, boxMaxY: 90), Tag(x: 50, y: 49, width: 30, height: 11))
        // A tag taller than the image has no place inside: top-left corner, overlaps allowed.
        var tiny = LabelPlacement(imageWidth: 10, imageHeight: 5, tagHeight: 11)
        XCTAssertEqual(tiny.place(width: 30, boxMinX: 3, boxMinY: 1, boxMaxY: 4), Tag(x: 0, y: 0, width: 30, height: 11))
        XCTAssertEqual(tiny.place(width: 30, boxMinX: 3, boxMinY: 1, boxMaxY: 4), Tag(x: 0, y: 0, width: 30, height: 11))
    }

    func testAFullImageStillPlacesEveryTagInside() {
        // 3 rows of 11 fit in 33 pixels; the 4th tag of one box overlaps (its first place, 0).
        var p = LabelPlacement(imageWidth: 50, imageHeight: 33, tagHeight: 11)
        let tops = (0..<4).map { _ in p.place(width: 40, boxMinX: 0, boxMinY: 0, boxMaxY: 33).y }
        XCTAssertEqual(tops, [0, 11, 22, 0])
        // Thousands of tags on one box end quickly, all inside the image.
        var many = LabelPlacement(imageWidth: 64, imageHeight: 64, tagHeight: 11)
        for k in 0..<5000 {
            let t = many.place(width: 7 + k % 50, boxMinX: k % 70, boxMinY: 10, boxMaxY: 40)
            XCTAssertTrue(t.x >= 0 && t.y >= 0 && t.x + t.width <= 64 && t.y + t.height <= 64, "\(t)")
        }
    }

    /// Two boxes with the same rect (the issue's `dog 0.62` under `cat 0.74`): two tags at
    /// different places, both whole; a later box's outline does not cross an earlier box's tag.
    func testSameBoxTwoLabelsBothVisible() throws {
        let image = try ImageBuffer(width: 200, height: 100, format: .rgb8)
        let rect = ImageRect(x: 50, y: 40, width: 60, height: 30)
        let dog = ImageAnnotation(rect: rect, label: "dog 0.62", classIndex: 16)
        let cat = ImageAnnotation(rect: rect, label: "cat 0.74", classIndex: 15)
        // A third box, drawn last, whose left edge (x 60) runs through both tags.
        let other = ImageAnnotation(rect: ImageRect(x: 60, y: 20, width: 100, height: 70), classIndex: 1)
        let out = ImageAnnotator.draw([dog, cat, other], on: image, style: AnnotationStyle(lineThickness: 1, textScale: 1))
        // Tags are placed last annotation first: cat above the box (rows 29..<40), dog inside its
        // top edge (rows 40..<51); both 8·6 − 1 + 2 = 49 wide from x 50.
        let catColor = RGBColor.forClass(15), dogColor = RGBColor.forClass(16)
        for (color, top) in [(catColor, 29), (dogColor, 40)] {
            for y in top..<(top + 11) {
                for x in 50..<99 {
                    let c = rgb(out, x, y)
                    XCTAssertTrue(c == color || c == color.contrastingText, "(\(x), \(y)) is \(c)")
                }
            }
            // The padding frame is the tag colour, where the other box's outline (x 60) would run.
            XCTAssertEqual(rgb(out, 60, top), color)
            XCTAssertEqual(rgb(out, 60, top + 10), color)
        }
        XCTAssertEqual(rgb(out, 60, 60), RGBColor.forClass(1), "the third box's outline below the tags")
        XCTAssertEqual(rgb(out, 50, 28), .black, "nothing above the cat tag")
    }

    func testLabelsWiderThanTheImageAreShortened() throws {
        // 38 pixels hold (38 + 1) / 6 = 6 characters: 4 and "..".
        XCTAssertEqual(ImageAnnotator.fitted("teddy bear 0.91", width: 38, scale: 1), "tedd..")
        XCTAssertEqual(ImageAnnotator.fitted("cat", width: 38, scale: 1), "cat")
        XCTAssertEqual(ImageAnnotator.fitted("teddy bear 0.91", width: 38, scale: 2), "t..")   // (19 + 1) / 6 = 3
        XCTAssertEqual(ImageAnnotator.fitted("teddy", width: 10, scale: 1), "t")                // (10 + 1) / 6 = 1
        XCTAssertEqual(ImageAnnotator.fitted("teddy", width: -4, scale: 1), "")
        // Drawn on a 40-pixel-wide image, the tag (6·6 − 1 + 2 = 37 wide) ends inside it.
        let out = ImageAnnotator.draw([ImageAnnotation(rect: ImageRect(x: 30, y: 20, width: 8, height: 8), label: "teddy bear 0.91")],
                                      on: try ImageBuffer(width: 40, height: 40, format: .rgb8), style: AnnotationStyle(lineThickness: 1, textScale: 1))
        XCTAssertEqual(rgb(out, 3, 9), RGBColor.forClass(0))    // x 3 = 40 − 37, row 9 = 20 − 11
        XCTAssertEqual(rgb(out, 39, 9), RGBColor.forClass(0))
        XCTAssertEqual(rgb(out, 2, 9), .black)
    }
}
