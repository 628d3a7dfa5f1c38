import Foundation

/// The thread the live view's server runs its Swift tasks on (Hummingbird's connection handlers,
/// each viewer's sender), apart from Swift's shared cooperative pool.
///
/// The pool has one thread per core, and whatever else the process runs there can hold all of them
/// for seconds: a detector's forward pass called from async code, or, in the test suite, the other
/// suites' tests. A server on the pool then answers nobody meanwhile (on 2 cores under `stress`, a
/// page request went unanswered for 30 s). Serving is light (one JPEG per published frame, bytes
/// handed to NIO), so one thread, shared by every server of the process and never stopped, does it.
/// Tasks started with this executor as their preference keep it in every child task
/// (SE-0417), so the whole server runs here.
final class ServerExecutor: TaskExecutor, @unchecked Sendable {
    /// The process's one server thread, started on first use.
    static let shared = ServerExecutor(name: "posekit.view.server")

    private let condition = NSCondition()
    /// Jobs enqueued and not yet run, in order.
    private var jobs: [UnownedJob] = []

    private init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs the jobs as they come, a batch at a time (the lock is not held while one runs).
    private func run() {
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
