import Dispatch

enum ParallelRows {
    /// Runs `body` over `0..<rows` split into at most two contiguous chunks, in parallel when
    /// the work (`rows * workPerRow`) is large enough to pay for a thread hop.
    static func run(rows: Int, workPerRow: Int, _ body: (Range<Int>) -> Void) {
        let chunks = rows >= 2 && rows.multipliedReportingOverflow(by: workPerRow).partialValue >= 200_000 ? 2 : 1
        if chunks == 1 {
            body(0..<rows)
            return
        }
        let half = rows / 2
        // The two chunks write disjoint rows, so sharing `body` across the two threads is safe.
        withoutActuallyEscaping(body) { work in
            nonisolated(unsafe) let shared = work
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                shared(i == 0 ? 0..<half : half..<rows)
            }
        }
    }
}
