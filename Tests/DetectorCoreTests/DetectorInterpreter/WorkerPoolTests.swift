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

    /// The work-stealing split: every index once, inner boundaries on multiples of `align`,
    /// slots in `0..<parts`, and a slot never on two threads at once (its scratch is private).
    func testRangesCoverOnceOnAlignedBoundsWithPrivateSlots() {
        final class Slots: @unchecked Sendable {
            let lock = NSLock()
            var busy = [Bool](repeating: false, count: 16)
            var clashes = 0, badBounds = 0, badSlots = 0, movedSlots = 0
            func enter(_ slot: Int) { lock.lock(); if busy[slot] { clashes += 1 }; busy[slot] = true; lock.unlock() }
            func leave(_ slot: Int) { lock.lock(); busy[slot] = false; lock.unlock() }
        }
        for parts in [1, 2, 3, 8] {
            for align in [1, 24, 64] {
                for count in [0, 1, 23, 24, 25, 100, 1089, 5000] {
                    let tally = Tally(count), slots = Slots()
                    let caller = pthread_self()
                    for _ in 0..<5 {
                        KernelSupport.parallelRanges(count, parts: parts, align: align) { slot, range in
                            guard slot >= 0 && slot < parts else { slots.lock.lock(); slots.badSlots += 1; slots.lock.unlock(); return }
                            // Slot 0 is the calling thread's, every time (its cache keeps its part
                            // of the tensors from one op to the next); the other slots are workers'.
                            if (slot == 0) != (pthread_equal(pthread_self(), caller) != 0) {
                                slots.lock.lock(); slots.movedSlots += 1; slots.lock.unlock()
                            }
                            slots.enter(slot)
                            if (range.lowerBound % align != 0) || (range.upperBound % align != 0 && range.upperBound != count) || range.isEmpty {
                                slots.lock.lock(); slots.badBounds += 1; slots.lock.unlock()
                            }
                            for i in range { tally.hit(i) }
                            // Long enough that the other thread starts stealing.
                            var x = 0
                            for j in 0..<(range.count * 50) { x &+= j }
                            XCTAssertNotEqual(x, -1)
                            slots.leave(slot)
                        }
                    }
                    let label = "parts \(parts) align \(align) count \(count)"
                    XCTAssertEqual(tally.counts, [Int](repeating: 5, count: count), label)
                    XCTAssertEqual(slots.clashes, 0, label)
                    XCTAssertEqual(slots.badBounds, 0, label)
                    XCTAssertEqual(slots.badSlots, 0, label)
                    XCTAssertEqual(slots.movedSlots, 0, label)
                }
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
