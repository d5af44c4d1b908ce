import XCTest
@testable import DetectorInterpreter

/// `PrefaultedArray.zeros`: the same arrays as `Array(repeating: 0, count:)` below, at and above
/// the size from which its pages are mapped up front, for element widths 1, 2 and 4, and whole
/// arrays that can be written afterwards.
final class PrefaultedArrayTests: XCTestCase {
    func testZerosAtEverySize() {
        let threshold = PrefaultedArray.threshold
        for count in [0, 1, 4095, 4096, threshold - 1, threshold, threshold + 4097, 3 * threshold + 5] {
            let bytes: [UInt8] = PrefaultedArray.zeros(count: count)
            XCTAssertEqual(bytes.count, count)
            XCTAssertTrue(bytes.allSatisfy { $0 == 0 }, "UInt8 × \(count)")
            var halves: [Int16] = PrefaultedArray.zeros(count: count)
            XCTAssertEqual(halves.count, count)
            XCTAssertTrue(halves.allSatisfy { $0 == 0 }, "Int16 × \(count)")
            let words: [Int32] = PrefaultedArray.zeros(count: count)
            XCTAssertEqual(words, [Int32](repeating: 0, count: count))
            if count > 0 {
                halves[count - 1] = -7
                halves[0] = 9
                XCTAssertEqual(halves.reduce(0) { $0 + Int($1) }, count == 1 ? 9 : 2)
            }
        }
    }
}
