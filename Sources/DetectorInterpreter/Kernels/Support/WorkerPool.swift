import DetectorModelFile
import DetectorPlatform
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The persistent worker threads behind `KernelSupport.parallelFor` / `parallelChunks`.
///
/// A kernel's parts used to go through `DispatchQueue.concurrentPerform`, about 26 µs per
/// parallel op here — more than many small ops take on one thread. The pool keeps its
/// workers spinning briefly after each job (the next op usually follows within
/// microseconds), then sleeping on a condition variable. A job is published as one atomic
/// word, `generation << 32 | next index`; a thread claims index `i` of the job by a
/// compare-and-swap on that word, so a late worker can never run an index of a job other
/// than the one it saw published. The calling thread works on the job too, then waits until
/// every index is done. Work is split by the kernels (by output rows/tiles), so results do
/// not depend on which thread ran what.
///
/// Calls from a worker (nested parallelism) and calls while another thread's job runs are
/// executed on the calling thread, in order.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class WorkerPool: @unchecked Sendable {
    static let shared = WorkerPool()

    /// `generation << 32 | next unclaimed index` of the current job.
    private let state = Atomic<Int>(0)
    /// Index count of the current job.
    private let count = Atomic<Int>(0)
    /// Indices of the current job finished.
    private let done = Atomic<Int>(0)
    /// The current job's body (`UnsafeRawPointer` bits of a `Job`).
    private let job = Atomic<Int>(0)
    /// Workers blocked on `wake`.
    private let sleepers = Atomic<Int>(0)
    /// One job at a time; a second caller runs its work inline.
    private let busy = Atomic<Bool>(false)
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let wake: UnsafeMutablePointer<pthread_cond_t>
    private let workersLock = Mutex<Int>(0)
    /// Workers started so far (`workersLock`'s count, readable without the lock): every
    /// parallel pass asks for its workers, and once they run it need not take the lock.
    private let started = Atomic<Int>(0)

    /// Spins of a worker between jobs before it sleeps (about 0.5–1 ms: the gaps between the
    /// parallel ops of one invoke are shorter, so workers stay awake through an invoke).
    private static let spinsBeforeSleep = 1_000_000

    /// Set (non-nil) on the pool's own threads.
    private static let workerKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    #if !canImport(Darwin)
    /// Names the calling thread (15 bytes at most): glibc's `pthread_setname_np`, which its
    /// Swift module does not export, looked up once; nothing if it is missing.
    private static func setThreadName(_ name: String) {
        typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np") else { return }
        _ = name.withCString { unsafeBitCast(symbol, to: SetName.self)(pthread_self(), $0) }
    }
    #endif

    /// What a new worker thread receives.
    private final class WorkerStart {
        let pool: WorkerPool
        let name: String
        let number: Int
        init(pool: WorkerPool, name: String, number: Int) { self.pool = pool; self.name = name; self.number = number }
    }

    private struct Job {
        let body: (Int) -> Void
    }

    private init() {
        mutex = .allocate(capacity: 1)
        wake = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(wake, nil)
    }

    /// Runs `body(i)` for every `i` in `0..<count`, on up to `threads` threads (this one included).
    func run(_ count: Int, threads: Int, _ body: (Int) -> Void) {
        let onWorker = pthread_getspecific(Self.workerKey) != nil
        guard count > 1, threads > 1, count < 1 << 31, !onWorker,
              busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            for i in 0..<count { body(i) }
            return
        }
        defer { busy.store(false, ordering: .releasing) }
        startWorkers(min(threads, count) - 1)
        withoutActuallyEscaping(body) { body in
            var job = Job(body: body)
            withUnsafePointer(to: &job) { pointer in
                self.job.store(Int(bitPattern: UInt(bitPattern: pointer)), ordering: .relaxed)
                self.count.store(count, ordering: .relaxed)
                done.store(0, ordering: .relaxed)
                let generation = ((state.load(ordering: .relaxed) >> 32) &+ 1) & 0x7FFF_FFFF
                state.store(generation << 32, ordering: .sequentiallyConsistent)
                if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
                    pthread_mutex_lock(mutex)
                    pthread_cond_broadcast(wake)
                    pthread_mutex_unlock(mutex)
                }
                work(generation: generation)
                var waited = 0
                while done.load(ordering: .acquiring) < count { spinPause(&waited) }
                // Close the job before the next one writes `job` and `count`: a worker still
                // holding this generation's last word (`generation | count`) would otherwise read
                // the next job's larger count and claim an index of it under this generation
                // (found by ThreadSanitizer). No count reaches 0xFFFF_FFFF, so nothing is claimable.
                state.store(generation << 32 | 0xFFFF_FFFF, ordering: .sequentiallyConsistent)
            }
        }
    }

    /// Runs `body(slot, range)` over `0..<count` split into `grains` contiguous ranges (their
    /// inner boundaries multiples of `align`), on up to `parts` threads. Slot `k` starts with the
    /// `k`-th share of the grains and runs them from the front; a slot that runs out takes the
    /// last grains of the others (work stealing, as pthreadpool does), so a thread that started
    /// late or runs on a slower CPU no longer holds the others up. Each slot runs on one thread
    /// at a time, so `slot` can pick per-thread scratch. Every index is passed exactly once;
    /// which thread runs it does not change what it computes.
    func runRanges(_ count: Int, parts: Int, grains: Int, align: Int, _ body: (Int, Range<Int>) -> Void) {
        let p = max(1, min(parts, grains)), g = max(p, grains), unit = max(1, align)
        guard p > 1, g < 1 << 31 else { body(0, 0..<count); return }
        // Bounds of grain i: multiples of `unit`, the last one at `count`.
        let units = (count + unit - 1) / unit
        @inline(__always) func bound(_ i: Int) -> Int { min(count, (units * i / g) * unit) }
        // Two words per slot, slots 64 bytes apart: `end << 32 | next` of its remaining grains,
        // then whether a thread has taken the slot (0 / 1).
        let stride = 8
        let words = UnsafeMutablePointer<Atomic<Int>>.allocate(capacity: p * stride)
        for k in 0..<p {
            (words + k * stride).initialize(to: Atomic((g * (k + 1) / p) << 32 | (g * k / p)))
            (words + k * stride + 1).initialize(to: Atomic(0))
        }
        defer {
            for k in 0..<p { (words + k * stride).deinitialize(count: 2) }
            words.deallocate()
        }
        // Runs grains of `owner`'s remaining range on `slot`, taking each from the front (its
        // own) or the back (another slot's), until that range is empty.
        func drain(_ owner: Int, fromBack: Bool, on slot: Int) {
            var w = words[owner * stride].load(ordering: .relaxed)
            while w & 0xFFFF_FFFF < w >> 32 {
                let desired = fromBack ? w &- (1 << 32) : w &+ 1
                let (exchanged, original) = words[owner * stride].compareExchange(expected: w, desired: desired, ordering: .relaxed)
                if exchanged {
                    let i = fromBack ? (w >> 32) - 1 : w & 0xFFFF_FFFF
                    let lo = bound(i), hi = bound(i + 1)
                    if lo < hi { body(slot, lo..<hi) }
                    w = words[owner * stride].load(ordering: .relaxed)
                } else {
                    w = original
                }
            }
        }
        // Slot 0 belongs to the calling thread and slot k to worker k, so consecutive ops give
        // each thread the same part of their (similarly split) tensors: what a thread wrote stays
        // in its core's cache for the next op. Handed out by the job index a thread claimed,
        // worker 1 ran slot 0 in some ops and slot 1 in others, and the threads read their inputs
        // from each other's caches (face full range, 2 threads: every op type scaled 1.1–1.5×).
        // A worker numbered p or more (the pool serves a larger thread count too) takes a free
        // slot other than 0; a thread that finds no slot of its own returns: the slots taken
        // drain the others, so every grain still runs once.
        func take(_ k: Int) -> Bool { words[k * stride + 1].compareExchange(expected: 0, desired: 1, ordering: .relaxed).exchanged }
        run(p, threads: p) { _ in
            let own = Int(bitPattern: UInt(bitPattern: pthread_getspecific(Self.workerKey)))
            var slot = -1
            if own < p {
                if take(own) { slot = own }
            } else {
                var k = 1
                while slot < 0 && k < p { if take(k) { slot = k }; k += 1 }
            }
            guard slot >= 0 else { return }
            drain(slot, fromBack: false, on: slot)
            for step in 1..<p { drain((slot + step) % p, fromBack: true, on: slot) }
        }
    }

    /// Claims and runs indices of job `generation` until none is left.
    private func work(generation: Int) {
        var current = state.load(ordering: .acquiring)
        while current >> 32 == generation {
            let index = current & 0xFFFF_FFFF
            let total = count.load(ordering: .relaxed)
            guard index < total else { return }
            let (exchanged, original) = state.compareExchange(expected: current, desired: current &+ 1, ordering: .acquiringAndReleasing)
            if exchanged {
                let bits = UInt(bitPattern: job.load(ordering: .relaxed))
                guard let pointer = UnsafeRawPointer(bitPattern: bits) else { return }
                pointer.assumingMemoryBound(to: Job.self).pointee.body(index)
                done.add(1, ordering: .releasing)
                current = state.load(ordering: .acquiring)
            } else {
                current = original
            }
        }
    }

    /// Starts workers until `wanted` run. `Interpreter.prepare` calls it for its thread count,
    /// so the threads are up before the first invoke (Foundation's `Thread` took a few
    /// milliseconds to start one here: the first invoke of a process ran on one thread).
    /// A thread that cannot be created is left out; the calling thread then does more.
    func startWorkers(_ wanted: Int) {
        guard started.load(ordering: .acquiring) < wanted else { return }
        workersLock.withLock { running in
            while running < wanted {
                guard Self.spawn(self, number: running + 1) else { return }
                running += 1
                started.store(running, ordering: .releasing)
            }
        }
    }

    /// A detached thread running `pool.workerLoop()`, named "objdetect worker N"; false if the
    /// system refused one.
    private static func spawn(_ pool: WorkerPool, number: Int) -> Bool {
        let context = Unmanaged.passRetained(WorkerStart(pool: pool, name: "objdetect worker \(number)", number: number)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
        var thread: pthread_t?
        let result = pthread_create(&thread, &attributes, { raw in
            let start = Unmanaged<WorkerStart>.fromOpaque(raw).takeRetainedValue()
            pthread_setname_np(start.name)
            start.pool.workerLoop(number: start.number)
            return nil
        }, context)
        #else
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { raw in
            guard let raw else { return nil }
            let start = Unmanaged<WorkerStart>.fromOpaque(raw).takeRetainedValue()
            WorkerPool.setThreadName(String(start.name.prefix(15)))
            start.pool.workerLoop(number: start.number)
            return nil
        }, context)
        #endif
        if result != 0 { Unmanaged<WorkerStart>.fromOpaque(context).release() }
        return result == 0
    }

    private func workerLoop(number: Int) {
        pthread_setspecific(Self.workerKey, UnsafeRawPointer(bitPattern: max(1, number)))
        var seen = state.load(ordering: .acquiring) >> 32
        while true {
            var spins = 0
            var generation = state.load(ordering: .acquiring) >> 32
            while generation == seen && spins < Self.spinsBeforeSleep {
                spinPause(&spins)
                generation = state.load(ordering: .acquiring) >> 32
            }
            if generation == seen {
                pthread_mutex_lock(mutex)
                sleepers.add(1, ordering: .sequentiallyConsistent)
                while state.load(ordering: .sequentiallyConsistent) >> 32 == seen { pthread_cond_wait(wake, mutex) }
                sleepers.subtract(1, ordering: .sequentiallyConsistent)
                pthread_mutex_unlock(mutex)
                generation = state.load(ordering: .acquiring) >> 32
            }
            seen = generation
            work(generation: generation)
        }
    }

    /// One step of a spin wait, counting in `spins` (Swift has no `pause` intrinsic that links
    /// everywhere; the loops around it re-read an atomic, which is what they wait for). After
    /// `spinsBeforeYield` steps (some microseconds, longer than the gaps between the parallel
    /// passes of an invoke) every 256th step yields the CPU. When the two threads share a CPU
    /// (a new thread can start on its creator's, or the machine is busy), a waiter that never
    /// yields holds the CPU the other one needs for a whole time slice: in such phases at the
    /// start of a process, 2-thread invokes of face short range took 2.1–2.4 ms, and with the
    /// yield 1.0–1.1 ms (the calling thread doing the work alone), against 0.65 normally.
    @inline(__always)
    private func spinPause(_ spins: inout Int) {
        spins &+= 1
        if spins > Self.spinsBeforeYield && spins & 255 == 0 { sched_yield() }
    }

    /// Spin steps before a waiter starts yielding (`spinPause`).
    private static let spinsBeforeYield = 4_096
}
