import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class PNGEncoderTests: XCTestCase {
    private func gradient(_ format: PixelFormat, width: Int = 37, height: Int = 23) throws -> ImageBuffer {
        var rng = SplitMix64(seed: 7)
        let count = width * height * format.bytesPerPixel
        // Smooth ramps plus some noise so every filter type gets chosen somewhere.
        let pixels = (0..<count).map { (k: Int) -> UInt8 in
            let smooth = UInt8(truncatingIfNeeded: k / 3 + (k % 7) * 5)
            return k % 11 == 0 ? UInt8(truncatingIfNeeded: rng.next()) : smooth
        }
        return try ImageBuffer(width: width, height: height, format: format, pixels: pixels)
    }

    func testRoundTripEveryFormat() throws {
        for format in [PixelFormat.gray8, .rgb8, .rgba8] {
            let image = try gradient(format)
            let png = try PNGEncoder.encode(image)
            let back = try PNGDecoder.decode(png)
            XCTAssertEqual(back.image, image.converted(to: .rgba8), "\(format)")
            XCTAssertEqual(back.bitDepth, 8)
            XCTAssertEqual(back.colorType, format == .gray8 ? "gray" : format == .rgb8 ? "rgb" : "rgba")
        }
        let wide = try gradient(.rgba16, width: 5, height: 4)
        XCTAssertEqual(try PNGDecoder.decode(try PNGEncoder.encode(wide), wants16Bit: true).image, wide)
        let one = try ImageBuffer(width: 1, height: 1, format: .rgb8, pixels: [9, 8, 7])
        XCTAssertEqual(try PNGDecoder.decode(try PNGEncoder.encode(one)).image.pixels, [9, 8, 7, 255])
    }

    func testFiltersMatchTheReferenceUnfilter() throws {
        let image = try gradient(.rgb8, width: 50, height: 30)
        let filtered = PNGEncoder.filtered(image)
        XCTAssertEqual(Set((0..<30).map { filtered[$0 * 151] }).count > 1, true, "more than one filter type used")
        XCTAssertEqual(PNGUnfilter.referenceUnfilter(filtered, rowBytes: 150, rows: 30, stride: 3), image.pixels)
    }

    func testRealPhotoCompressesAndRoundTrips() throws {
        let original = try PNGDecoder.decode(try GoldenFiles.bytes("images/png/chelsea.png")).image
        let rgb = original.converted(to: .rgb8)
        let png = try PNGEncoder.encode(rgb)
        XCTAssertLessThan(png.count, rgb.pixels.count * 3 / 4, "real compression, not stored blocks")
        XCTAssertEqual(try PNGDecoder.decode(png).image, original)
        // For checking files in other tools by hand: PNG_ENCODER_OUT=/tmp/dir swift test --filter PNGEncoderTests
        if let dir = ProcessInfo.processInfo.environment["PNG_ENCODER_OUT"] {
            try Data(png).write(to: URL(fileURLWithPath: dir).appendingPathComponent("chelsea_rgb8.png"))
            try Data(try PNGEncoder.encode(original)).write(to: URL(fileURLWithPath: dir).appendingPathComponent("chelsea_rgba8.png"))
            try Data(try PNGEncoder.encode(rgb.converted(to: .gray8))).write(to: URL(fileURLWithPath: dir).appendingPathComponent("chelsea_gray8.png"))
        }
    }

    func testFastRoundTripEveryFormat() throws {
        for format in [PixelFormat.gray8, .rgb8, .rgba8] {
            let image = try gradient(format)
            let back = try PNGDecoder.decode(try PNGEncoder.encode(image, compression: .fast))
            XCTAssertEqual(back.image, image.converted(to: .rgba8), "\(format)")
        }
        let wide = try gradient(.rgba16, width: 5, height: 4)
        XCTAssertEqual(try PNGDecoder.decode(try PNGEncoder.encode(wide, compression: .fast), wants16Bit: true).image, wide)
        let one = try ImageBuffer(width: 1, height: 1, format: .rgb8, pixels: [9, 8, 7])
        XCTAssertEqual(try PNGDecoder.decode(try PNGEncoder.encode(one, compression: .fast)).image.pixels, [9, 8, 7, 255])
        let flat = try ImageBuffer(width: 300, height: 200, format: .rgb8, pixels: [UInt8](repeating: 77, count: 300 * 200 * 3))
        let flatPNG = try PNGEncoder.encode(flat, compression: .fast)
        XCTAssertEqual(try PNGDecoder.decode(flatPNG).image, flat.converted(to: .rgba8))
        XCTAssertLessThan(flatPNG.count, 2_000, "a flat image is runs of zeros after the Paeth filter")
    }

    /// The fast mode's stream: zlib header 78 01, every row Paeth-filtered (type 4), and the rows
    /// unfiltered by the specification's formula give back the pixels.
    func testFastWritesPaethRowsInARunLengthStream() throws {
        let image = try gradient(.rgb8, width: 50, height: 30)
        let png = try PNGEncoder.encode(image, compression: .fast)
        var idat: [UInt8] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = Int(png[offset]) << 24 | Int(png[offset + 1]) << 16 | Int(png[offset + 2]) << 8 | Int(png[offset + 3])
            if String(decoding: png[(offset + 4)..<(offset + 8)], as: UTF8.self) == "IDAT" { idat += png[(offset + 8)..<(offset + 8 + length)] }
            offset += 12 + length
        }
        XCTAssertEqual(offset, png.count, "chunks end at the end of the file")
        XCTAssertEqual(Array(idat.prefix(2)), [0x78, 0x01])
        let rows = try Zlib.decompress(idat, maxOutputSize: 30 * 151)
        XCTAssertEqual(rows.count, 30 * 151)
        XCTAssertEqual(Set((0..<30).map { rows[$0 * 151] }), [4])
        XCTAssertEqual(PNGUnfilter.referenceUnfilter(rows, rowBytes: 150, rows: 30, stride: 3), image.pixels)
    }

    func testFastOnARealPhotoCostsLittleSize() throws {
        let rgb = try PNGDecoder.decode(try GoldenFiles.bytes("images/png/chelsea.png")).image.converted(to: .rgb8)
        let fast = try PNGEncoder.encode(rgb, compression: .fast)
        let level6 = try PNGEncoder.encode(rgb)
        XCTAssertEqual(try PNGDecoder.decode(fast).image, rgb.converted(to: .rgba8))
        XCTAssertLessThan(fast.count, rgb.pixels.count * 3 / 4, "real compression, not stored blocks")
        XCTAssertLessThan(fast.count, level6.count * 115 / 100, "at most 15 % larger than level 6 on a photo")
        if let dir = ProcessInfo.processInfo.environment["PNG_ENCODER_OUT"] {
            try Data(fast).write(to: URL(fileURLWithPath: dir).appendingPathComponent("chelsea_rgb8_fast.png"))
        }
    }

    /// The adaptive filter equals the specification's definition written out plainly: per row, the
    /// type (0…4, lowest on ties) with the smallest sum of |filtered byte as Int8|.
    func testAdaptiveFilterMatchesThePlainDefinition() throws {
        func plain(_ image: ImageBuffer) -> [UInt8] {
            let bpp = image.format.bytesPerPixel, rowBytes = image.bytesPerRow
            var out: [UInt8] = []
            for y in 0..<image.height {
                let row = Array(image.pixels[(y * rowBytes)..<((y + 1) * rowBytes)])
                let prior = y > 0 ? Array(image.pixels[((y - 1) * rowBytes)..<(y * rowBytes)]) : [UInt8](repeating: 0, count: rowBytes)
                var best: (cost: Int, type: Int, bytes: [UInt8]) = (Int.max, 0, [])
                for type in 0...4 {
                    var bytes: [UInt8] = []
                    for i in 0..<rowBytes {
                        let a = i >= bpp ? Int(row[i - bpp]) : 0, b = Int(prior[i]), c = i >= bpp ? Int(prior[i - bpp]) : 0
                        let p = a + b - c
                        let paeth = abs(p - a) <= abs(p - b) && abs(p - a) <= abs(p - c) ? a : (abs(p - b) <= abs(p - c) ? b : c)
                        let predictor = [0, a, b, (a + b) / 2, paeth][type]
                        bytes.append(UInt8(truncatingIfNeeded: Int(row[i]) - predictor))
                    }
                    let cost = bytes.reduce(0) { $0 + abs(Int(Int8(bitPattern: $1))) }
                    if cost < best.cost { best = (cost, type, bytes) }
                }
                out += [UInt8(best.type)] + best.bytes
            }
            return out
        }
        for format in [PixelFormat.gray8, .rgb8, .rgba8, .rgba16] {
            for (w, h) in [(37, 23), (1, 5), (2, 1)] {
                let image = try gradient(format, width: w, height: h)
                XCTAssertEqual(PNGEncoder.filtered(image), plain(image), "\(format) \(w)x\(h)")
            }
        }
    }

    /// The 8-bytes-a-step Paeth row equals the plain per-byte filter at every pixel size and row length.
    func testVectorPaethRowMatchesThePerByteFilter() {
        var rng = SplitMix64(seed: 11)
        for bpp in [1, 2, 3, 4, 6, 8] {
            for n in [0, 1, bpp, bpp + 7, bpp + 8, 40, 41] {
                let row = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                let prior = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                var vector = [UInt8](repeating: 0, count: n + 1), plain = [UInt8](repeating: 0, count: n + 1)
                row.withUnsafeBufferPointer { r in
                    prior.withUnsafeBufferPointer { p in
                        vector.withUnsafeMutableBufferPointer { v in
                            plain.withUnsafeMutableBufferPointer { q in
                                guard let r = r.baseAddress ?? UnsafePointer(bitPattern: 1), let p = p.baseAddress ?? UnsafePointer(bitPattern: 1),
                                      let v = v.baseAddress, let q = q.baseAddress else { return XCTFail("no buffer") }
                                PNGFilter.paethRow(r, p, v, n, bpp)
                                _ = PNGFilter.filterRow(4, r, p, q, n, bpp)
                            }
                        }
                    }
                }
                XCTAssertEqual(vector, plain, "bpp \(bpp), \(n) bytes")
            }
        }
    }

    func testUnfilterFastPathMatchesReference() {
        var rng = SplitMix64(seed: 99)
        for stride in [1, 2, 3, 4, 6, 8] {
            let rowBytes = stride * 13 + 1
            let rows = 9
            var data = [UInt8]()
            for y in 0..<rows {
                data.append(UInt8(y % 5))
                for _ in 0..<rowBytes { data.append(UInt8(truncatingIfNeeded: rng.next())) }
            }
            let expected = PNGUnfilter.referenceUnfilter(data, rowBytes: rowBytes, rows: rows, stride: stride)
            var work = data
            let zeros = [UInt8](repeating: 0, count: rowBytes)
            work.withUnsafeMutableBufferPointer { buf in
                zeros.withUnsafeBufferPointer { z in
                    for y in 0..<rows {
                        let row = buf.baseAddress! + y * (rowBytes + 1)
                        let prior = y == 0 ? z.baseAddress! : UnsafePointer(row - rowBytes)
                        XCTAssertTrue(PNGUnfilter.unfilterRow(filter: row[0], row: row + 1, prior: prior, count: rowBytes, stride: stride))
                    }
                }
            }
            var got = [UInt8]()
            for y in 0..<rows { got += work[(y * (rowBytes + 1) + 1)..<((y + 1) * (rowBytes + 1))] }
            XCTAssertEqual(got, expected, "stride \(stride)")
        }
    }
}

final class ImageConversionTests: XCTestCase {
    func testConversions() throws {
        let gray = try ImageBuffer(width: 2, height: 1, format: .gray8, pixels: [10, 200])
        XCTAssertEqual(gray.converted(to: .rgb8).pixels, [10, 10, 10, 200, 200, 200])
        XCTAssertEqual(gray.converted(to: .rgba8).pixels, [10, 10, 10, 255, 200, 200, 200, 255])
        XCTAssertEqual(gray.converted(to: .rgba16).pixels, [10, 10, 10, 10, 10, 10, 255, 255, 200, 200, 200, 200, 200, 200, 255, 255])
        let rgba = try ImageBuffer(width: 1, height: 2, format: .rgba8, pixels: [255, 0, 0, 0, 0, 0, 255, 128])
        // Alpha is dropped, not composited: a fully transparent red pixel stays red.
        XCTAssertEqual(rgba.converted(to: .rgb8).pixels, [255, 0, 0, 0, 0, 255])
        XCTAssertEqual(rgba.converted(to: .gray8).pixels, [76, 29])   // BT.601: 0.299*255, 0.114*255
        let wide = try ImageBuffer(width: 1, height: 1, format: .rgba16, pixels: [0x12, 0x34, 0xAB, 0xCD, 0xFF, 0x00, 0x80, 0x01])
        XCTAssertEqual(wide.converted(to: .rgba8).pixels, [0x12, 0xAB, 0xFF, 0x80])
        XCTAssertEqual(wide.converted(to: .rgb8).pixels, [0x12, 0xAB, 0xFF])
        XCTAssertEqual(gray.converted(to: .gray8), gray)
    }

    func testCrop() throws {
        let image = try ImageBuffer(width: 4, height: 3, format: .gray8, pixels: Array(0..<12))
        XCTAssertEqual(try image.cropped(x: 1, y: 1, width: 2, height: 2).pixels, [5, 6, 9, 10])
        XCTAssertEqual(try image.cropped(x: 0, y: 0, width: 4, height: 3), image)
        XCTAssertThrowsError(try image.cropped(x: 3, y: 0, width: 2, height: 1))
        XCTAssertThrowsError(try image.cropped(x: -1, y: 0, width: 1, height: 1))
        XCTAssertThrowsError(try image.cropped(x: 0, y: 0, width: 0, height: 1))
        XCTAssertThrowsError(try image.cropped(x: Int.max, y: 0, width: Int.max, height: 1))
        let rgb = try ImageBuffer(width: 2, height: 2, format: .rgb8, pixels: Array(0..<12))
        XCTAssertEqual(try rgb.cropped(x: 1, y: 1, width: 1, height: 1).pixels, [9, 10, 11])
    }
}
