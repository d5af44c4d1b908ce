import XCTest
@testable import DetectorPlatform

/// `PathName` against hand-written expectations: the results `NSString`'s path methods give on
/// ordinary paths, and no trap on the paths where those methods trap on Linux.
final class PathNameTests: XCTestCase {
    func testOrdinaryPaths() {
        // (path, last component, deleting it, extension, deleting the extension)
        let cases: [(String, String, String, String, String)] = [
            ("photos/cat.PNG", "cat.PNG", "photos", "PNG", "photos/cat"),
            ("x.tar.gz", "x.tar.gz", "", "gz", "x.tar"),
            ("/abs/dir/file", "file", "/abs/dir", "", "/abs/dir/file"),
            ("/file.json", "file.json", "/", "json", "/file"),
            ("runs/2024/", "2024", "runs", "", "runs/2024"),
            ("a.b///", "a.b", "", "b", "a"),
            ("dir.d/file", "file", "dir.d", "", "dir.d/file"),
            (".png", ".png", "", "", ".png"),
            ("a/.hidden", ".hidden", "a", "", "a/.hidden"),
            ("name.", "name.", "", "", "name."),
            ("a//b.mp4", "b.mp4", "a", "mp4", "a//b"),
            ("/", "/", "/", "", "/"),
            ("//", "/", "/", "", "/"),
            ("", "", "", "", ""),
            ("a/", "a", "", "", "a"),
        ]
        for (path, last, parent, ext, stem) in cases {
            XCTAssertEqual(PathName.lastComponent(path), last, "lastComponent(\(path))")
            XCTAssertEqual(PathName.deletingLastComponent(path), parent, "deletingLastComponent(\(path))")
            XCTAssertEqual(PathName.pathExtension(path), ext, "pathExtension(\(path))")
            XCTAssertEqual(PathName.deletingExtension(path), stem, "deletingExtension(\(path))")
        }
    }

    /// The paths on which swift-corelibs-foundation's `NSString` path methods trap (the second is
    /// the `cli` fuzz target's input, invalid UTF-8 decoded to U+FFFD).
    func testPathsThatTrapFoundation() {
        let weird = String(repeating: "\u{FFFD}", count: 7) + "#." + String(repeating: "/", count: 15) + "o"
            + String(repeating: "/", count: 80)
        XCTAssertEqual(PathName.lastComponent("#.///o//"), "o")
        XCTAssertEqual(PathName.deletingLastComponent("#.///o//"), "#.")
        XCTAssertEqual(PathName.pathExtension("#.///o//"), "")
        XCTAssertEqual(PathName.deletingExtension("#.///o//"), "#.///o")
        XCTAssertEqual(PathName.lastComponent(weird), "o")
        XCTAssertEqual(PathName.deletingLastComponent(weird), String(repeating: "\u{FFFD}", count: 7) + "#.")
        XCTAssertEqual(PathName.pathExtension(weird), "")
        XCTAssertEqual(PathName.deletingLastComponent("m.json/"), "")
        XCTAssertEqual(PathName.pathExtension("m.json/"), "json")
    }
}
