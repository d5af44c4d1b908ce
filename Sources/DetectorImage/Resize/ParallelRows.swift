import DetectorZlib
import DetectorPlatform
import Dispatch

enum ParallelRows {
    /// Runs `body` over `0..<rows` split into at most two contiguous chunks, in parallel when
    /// the work (`rows * workPerRow`, about one unit per multiply-add) is large enough to pay for a
    /// thread hop. The threshold is high on purpose: on a loaded 2-core machine a second thread
    /// waits for a core, and a 300 x 300 MediaPipe warp measured 1.3 ms serial against 4–7 ms split.
    static func run(rows: Int, workPerRow: Int, _ body: (Range<Int>) -> Void) {
        let chunks = rows >= 2 && rows.multipliedReportingOverflow(by: workPerRow).partialValue >= 8_000_000 ? 2 : 1
        if chunks == 1 {
            body(0..<rows)
            return
        }
        let half = rows / 2
        forEach(2) { i in body(i == 0 ? 0..<half : half..<rows) }
    }

    /// Runs `body(i)` for every `i` in `0..<iterations`, on Dispatch's threads when more than
    /// one: the image layer's one parallel-for (resizing, JPEG bands). Each `i` must write
    /// memory no other writes, so sharing `body` across the threads is safe.
    static func forEach(_ iterations: Int, _ body: (Int) -> Void) {
        if iterations <= 1 {
            for i in 0..<iterations { body(i) }
            return
        }
        withoutActuallyEscaping(body) { work in
            nonisolated(unsafe) let shared = work
            DispatchQueue.concurrentPerform(iterations: iterations) { shared($0) }
        }
    }
}
