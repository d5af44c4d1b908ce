import XCTest
@testable import DetectorCore
@testable import objdetect
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class MOTFormatTests: XCTestCase {
    func testParseDetectionsAndGroupByFrame() throws {
        let text = """
        1,-1,281.931,187.466,79.93,209.537,0.997784,-1,-1,-1
        3,-1,10,20,30,40,0.5,-1,-1,-1

        # comment
        3 7 1 2 3 4
        """
        let rows = try MOTFormat.parse(text)
        XCTAssertEqual(rows.count, 3)
        XCTAssertEqual(rows[0], MOTRow(frame: 1, id: -1, box: TrackBox(x: 281.931, y: 187.466, width: 79.93, height: 209.537), score: 0.997784))
        XCTAssertEqual(rows[2].id, 7)
        XCTAssertEqual(rows[2].score, 1, "no score column means 1")
        let frames = MOTFormat.groupByFrame(rows)
        XCTAssertEqual(frames.map(\.count), [1, 0, 2])
    }

    func testWindowsLineEndings() throws {
        let rows = try MOTFormat.parse("1,1,399,182,121,229,1,-1,-1,-1\r\n1,2,282,201,92,184,1,-1,-1,-1\r\nbad\r\n".replacingOccurrences(of: "bad\r\n", with: ""))
        XCTAssertEqual(rows.map(\.id), [1, 2])
        XCTAssertThrowsError(try MOTFormat.parse("1,1,0,0,1,1\r\n2,x\r\n")) { error in
            guard case .malformedLine(line: 2, _)? = error as? MOTFormatError else { return XCTFail("\(error)") }
        }
    }

    func testMalformedLinesAreTypedErrors() {
        XCTAssertThrowsError(try MOTFormat.parse("1,-1,2,3\n")) { error in
            XCTAssertEqual(error as? MOTFormatError, .malformedLine(line: 1, reason: "needs at least 6 fields (frame,id,x,y,w,h), found 4"))
        }
        XCTAssertThrowsError(try MOTFormat.parse("1,-1,0,0,1,1\nx,-1,0,0,1,1\n")) { error in
            guard case .malformedLine(line: 2, _)? = error as? MOTFormatError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try MOTFormat.parse("1,-1,nan,0,1,1")) { error in
            guard case .malformedLine(line: 1, _)? = error as? MOTFormatError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try MOTFormat.parse("0,-1,0,0,1,1")) { error in
            XCTAssertEqual(error as? MOTFormatError, .frameOutOfRange(line: 1, frame: 0))
        }
        XCTAssertThrowsError(try MOTFormat.parse("99999999999,-1,0,0,1,1"))
        XCTAssertThrowsError(try MOTFormat.parse("1,99999999999999999999999,0,0,1,1"))
    }

    func testResultLineRoundTrips() throws {
        let box = TrackBox(x: 281.931, y: 187.5, width: 80, height: 209.537)
        let line = MOTFormat.resultLine(frame: 12, trackID: 3, box: box, score: 0.75)
        XCTAssertEqual(line, "12,3,281.931,187.5,80,209.537,0.75,-1,-1,-1")
        XCTAssertEqual(try MOTFormat.parse(line), [MOTRow(frame: 12, id: 3, box: box, score: 0.75)])
    }

    func testResultLinesOfAFrame() {
        let objects = [
            TrackedObject(trackID: 7, box: TrackBox(x: 1, y: 2, width: 3, height: 4), detectionBox: TrackBox(x: 0, y: 2, width: 3, height: 4), score: 0.5, classIndex: nil, detectionIndex: 0, hits: 3),
            TrackedObject(trackID: 2, box: TrackBox(x: 5, y: 6, width: 7, height: 8), detectionBox: TrackBox(x: 5, y: 6, width: 7, height: 9), score: 1, classIndex: 4, detectionIndex: 1, hits: 9),
        ]
        XCTAssertEqual(MOTFormat.resultLines(frame: 3, objects: objects), "3,2,5,6,7,8,1,-1,-1,-1\n3,7,1,2,3,4,0.5,-1,-1,-1\n")
        XCTAssertEqual(MOTFormat.resultLines(frame: 3, objects: []), "")
    }

    func testNaturalSort() {
        let names = ["frame10.png", "frame2.png", "frame1.png", "Frame3.png", "frame002.png", "frame02.png", "a", "frame"]
        XCTAssertEqual(NaturalSort.sorted(names),
                       ["Frame3.png", "a", "frame", "frame1.png", "frame002.png", "frame02.png", "frame2.png", "frame10.png"])
        XCTAssertTrue(NaturalSort.areInIncreasingOrder("img_9_b", "img_10_a"))
        XCTAssertTrue(NaturalSort.areInIncreasingOrder("x99999999999999999999999", "x100000000000000000000000"))
        XCTAssertFalse(NaturalSort.areInIncreasingOrder("same", "same"))
    }

    func testFrameRateFromSeqinfo() {
        XCTAssertEqual(MOTFormat.frameRate(seqinfo: "[Sequence]\r\nname=KITTI-17\r\nframeRate = 10\r\nseqLength=145\r\n"), 10)
        XCTAssertEqual(MOTFormat.frameRate(seqinfo: "[Sequence]\nframerate=14.5\n"), 14.5)
        XCTAssertNil(MOTFormat.frameRate(seqinfo: "[Sequence]\nseqLength=145\n"))
        XCTAssertNil(MOTFormat.frameRate(seqinfo: "frameRate=0\n"))
        XCTAssertNil(MOTFormat.frameRate(seqinfo: "frameRate=nan\n"))
        XCTAssertNil(MOTFormat.frameRate(seqinfo: "frameRate=1e300\n"))
    }
}
