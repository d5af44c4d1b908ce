import XCTest

/// A test that cannot find what it needs skips on a developer's machine and fails in CI: the
/// error thrown in CI must not be an `XCTSkip` (which XCTest reports as a skip even after a failure).
final class MissingInputTests: XCTestCase {
    func testAMissingInputSkipsOutsideCIAndFailsInCI() {
        XCTAssertTrue(SharedData.missing("objdetect not built", ci: false) is XCTSkip)
        let inCI = SharedData.missing("objdetect not built", ci: true)
        XCTAssertFalse(inCI is XCTSkip)
        XCTAssertEqual(String(describing: inCI), "CI=true, but objdetect not built")
    }
}
