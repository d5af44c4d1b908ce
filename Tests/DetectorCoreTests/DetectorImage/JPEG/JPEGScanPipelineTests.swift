import Foundation
import XCTest
@testable import DetectorImage

/// `JPEGScanPipeline`'s contract, with recording closures in place of the IDCT and colour
/// conversion: every MCU row transformed once and in order, only after it was decoded and
/// before its buffer is reused; output rows converted once, in order, each only after the MCU
/// row below it was transformed; and a stopped pipeline runs nothing more.
final class JPEGScanPipelineTests: XCTestCase {
    /// What the closures saw, guarded by a lock (they run on two threads).
    final class Log: @unchecked Sendable {
        let lock = NSLock()
        var transformed: [Int] = []
        var converted: [Range<Int>] = []
        var decodedWhenTransformed: [Int] = []
        var transformedWhenConverted: [Int] = []
        var decoded = 0
        func with<T>(_ body: (Log) -> T) -> T { lock.lock(); defer { lock.unlock() }; return body(self) }
    }

    func run(mcuRows: Int, slots: Int, rowsPerMCURow: Int, height: Int, decodeDelay: UInt32, workDelay: UInt32) -> Log {
        let log = Log()
        let pipeline = JPEGScanPipeline(
            mcuRows: mcuRows, slots: slots, rowsPerMCURow: rowsPerMCURow, height: height,
            transform: { row in
                if workDelay > 0 { usleep(workDelay) }
                log.with { $0.transformed.append(row); $0.decodedWhenTransformed.append($0.decoded) }
            },
            convert: { rows in log.with { $0.converted.append(rows); $0.transformedWhenConverted.append($0.transformed.count) } })
        pipeline.start()
        for row in 0..<mcuRows {
            pipeline.waitForSlot(row)
            // Writing row `row` into slot `row % slots`: the row that used it last is transformed.
            let done = log.with { $0.transformed.count }
            XCTAssertGreaterThan(done, row - slots, "row \(row) reuses the buffer of an untransformed row")
            if decodeDelay > 0 { usleep(decodeDelay) }
            log.with { $0.decoded = row + 1 }
            pipeline.decoded(row + 1)
        }
        pipeline.finish(complete: true)
        return log
    }

    func testEveryRowOnceInOrderWithConversionsBehindTheIDCT() {
        // (MCU rows, slots, output rows per MCU row, image height, decoding delay, work delay in µs)
        let cases: [(Int, Int, Int, Int, UInt32, UInt32)] = [
            (1, 8, 16, 9, 0, 0), (2, 8, 8, 16, 0, 0), (41, 8, 8, 325, 0, 0), (21, 8, 16, 325, 50, 0),
            (21, 8, 16, 325, 0, 200), (17, 1, 16, 270, 0, 0), (17, 2, 16, 270, 30, 30), (64, 4, 8, 510, 0, 20),
        ]
        for (n, slots, per, height, decodeDelay, workDelay) in cases {
            let log = run(mcuRows: n, slots: slots, rowsPerMCURow: per, height: height, decodeDelay: decodeDelay, workDelay: workDelay)
            let label = "\(n) rows, \(slots) slots, delays \(decodeDelay)/\(workDelay)"
            XCTAssertEqual(log.transformed, Array(0..<n), label)
            for (k, decoded) in log.decodedWhenTransformed.enumerated() {
                XCTAssertGreaterThan(decoded, k, "\(label): row \(k) transformed before it was decoded")
            }
            // Conversions: contiguous from 0 to the height, non-empty, each within the rows the
            // transformed MCU rows complete (all of them only after the last).
            var next = 0
            for (range, transformed) in zip(log.converted, log.transformedWhenConverted) {
                XCTAssertEqual(range.lowerBound, next, label)
                XCTAssertFalse(range.isEmpty, label)
                let complete = transformed >= n ? height : (transformed - 1) * per
                XCTAssertLessThanOrEqual(range.upperBound, complete, "\(label): rows \(range) converted after \(transformed) MCU rows")
                next = range.upperBound
            }
            XCTAssertEqual(next, height, label)
        }
    }

    func testAStoppedPipelineRunsNothingMore() {
        let log = Log()
        let pipeline = JPEGScanPipeline(mcuRows: 10, slots: 4, rowsPerMCURow: 8, height: 80,
                                        transform: { row in log.with { $0.transformed.append(row) } },
                                        convert: { rows in log.with { $0.converted.append(rows) } })
        pipeline.start()
        for row in 0..<3 {
            pipeline.waitForSlot(row)
            pipeline.decoded(row + 1)
        }
        pipeline.finish(complete: false)   // the decode failed after three rows
        let after = log.with { ($0.transformed, $0.converted) }
        XCTAssertTrue(after.0.allSatisfy { $0 < 3 }, "only decoded rows are transformed: \(after.0)")
        XCTAssertEqual(after.0, Array(0..<after.0.count))
        usleep(20_000)
        XCTAssertEqual(log.with { $0.transformed }, after.0, "nothing runs after finish")
        XCTAssertEqual(log.with { $0.converted }, after.1)
    }
}
