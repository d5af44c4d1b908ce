import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class ImageBufferTests: XCTestCase {
    func testSizeIsChecked() throws {
        XCTAssertThrowsError(try ImageBuffer(width: 0, height: 3, format: .rgb8))
        XCTAssertThrowsError(try ImageBuffer(width: 2, height: 2, format: .rgb8, pixels: [0, 1, 2]))
        XCTAssertThrowsError(try ImageBuffer(width: Int.max, height: 2, format: .rgba8))
        XCTAssertThrowsError(try ImageBuffer(width: 20_000, height: 20_000, format: .gray8))
        let image = try ImageBuffer(width: 2, height: 3, format: .rgba16)
        XCTAssertEqual(image.pixels.count, 48)
        XCTAssertEqual(image.bytesPerRow, 16)
    }

    func testOrientationNames() {
        XCTAssertEqual(ImageOrientation(exif: 6), .right)
        XCTAssertEqual(ImageOrientation(name: "leftMirrored"), .leftMirrored)
        XCTAssertEqual(ImageOrientation(name: "8"), .left)
        XCTAssertNil(ImageOrientation(name: "9"))
        XCTAssertEqual(ImageOrientation.allCases.map(\.exifValue), Array(1...8))
    }
}
