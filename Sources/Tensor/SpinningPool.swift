import Dispatch
import Foundation
import Synchronization

/// A fork/join pool of helper threads for ``Parallelism/forEachBand(_:_:)``: they spin briefly
/// between jobs, then park, and they take bands from a shared counter.
///
/// A forward pass forks and joins the cores once per layer (~15 times, every 0.2–2 ms).
/// `DispatchQueue.concurrentPerform` wakes a pool thread for each fork, and when that wake-up is
/// slow (a busy host) the calling thread runs every band itself. Here each helper stays awake,
/// spinning on the job word, for ``spinSeconds`` after its last band (ONNX Runtime and OpenMP
/// runtimes do the same), so a fork costs about a cache-line transfer; then it parks on a
/// semaphore and the next fork wakes it.
///
/// **Bands are claimed, not assigned.** The caller and the helpers take the next unclaimed band
/// from one atomic word until none are left, so a helper that is not on a core (another process
/// busy-loops there) costs nothing: the caller runs its bands. With a fixed band per thread the
/// caller would wait for that helper's time slice; measured on 2 cores next to one busy-looping
/// process, that made a 2-thread forward pass 4× slower. For the same reason the caller waits
/// for bands still running elsewhere by spinning only briefly, then parking, so a helper that
/// shares its core gets the core.
///
/// One job runs at a time; a call made while another is running (another thread, or nested
/// inside a band) returns `false` without running anything, and the caller falls back to
/// `concurrentPerform`.
final class SpinningPool: @unchecked Sendable {
    /// How long an idle helper spins before it parks: long enough to span the gap between two
    /// layers of a forward pass, short enough not to take a shared core from others for long.
    static let spinSeconds = 0.0005
    /// How long the caller spins for helpers still running a band before it parks.
    static let callerSpinSeconds = 0.00005
    /// The most bands one job may have (they are counted in one byte of the job word).
    static let maxBands = 255

    /// One helper per core beyond the calling thread's.
    static let shared = SpinningPool(helpers: Parallelism.defaultThreads - 1)

    /// Number of helper threads.
    let helpers: Int

    private final class Parked: @unchecked Sendable {
        let flag = Atomic<Bool>(false)
        let wake = DispatchSemaphore(value: 0)

        /// Parks unless `stillWaiting()` turns false after the flag is up. The waker clears the
        /// flag before signalling, so exactly one of the two sides sees the other.
        func park(while stillWaiting: () -> Bool) {
            flag.store(true, ordering: .sequentiallyConsistent)
            if stillWaiting() {
                wake.wait()
            } else if !flag.exchange(false, ordering: .sequentiallyConsistent) {
                wake.wait()  // a waker took the flag and is signalling: absorb it
            }
        }

        func unpark() {
            if flag.exchange(false, ordering: .sequentiallyConsistent) { wake.signal() }
        }
    }

    /// generation << 16 | bands << 8 | next unclaimed band.
    private let jobWord = Atomic<Int>(0)
    private let finished = Atomic<Int>(0)
    /// The generation after which idle helpers park at once instead of spinning (see ``parkHelpers()``).
    private let parkAfterGeneration = Atomic<Int>(-1)
    private let callers = NSLock()
    private var job: ((Int) -> Void)?   // written only between jobs; read after a successful claim
    private let caller = Parked()
    private var helperStates: [Parked] = []

    init(helpers: Int) {
        self.helpers = max(0, helpers)
        helperStates = (0..<self.helpers).map { _ in Parked() }
        for index in 0..<self.helpers {
            let thread = Thread { [self] in helperLoop(helperStates[index]) }
            thread.name = "posekit-helper-\(index + 1)"
            thread.start()
        }
    }

    /// Runs `body(band)` for `band` in `0..<bands` (`bands ≤` ``maxBands``) and returns `true`
    /// when all are done, or returns `false` at once if the pool is busy with another job.
    func run(_ bands: Int, _ body: (Int) -> Void) -> Bool {
        precondition(bands <= SpinningPool.maxBands, "SpinningPool: \(bands) bands")
        guard callers.try() else { return false }
        defer { callers.unlock() }
        withoutActuallyEscaping(body) { body in
            job = body
            finished.store(0, ordering: .relaxed)
            let generation = (jobWord.load(ordering: .relaxed) >> 16) + 1
            jobWord.store(generation << 16 | bands << 8, ordering: .sequentiallyConsistent)
            for helper in helperStates.prefix(bands - 1) { helper.unpark() }
            runBands(generation)
            let start = DispatchTime.now().uptimeNanoseconds
            var spins = 0
            while finished.load(ordering: .acquiring) < bands {
                spins += 1
                guard spins & 63 == 0 else { continue }
                if Double(DispatchTime.now().uptimeNanoseconds - start) > SpinningPool.callerSpinSeconds * 1e9 {
                    caller.park { finished.load(ordering: .sequentiallyConsistent) < bands }
                }
            }
            job = nil
        }
        return true
    }

    /// Lets the helpers park as soon as they are idle instead of spinning for ``spinSeconds``
    /// (the next job wakes them). For when the cores are about to go to other work.
    func parkHelpers() {
        parkAfterGeneration.store(jobWord.load(ordering: .relaxed) >> 16, ordering: .relaxed)
    }

    /// How many helpers are parked (asleep until the next job), for tests that wait for that
    /// event instead of sleeping past ``spinSeconds``.
    var parkedHelpers: Int {
        helperStates.filter { $0.flag.load(ordering: .sequentiallyConsistent) }.count
    }

    /// Claims and runs bands of job `generation` until none are left.
    private func runBands(_ generation: Int) {
        var word = jobWord.load(ordering: .acquiring)
        while word >> 16 == generation {
            let bands = (word >> 8) & 0xFF, next = word & 0xFF
            guard next < bands else { return }
            let (claimed, current) = jobWord.compareExchange(
                expected: word, desired: word + 1, ordering: .acquiringAndReleasing)
            guard claimed else { word = current; continue }
            runJob(next)
            if finished.add(1, ordering: .acquiringAndReleasing).newValue == bands { caller.unpark() }
            word = jobWord.load(ordering: .acquiring)
        }
    }

    /// Runs the current job's band. A function of its own so that the helper's reference to the
    /// job closure is released *before* it reports the band finished: `run` hands the caller's
    /// closure out under `withoutActuallyEscaping`, which traps if any reference outlives it.
    @inline(never)
    private func runJob(_ band: Int) {
        job?(band)
    }

    private func helperLoop(_ state: Parked) {
        var seen = 0  // the generation last worked on
        while true {
            var spins = 0
            var spinStart = DispatchTime.now().uptimeNanoseconds
            while jobWord.load(ordering: .acquiring) >> 16 == seen {
                spins += 1
                guard spins & 255 == 0 else { continue }
                sched_yield()  // let a thread waiting for this core (maybe the caller) run
                let now = DispatchTime.now().uptimeNanoseconds
                guard parkAfterGeneration.load(ordering: .relaxed) == seen
                        || Double(now - spinStart) > SpinningPool.spinSeconds * 1e9 else { continue }
                state.park { jobWord.load(ordering: .sequentiallyConsistent) >> 16 == seen }
                spinStart = DispatchTime.now().uptimeNanoseconds
            }
            seen = jobWord.load(ordering: .acquiring) >> 16
            runBands(seen)
        }
    }
}
