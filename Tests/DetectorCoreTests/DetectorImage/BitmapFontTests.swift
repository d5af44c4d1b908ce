import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The built-in font reads at 1×: no two glyphs alike, and the letters that used to be confused
/// (`p`/`r`, `g`/`q`) drawn as designed.
final class BitmapFontTests: XCTestCase {
    /// A glyph as drawn: "#" set, "." clear, one string per row.
    private func rows(_ c: Character) -> [String] {
        BitmapFont.glyph(c).map { bits in String((0..<5).map { bits & (0x10 >> UInt8($0)) != 0 ? "#" : "." }) }
    }

    private func distance(_ a: Character, _ b: Character) -> Int {
        zip(BitmapFont.glyph(a), BitmapFont.glyph(b)).reduce(0) { $0 + ($1.0 ^ $1.1).nonzeroBitCount }
    }

    func testEveryTwoPrintableGlyphsDifferInAtLeastTwoPixels() {
        let printable = (32...126).map { Character(UnicodeScalar(UInt8($0))) }
        for (i, a) in printable.enumerated() {
            for b in printable[(i + 1)...] {
                XCTAssertGreaterThanOrEqual(distance(a, b), 2, "'\(a)' and '\(b)' differ in fewer than 2 pixels")
            }
        }
        // The classic lookalikes differ in at least 3 pixels.
        for pair in ["pr", "gq", "gy", "qy", "l1", "lI", "1I", "l|", "I|", "1|", "0O", "il", "!|", "co", "nr", "<(", ">)", "CO", "pb", "qd"] {
            let a = pair.first ?? " ", b = pair.last ?? " "
            XCTAssertGreaterThanOrEqual(distance(a, b), 3, "'\(a)' and '\(b)'")
        }
    }

    func testDescendersOfPAndGAndTheirLookalikes() {
        // p: a closed bowl on the x-height rows and a stem below the baseline; r: a stem with an arm.
        XCTAssertEqual(rows("p"), [".....", ".....", "####.", "#...#", "#...#", "#...#", "####.", "#....", "#...."])
        XCTAssertEqual(rows("r"), [".....", ".....", "#.###", "##...", "#....", "#....", "#....", ".....", "....."])
        // g: bowl, then a tail hooking left; q: bowl, then a straight stem.
        XCTAssertEqual(rows("g"), [".....", ".....", ".####", "#...#", "#...#", "#...#", ".####", "....#", "####."])
        XCTAssertEqual(rows("q"), [".....", ".....", ".####", "#...#", "#...#", "#...#", ".####", "....#", "....#"])
        // Letters without descenders leave the two bottom rows empty; capitals stay 7 rows high.
        for c in "abcdefhiklmnorstuvwxzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" {
            XCTAssertEqual(BitmapFont.glyph(c)[7...], [0, 0], "\(c)")
        }
        for c in "gjpqy" { XCTAssertNotEqual(BitmapFont.glyph(c)[7...], [0, 0], "\(c) descends") }
        XCTAssertEqual(BitmapFont.size(of: "person", scale: 1).height, 9)
        XCTAssertEqual(BitmapFont.size(of: "person", scale: 3).height, 27)
    }

    /// "person" at 1× as drawn on a canvas: the `p` is the designed bitmap, not an `r`.
    func testPersonDrawnAtOneX() throws {
        var canvas = ImageCanvas(try ImageBuffer(width: 35, height: 9, format: .rgb8))
        canvas.drawText("person", x: 0, y: 0, color: .white)
        let image = canvas.image
        var drawn: [String] = []
        for y in 0..<9 {
            drawn.append(String((0..<5).map { x in image.pixels[(y * 35 + x) * 3] != 0 ? "#" : "." }))
        }
        XCTAssertEqual(drawn, rows("p"))
    }
}
