import Dispatch
import Foundation
import Synchronization

/// A fork/join pool of spinning helper threads for ``Parallelism/forEachBand(_:_:)``.
///
/// A forward pass forks and joins the cores once per layer (~15 times, every 0.2–2 ms).
/// `DispatchQueue.concurrentPerform` wakes a pool thread for each fork, and when that wake-up is
/// slow (a busy host) the calling thread simply runs every band itself: measured on the 2-core
/// reference machine under load, 2 threads then took exactly as long as 1. Here each helper
/// thread stays awake, spinning on an atomic generation counter, for ``spinSeconds`` after its
/// last job (ONNX Runtime and OpenMP runtimes do the same), so a fork costs about a cache-line
/// transfer; after that it sleeps on a semaphore and the next fork wakes it.
///
/// Band `0` runs on the calling thread, band `i ≥ 1` on helper `i`: a static assignment, so a
/// job is finished exactly when each of its helpers has reported once. One job runs at a time;
/// a call made while another is running (another thread, or nested inside a band) returns
/// `false` without running anything, and the caller falls back to `concurrentPerform`.
final class SpinningPool: @unchecked Sendable {
    /// How long an idle helper spins before it sleeps.
    static let spinSeconds = 0.002

    /// One helper per core beyond the calling thread's.
    static let shared = SpinningPool(helpers: Parallelism.defaultThreads - 1)

    /// Number of helper threads; jobs of up to `helpers + 1` bands run here.
    let helpers: Int

    private final class Helper: @unchecked Sendable {
        let sleeping = Atomic<Bool>(false)
        let wake = DispatchSemaphore(value: 0)
    }

    private let generation = Atomic<Int>(0)
    private let finished = Atomic<Int>(0)
    private let callers = NSLock()
    private var job: ((Int) -> Void)?   // written only between jobs, read by helpers after `generation` changes
    private let jobBands = Atomic<Int>(0)
    private var helperStates: [Helper] = []

    init(helpers: Int) {
        self.helpers = max(0, helpers)
        helperStates = (0..<self.helpers).map { _ in Helper() }
        for index in 0..<self.helpers {
            let thread = Thread { [self] in helperLoop(index + 1, helperStates[index]) }
            thread.name = "posekit-helper-\(index + 1)"
            thread.start()
        }
    }

    /// Runs `body(band)` for `band` in `0..<bands` (`bands ≤ helpers + 1`) and returns `true` when
    /// all are done, or returns `false` at once if the pool is busy with another job.
    func run(_ bands: Int, _ body: (Int) -> Void) -> Bool {
        precondition(bands <= helpers + 1, "SpinningPool: \(bands) bands for \(helpers) helpers")
        guard callers.try() else { return false }
        defer { callers.unlock() }
        withoutActuallyEscaping(body) { body in
            job = body
            jobBands.store(bands, ordering: .relaxed)
            finished.store(0, ordering: .relaxed)
            generation.add(1, ordering: .sequentiallyConsistent)
            for helper in helperStates.prefix(bands - 1)
            where helper.sleeping.exchange(false, ordering: .sequentiallyConsistent) {
                helper.wake.signal()
            }
            body(0)
            var spins = 0
            while finished.load(ordering: .acquiring) < bands - 1 {
                // If a helper shares this core (the other is busy), spinning would keep it off
                // the core for a whole time slice: yield now and then.
                spins += 1
                if spins & 255 == 0 { sched_yield() }
            }
            job = nil
        }
        return true
    }

    /// Runs the current job's band. A function of its own so that the helper's reference to the
    /// job closure is released *before* it reports the band finished: `run` hands the caller's
    /// closure out under `withoutActuallyEscaping`, which traps if any reference outlives it.
    @inline(never)
    private func runJob(_ band: Int) {
        job?(band)
    }

    private func helperLoop(_ band: Int, _ state: Helper) {
        var seen = 0  // the generation before the first job (not read here: the thread may start after it)
        while true {
            var spins = 0
            var spinStart = DispatchTime.now().uptimeNanoseconds
            while generation.load(ordering: .acquiring) == seen {
                spins += 1
                guard spins & 255 == 0 else { continue }
                sched_yield()  // let a thread waiting for this core (maybe the caller) run
                let now = DispatchTime.now().uptimeNanoseconds
                guard Double(now - spinStart) > SpinningPool.spinSeconds * 1e9 else { continue }
                // Sleep. The flag is set before re-checking the generation, and `run` bumps the
                // generation before reading the flag, so one of the two always sees the other.
                state.sleeping.store(true, ordering: .sequentiallyConsistent)
                if generation.load(ordering: .sequentiallyConsistent) == seen { state.wake.wait() }
                state.sleeping.store(false, ordering: .sequentiallyConsistent)
                spinStart = DispatchTime.now().uptimeNanoseconds
            }
            seen = generation.load(ordering: .acquiring)
            // A job without this band neither reads `job` nor reports, so `run` may already be
            // publishing the next one; only participating helpers touch the job.
            if band < jobBands.load(ordering: .relaxed) {
                runJob(band)
                finished.add(1, ordering: .releasing)
            }
        }
    }
}
