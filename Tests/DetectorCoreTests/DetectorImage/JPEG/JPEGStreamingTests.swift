import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorImage

/// The streamed decode of sequential files (IDCT per MCU row, no whole-image coefficient planes;
/// rows converted on a second core while later rows decode) against the whole-plane path it
/// replaced, which the conformance goldens pin to Pillow's pixels; and the fallback for a
/// sequential file with a scan after its all-component first scan.
final class JPEGStreamingTests: XCTestCase {
    /// Decodes through the whole-plane path: coefficient planes for every component, then the
    /// assembler's IDCT and conversion bands.
    private func decodeWithoutStreaming(_ bytes: [UInt8]) throws -> ImageBuffer {
        try bytes.withUnsafeBufferPointer { buffer in
            let parser = JPEGStreamParser(data: buffer.baseAddress!, count: buffer.count,
                                          maxPixels: ImageLimits.defaultMaxPixels, allowsStreaming: false)
            try parser.run()
            XCTAssertTrue(parser.streamedSamples.isEmpty)
            return try JPEGPixelAssembler.assemble(parser).0
        }
    }

    func testStreamedDecodeMatchesWholePlaneDecode() throws {
        // 4:2:0 at 1280x720 (converted on a second core when there is one), 4:4:4, gray,
        // restart intervals, a small 4:2:0 image below the pipeline's size.
        for name in ["images/zidane.jpg", "images/cats_and_dogs_rotation180.jpg", "images/burger.jpg",
                     "jpeg/baseline_444.jpg", "jpeg/restart_every_mcu_row_420.jpg", "jpeg/restart_every_5_blocks_gray.jpg",
                     "jpeg/baseline_422_h2v1.jpg", "jpeg/cmyk_adobe_inverted.jpg"] {
            let bytes = [UInt8](try Data(contentsOf: try SharedData.url(name)))
            let streamed = try JPEGDecoder.decode(bytes).image
            let whole = try decodeWithoutStreaming(bytes)
            XCTAssertEqual(streamed.width, whole.width, name)
            XCTAssertEqual(streamed.height, whole.height, name)
            XCTAssertTrue(streamed.pixels == whole.pixels, "\(name): streamed pixels differ from the whole-plane decode")
        }
    }

    /// A baseline file whose scan is repeated before EOI: the second scan cannot refine
    /// streamed coefficients, so the file decodes again without streaming, as before.
    func testScanAfterStreamedScanFallsBackToWholePlanes() throws {
        let bytes = [UInt8](try Data(contentsOf: try SharedData.url("jpeg/baseline_420_h2v2.jpg")))
        var sos: Int?
        for i in 0..<(bytes.count - 1) where bytes[i] == 0xFF && bytes[i + 1] == 0xDA { sos = i; break }
        let start = try XCTUnwrap(sos)
        XCTAssertEqual(Array(bytes.suffix(2)), [0xFF, 0xD9])
        // SOS segment + entropy data, then again (a second scan of all components), then EOI.
        let scan = Array(bytes[start..<(bytes.count - 2)])
        let doubled = Array(bytes[..<start]) + scan + scan + [0xFF, 0xD9]
        let decoded = try JPEGDecoder.decode(doubled).image
        let expected = try decodeWithoutStreaming(doubled)
        XCTAssertTrue(decoded.pixels == expected.pixels)
        XCTAssertEqual(decoded.width, expected.width)
    }
}
