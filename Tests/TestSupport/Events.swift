import Foundation

/// The one rule of the suite about time: **a test never decides by a clock or a sleep.** It
/// waits for events (a line written, a frame read, a worker started), and the only bound on a
/// wait is this guard, so long that only a hang reaches it (a loaded 2-core machine running
/// `stress --cpu 4` beside the suite takes seconds where a quiet one takes milliseconds; no
/// correct run takes ten minutes for one event). Reaching it fails the test, with a message that
/// says it hung, instead of hanging the suite.
public enum HangGuard {
    /// Seconds a wait for one event may take before the test calls it a hang.
    public static let seconds: Double = 600

    /// The deadline of a wait starting now.
    public static var deadline: Date { Date(timeIntervalSinceNow: seconds) }
}

/// A count of events (frames read, passes started) that threads and tasks add to and wait on:
/// the test waits for the count it needs, never for a time.
///
///     let reads = EventCounter()
///     ... reads.add() on each read ...
///     await reads.wait(forAtLeast: 5)            // from a task: suspends, holds no thread
///     #expect(reads.waitBlocking(forAtLeast: 5))  // from a thread: false only after the hang guard
public final class EventCounter: @unchecked Sendable {
    private let condition = NSCondition()
    private var value = 0
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init() {}

    /// The events so far.
    public var count: Int { condition.lock(); defer { condition.unlock() }; return value }

    /// One more event (or `n`); wakes every wait it satisfies.
    public func add(_ n: Int = 1) {
        condition.lock()
        value += n
        let ready = waiters.filter { $0.count <= value }
        waiters.removeAll { $0.count <= value }
        condition.broadcast()
        condition.unlock()
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Suspends until at least `count` events happened (no clock: a test that never gets them
    /// hangs, which the test's `.timeLimit` trait reports).
    public func wait(forAtLeast count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            if value >= count {
                condition.unlock()
                continuation.resume()
            } else {
                waiters.append((count, continuation))
                condition.unlock()
            }
        }
    }

    /// Blocks the calling thread until at least `count` events happened; false only when the
    /// ``HangGuard`` passed first.
    public func waitBlocking(forAtLeast count: Int) -> Bool {
        let deadline = HangGuard.deadline
        condition.lock(); defer { condition.unlock() }
        while value < count {
            if !condition.wait(until: deadline) { return value >= count }
        }
        return true
    }
}

/// A gate that threads wait at until the test opens it (a model pass held in the middle, a
/// writer held back): what a test would otherwise do with a sleep, done by an event.
public final class Gate: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false

    public init(open: Bool = false) { isOpen = open }

    /// Lets every waiting and future ``pass()`` through.
    public func open() {
        condition.lock(); isOpen = true; condition.broadcast(); condition.unlock()
    }

    /// Waits until the gate is open; false only when the ``HangGuard`` passed first.
    @discardableResult
    public func pass() -> Bool {
        let deadline = HangGuard.deadline
        condition.lock(); defer { condition.unlock() }
        while !isOpen {
            if !condition.wait(until: deadline) { return isOpen }
        }
        return true
    }
}
