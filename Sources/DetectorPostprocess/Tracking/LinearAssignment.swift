import DetectorModelFile
import DetectorImage
/// Why a linear assignment problem could not be solved.
package enum LinearAssignmentError: Error, Equatable, CustomStringConvertible {
    /// The cost array does not hold `rows × columns` entries (or that product overflows).
    case costCountMismatch(rows: Int, columns: Int, count: Int)
    /// A cost is NaN or infinite; the entry's row and column are given.
    case nonFiniteCost(row: Int, column: Int)

    package var description: String {
        switch self {
        case let .costCountMismatch(rows, columns, count):
            return "Linear assignment needs \(rows) × \(columns) costs but got \(count) values."
        case let .nonFiniteCost(row, column):
            return "Linear assignment cost at row \(row), column \(column) is not a finite number."
        }
    }
}

/// Optimal rectangular linear assignment (the "Hungarian" problem), solved by successive
/// shortest augmenting paths with row and column potentials (the Jonker–Volgenant family,
/// O(n² m) for n = min(rows, columns), m = max(rows, columns)).
///
/// Every row of the smaller side is assigned to a distinct element of the larger side so that
/// the total cost is minimal. Ties are broken deterministically (lowest column index first),
/// so the same matrix always gives the same answer.
///
/// ```swift
/// let costs: [Double] = [4, 1, 3,
///                        2, 0, 5]
/// let assignment = try LinearAssignment.solve(costs: costs, rows: 2, columns: 3)
/// // assignment == [1, 0]: row 0 → column 1, row 1 → column 0 (total 3)
/// ```
package enum LinearAssignment {
    /// Solves a minimum-cost assignment.
    ///
    /// - Parameters:
    ///   - costs: `rows × columns` finite costs, row-major.
    ///   - rows: number of rows (≥ 0).
    ///   - columns: number of columns (≥ 0).
    /// - Returns: for each row, the column assigned to it, or `nil` when there are more rows
    ///   than columns and this row was left out.
    package static func solve(costs: [Double], rows: Int, columns: Int) throws -> [Int?] {
        guard rows >= 0, columns >= 0 else {
            throw LinearAssignmentError.costCountMismatch(rows: rows, columns: columns, count: costs.count)
        }
        let (product, overflow) = rows.multipliedReportingOverflow(by: columns)
        guard !overflow, product == costs.count else {
            throw LinearAssignmentError.costCountMismatch(rows: rows, columns: columns, count: costs.count)
        }
        for (index, cost) in costs.enumerated() where !cost.isFinite {
            throw LinearAssignmentError.nonFiniteCost(row: index / columns, column: index % columns)
        }
        if rows == 0 || columns == 0 { return Array(repeating: nil, count: rows) }
        if rows <= columns {
            let columnOfRow = solveWide(costs, rows: rows, columns: columns) { costs, r, c in costs[r * columns + c] }
            return columnOfRow.map { Optional($0) }
        }
        // More rows than columns: solve the transposed problem and invert it.
        let rowOfColumn = solveWide(costs, rows: columns, columns: rows) { costs, r, c in costs[c * columns + r] }
        var result = [Int?](repeating: nil, count: rows)
        for (column, row) in rowOfColumn.enumerated() { result[row] = column }
        return result
    }

    /// Total cost of an assignment returned by `solve` (unassigned rows add nothing).
    package static func totalCost(of assignment: [Int?], costs: [Double], columns: Int) -> Double {
        var total = 0.0
        for (row, column) in assignment.enumerated() {
            if let column { total += costs[row * columns + column] }
        }
        return total
    }

    /// Core solver for `rows <= columns`; returns the column of every row.
    /// Internally 1-based: index 0 is the virtual start row/column of each augmenting search.
    private static func solveWide(
        _ costs: [Double], rows n: Int, columns m: Int,
        cost: ([Double], Int, Int) -> Double
    ) -> [Int] {
        var rowPotential = [Double](repeating: 0, count: n + 1)
        var columnPotential = [Double](repeating: 0, count: m + 1)
        var rowOfColumn = [Int](repeating: 0, count: m + 1)   // 0 = free
        var previousColumn = [Int](repeating: 0, count: m + 1)
        var minSlack = [Double](repeating: 0, count: m + 1)
        var visited = [Bool](repeating: false, count: m + 1)

        for row in 1...n {
            rowOfColumn[0] = row
            var column0 = 0
            for j in 0...m { minSlack[j] = .infinity; visited[j] = false }
            // Grow a shortest-path tree from `row` until it reaches a free column.
            repeat {
                visited[column0] = true
                let row0 = rowOfColumn[column0]
                var delta = Double.infinity
                var column1 = 0
                for j in 1...m where !visited[j] {
                    let reduced = cost(costs, row0 - 1, j - 1) - rowPotential[row0] - columnPotential[j]
                    if reduced < minSlack[j] {
                        minSlack[j] = reduced
                        previousColumn[j] = column0
                    }
                    if minSlack[j] < delta {
                        delta = minSlack[j]
                        column1 = j
                    }
                }
                for j in 0...m {
                    if visited[j] {
                        rowPotential[rowOfColumn[j]] += delta
                        columnPotential[j] -= delta
                    } else {
                        minSlack[j] -= delta
                    }
                }
                column0 = column1
            } while rowOfColumn[column0] != 0
            // Flip the augmenting path back to the start.
            repeat {
                let column1 = previousColumn[column0]
                rowOfColumn[column0] = rowOfColumn[column1]
                column0 = column1
            } while column0 != 0
        }
        var columnOfRow = [Int](repeating: 0, count: n)
        for j in 1...m where rowOfColumn[j] != 0 { columnOfRow[rowOfColumn[j] - 1] = j - 1 }
        return columnOfRow
    }
}
