import Foundation
import Dispatch
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The kernels' worker pool: every index runs exactly once, whatever the thread count, and
/// nested or concurrent calls neither deadlock nor mix jobs.
final class WorkerPoolTests: XCTestCase {
    /// Counts per index, written by whichever thread runs the index.
    final class Tally: @unchecked Sendable {
        var counts: [Int]
        let lock = NSLock()
        init(_ n: Int) { counts = [Int](repeating: 0, count: n) }
        func hit(_ i: Int) { lock.lock(); counts[i] += 1; lock.unlock() }
    }

    func testEveryIndexRunsOnceOverManyJobs() {
        for threads in [1, 2, 3, 8] {
            for count in [0, 1, 2, 3, 7, 64, 1000] {
                let tally = Tally(count)
                for _ in 0..<20 { KernelSupport.parallelFor(count, threads: threads) { tally.hit($0) } }
                XCTAssertEqual(tally.counts, [Int](repeating: 20, count: count), "threads \(threads) count \(count)")
            }
        }
    }

    func testChunksCoverTheRangeExactlyOnce() {
        for parts in [1, 2, 5, 16] {
            for count in [0, 1, 4, 9, 100] {
                let tally = Tally(count)
                KernelSupport.parallelChunks(count, parts: parts) { range in for i in range { tally.hit(i) } }
                XCTAssertEqual(tally.counts, [Int](repeating: 1, count: count), "parts \(parts) count \(count)")
            }
        }
    }

    func testNestedAndConcurrentCallsComplete() {
        let tally = Tally(8 * 8)
        // Nested: the inner calls run on the thread that makes them.
        KernelSupport.parallelFor(8, threads: 4) { i in
            KernelSupport.parallelFor(8, threads: 4) { j in tally.hit(i * 8 + j) }
        }
        XCTAssertEqual(tally.counts, [Int](repeating: 1, count: 64))
        // Concurrent callers: one uses the pool, the others run inline; all finish.
        let concurrent = Tally(6 * 50)
        DispatchQueue.concurrentPerform(iterations: 6) { caller in
            for round in 0..<50 {
                KernelSupport.parallelFor(3, threads: 2) { _ in }
                concurrent.hit(caller * 50 + round)
            }
        }
        XCTAssertEqual(concurrent.counts, [Int](repeating: 1, count: 300))
    }
}
