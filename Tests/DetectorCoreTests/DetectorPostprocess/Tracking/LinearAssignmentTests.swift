import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class LinearAssignmentTests: XCTestCase {

    /// Minimum total cost over every way to assign min(rows, columns) pairs, by enumeration.
    func bruteForceMinimum(_ costs: [Double], rows: Int, columns: Int) -> Double {
        var best = Double.infinity
        var usedColumns = [Bool](repeating: false, count: columns)
        func visit(row: Int, assigned: Int, total: Double) {
            let need = min(rows, columns)
            if assigned == need { best = min(best, total); return }
            if row == rows { return }
            // Rows may be skipped only when there are more rows than columns.
            if rows - row - 1 >= need - assigned { visit(row: row + 1, assigned: assigned, total: total) }
            for c in 0..<columns where !usedColumns[c] {
                usedColumns[c] = true
                visit(row: row + 1, assigned: assigned + 1, total: total + costs[row * columns + c])
                usedColumns[c] = false
            }
        }
        visit(row: 0, assigned: 0, total: 0)
        return best
    }

    func testMatchesBruteForceOnRandomMatrices() throws {
        var rng = SplitMix64(seed: 42)
        for trial in 0..<600 {
            let rows = Int.random(in: 1...6, using: &rng)
            let columns = Int.random(in: 1...6, using: &rng)
            // Mix continuous costs, small integers (many ties) and negative values.
            let costs: [Double] = (0..<(rows * columns)).map { _ in
                switch trial % 3 {
                case 0: return Double.random(in: 0..<1, using: &rng)
                case 1: return Double(Int.random(in: 0...3, using: &rng))
                default: return Double.random(in: -50...50, using: &rng)
                }
            }
            let assignment = try LinearAssignment.solve(costs: costs, rows: rows, columns: columns)
            XCTAssertEqual(assignment.count, rows)
            let used = assignment.compactMap { $0 }
            XCTAssertEqual(used.count, min(rows, columns), "trial \(trial): every row of the smaller side is assigned")
            XCTAssertEqual(Set(used).count, used.count, "trial \(trial): columns are distinct")
            XCTAssertTrue(used.allSatisfy { $0 >= 0 && $0 < columns })
            let total = LinearAssignment.totalCost(of: assignment, costs: costs, columns: columns)
            XCTAssertEqual(total, bruteForceMinimum(costs, rows: rows, columns: columns), accuracy: 1e-9,
                           "trial \(trial) (\(rows)×\(columns)) is not optimal")
        }
    }

    func testKnownExample() throws {
        let costs: [Double] = [4, 1, 3,
                               2, 0, 5]
        XCTAssertEqual(try LinearAssignment.solve(costs: costs, rows: 2, columns: 3), [1, 0])
        // Transposed (3 rows, 2 columns): the row left out is nil.
        let transposed: [Double] = [4, 2,
                                    1, 0,
                                    3, 5]
        XCTAssertEqual(try LinearAssignment.solve(costs: transposed, rows: 3, columns: 2), [1, 0, nil])
    }

    func testEmptyAndMalformedInput() {
        XCTAssertEqual(try LinearAssignment.solve(costs: [], rows: 0, columns: 4), [])
        XCTAssertEqual(try LinearAssignment.solve(costs: [], rows: 3, columns: 0), [nil, nil, nil])
        XCTAssertThrowsError(try LinearAssignment.solve(costs: [1, 2, 3], rows: 2, columns: 2)) { error in
            XCTAssertEqual(error as? LinearAssignmentError, .costCountMismatch(rows: 2, columns: 2, count: 3))
        }
        XCTAssertThrowsError(try LinearAssignment.solve(costs: [1, .nan, 3, 4], rows: 2, columns: 2)) { error in
            XCTAssertEqual(error as? LinearAssignmentError, .nonFiniteCost(row: 0, column: 1))
        }
        XCTAssertThrowsError(try LinearAssignment.solve(costs: [], rows: Int.max, columns: 2))
        XCTAssertThrowsError(try LinearAssignment.solve(costs: [], rows: -1, columns: 2))
    }

    func testSameMatrixGivesSameAnswer() throws {
        let costs = [Double](repeating: 1, count: 25)   // every assignment ties
        let first = try LinearAssignment.solve(costs: costs, rows: 5, columns: 5)
        for _ in 0..<5 { XCTAssertEqual(try LinearAssignment.solve(costs: costs, rows: 5, columns: 5), first) }
    }
}
