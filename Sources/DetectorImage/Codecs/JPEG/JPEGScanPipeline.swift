import DetectorZlib
import Foundation

/// The IDCT and colour conversion of a streamed YCbCr scan on a second thread while the
/// decoding thread runs the entropy decoding of later MCU rows. The decoder writes each MCU row's
/// coefficients into one of `slots` buffers (`StreamedRows`), says it is `decoded`, and before
/// reusing a buffer waits in `waitForSlot` until that row has been transformed. A unit of work is
/// the IDCT of the next decoded MCU row (which clears its buffer) followed by the conversion of
/// the output rows that row completes; units run in order, one at a time, on whichever thread
/// holds the turn: the worker while it runs, the decoding thread when it would otherwise wait for
/// a buffer or at `finish`. So the decode never waits for a thread to get a core (on a busy
/// machine, or with the worker not yet started, the decoding thread does every unit itself).
///
/// ```swift
/// let pipeline = JPEGScanPipeline(mcuRows: n, slots: 8, rowsPerMCURow: 16, height: h,
///                                 transform: { row in /* IDCT */ }, convert: { rows in /* RGB */ })
/// pipeline.start()
/// for row in 0..<n { pipeline.waitForSlot(row); /* decode */; pipeline.decoded(row + 1) }
/// pipeline.finish(complete: true)
/// ```
final class JPEGScanPipeline: @unchecked Sendable {
    // `@unchecked Sendable`: every mutable field is guarded by `condition`; the closures run one
    // unit at a time (the `turn` flag), on memory no other unit touches while it runs.
    private let condition = NSCondition()
    /// MCU rows decoded, transformed; output rows converted.
    private var decodedRows = 0
    private var transformedRows = 0
    private var convertedRows = 0
    /// A thread is running a unit.
    private var turn = false
    private var closed = false
    private let mcuRows: Int
    private let slots: Int
    private let rowsPerMCURow: Int
    private let height: Int
    /// Set to nil by `finish` once no unit runs.
    private var transform: ((Int) -> Void)?
    private var convert: ((Range<Int>) -> Void)?

    init(mcuRows: Int, slots: Int, rowsPerMCURow: Int, height: Int,
         transform: @escaping (Int) -> Void, convert: @escaping (Range<Int>) -> Void) {
        self.mcuRows = mcuRows
        self.slots = max(1, slots)
        self.rowsPerMCURow = rowsPerMCURow
        self.height = height
        self.transform = transform
        self.convert = convert
    }

    /// Starts the worker (on Dispatch's global queue).
    func start() {
        DispatchQueue.global(qos: .userInitiated).async { self.work() }
    }

    /// Rows that wake a waiting thread: the worker waits for this many decoded rows, the
    /// decoding thread (its buffers full) for this many free ones, rather than a wake-up per
    /// MCU row. (Measured on burger.jpg and zidane.jpg: CPU time within noise of one per row;
    /// `perf` puts the synchronisation at about 5 % of the decode either way.)
    private var wakeRows: Int { max(1, slots / 4) }

    /// MCU rows `0..<rows` hold their coefficients.
    func decoded(_ rows: Int) {
        condition.lock()
        if rows > decodedRows {
            decodedRows = min(rows, mcuRows)
            if decodedRows - transformedRows >= wakeRows { condition.signal() }
        }
        condition.unlock()
    }

    /// Returns once MCU row `row`'s buffer is free: row `row - slots` is transformed (and, when
    /// that means waiting, `wakeRows` buffers are). Runs units here while the worker does not.
    func waitForSlot(_ row: Int) {
        condition.lock()
        let target = transformedRows <= row - slots ? min(row - slots + wakeRows, row - 1) : row - slots
        while transformedRows <= target && !closed {
            if turn {
                condition.wait()
            } else {
                runUnitLocked()
            }
        }
        condition.unlock()
    }

    /// Stops the worker. When `complete` (every MCU row decoded), runs the units left here
    /// (waiting while the worker finishes the one it runs); then waits until no unit runs.
    func finish(complete: Bool) {
        condition.lock()
        if complete {
            decodedRows = mcuRows
            while transformedRows < mcuRows || convertedRows < height {
                if turn { condition.wait() } else { runUnitLocked() }
            }
        }
        closed = true
        condition.broadcast()
        while turn { condition.wait() }
        transform = nil
        convert = nil
        condition.unlock()
    }

    private func work() {
        condition.lock()
        while true {
            while !closed && (turn || decodedRows - transformedRows < min(wakeRows, mcuRows - transformedRows)
                              || transformedRows >= decodedRows) { condition.wait() }
            if closed { break }
            runUnitLocked()
        }
        condition.unlock()
    }

    /// One unit (the lock held on entry and exit, released while it runs): the IDCT of the next
    /// decoded MCU row, then the conversion of the output rows complete after it (a row needs the
    /// chroma row below it: one MCU row behind, all of them after the last).
    private func runUnitLocked() {
        guard transformedRows < decodedRows || (transformedRows == mcuRows && convertedRows < height) else { return }
        turn = true
        let row = transformedRows < decodedRows ? transformedRows : nil
        let complete = row.map { $0 + 1 >= mcuRows ? height : min(height, $0 * rowsPerMCURow) } ?? height
        let rows = convertedRows..<max(convertedRows, complete)
        var transform = self.transform, convert = self.convert
        condition.unlock()
        if let row { transform?(row) }
        if !rows.isEmpty { convert?(rows) }
        transform = nil
        convert = nil
        condition.lock()
        if let row { transformedRows = row + 1 }
        convertedRows = rows.upperBound
        turn = false
        condition.broadcast()
    }
}
