import Foundation
import FrameIO

/// The frames of a stream in flight between the task that reads them and the consumer that
/// takes their results, in order.
///
/// The reading task ``submit(_:)``s each frame as it is read. Frame `n` runs on worker
/// `n % count` (always the same worker for the same frame, so a build whose workers differ in
/// threads gives the same bytes on every run). It starts as soon as that worker has finished frame
/// `n − count`, whether or not the consumer has taken that frame yet (a worker never waits for
/// the consumer to be scheduled), while fewer than `count + 1` frames are untaken (started, and
/// not yet handed over by ``take()``): one more than the workers, so a worker goes on while the
/// consumer has yet to take its last frame, and no more, so a slow consumer holds the work back.
/// Then:
/// - **in order** (`dropsLateFrames` false): `submit` waits while the next frame cannot start,
///   so the reader stays one frame ahead and memory stays bounded however fast the input is;
/// - **late frames dropped** (a live source): `submit` never waits; a frame read while the next
///   frame cannot start waits in one slot, and a newer one replaces it, counting a drop (as
///   AVFoundation's `alwaysDiscardsLateVideoFrames`).
///
/// No clock takes part: whether a frame starts, waits or is dropped follows only from which
/// workers are busy and how many frames are untaken when it arrives, so a test that holds a
/// worker's pass (a gated model) and hands frames over one by one decides every drop
/// (`Tests/StreamingTests/FrameScheduleTests.swift`).
///
/// All state is touched under `lock`; continuations are resumed outside it.
final class FrameSchedule<Output: Sendable>: @unchecked Sendable {
    private let workers: [any FrameWorker<Output>]
    private let dropsLateFrames: Bool
    private let lock = NSLock()
    /// Started, in frame order, not yet taken.
    private var started: [PendingFrame<Output>] = []
    /// Started and not yet fully taken.
    private var untaken = 0
    /// Workers running a frame.
    private var busy: [Bool]
    private var nextWorker = 0
    /// The frame read while the next frame could not start (late frames: the newest of them).
    private var waitingFrame: VideoFrame?
    private var droppedSinceTake = 0
    /// Set when the input ended (nil) or failed.
    private var end: Error??
    private var cancelled = false
    private var reader: CheckedContinuation<Bool, Never>?
    private var consumer: CheckedContinuation<Void, Never>?

    init(workers: [any FrameWorker<Output>], dropsLateFrames: Bool) {
        precondition(!workers.isEmpty, "a schedule needs a worker")
        self.workers = workers
        self.dropsLateFrames = dropsLateFrames
        busy = workers.map { _ in false }
    }

    // MARK: The reading task

    /// Hands `frame` over; false once the consumer has gone (stop reading).
    func submit(_ frame: VideoFrame) async -> Bool {
        switch offer(frame) {
        case .accepted: return true
        case .refused: return false
        case .mustWait:
            // In order, every worker busy: ``release()`` starts the frame and wakes us.
            return await withCheckedContinuation { continuation in wait(toSubmit: frame, continuation) }
        }
    }

    private enum Offer { case accepted, refused, mustWait }

    private func offer(_ frame: VideoFrame) -> Offer {
        lock.lock()
        if cancelled { lock.unlock(); return .refused }
        if canStart {
            let wake = start(frame)
            lock.unlock()
            wake?.resume()
            return .accepted
        }
        if dropsLateFrames {
            if waitingFrame != nil { droppedSinceTake += 1 }
            waitingFrame = frame
            lock.unlock()
            return .accepted
        }
        lock.unlock()
        return .mustWait
    }

    private func wait(toSubmit frame: VideoFrame, _ continuation: CheckedContinuation<Bool, Never>) {
        lock.lock()
        if cancelled {
            lock.unlock()
            continuation.resume(returning: false)
        } else if canStart {
            let wake = start(frame)
            lock.unlock()
            wake?.resume()
            continuation.resume(returning: true)
        } else {
            waitingFrame = frame
            reader = continuation
            lock.unlock()
        }
    }

    /// The input has ended (`error` nil) or failed: frames already handed over are still delivered.
    func finish(error: Error?) {
        lock.lock()
        end = .some(error)
        let wake = consumer
        consumer = nil
        lock.unlock()
        wake?.resume()
    }

    // MARK: The consumer

    /// Whether ``take()`` would return without waiting.
    var isReady: Bool {
        lock.lock(); defer { lock.unlock() }
        return started.first?.isDone ?? hasEnded
    }

    /// The next frame in order with its result and the frames dropped before it; nil at the end of
    /// the input. The input's error is thrown after every frame before it, a frame's own error
    /// in its turn.
    func take() async throws -> ProcessedFrame<Output>? {
        while true {
            switch next() {
            case .frame(let pending, let dropped):
                let output: Output
                do { output = try await pending.output() } catch {
                    release()
                    throw error
                }
                release()
                return ProcessedFrame(frame: pending.frame, output: output, droppedBefore: dropped)
            case .end(let error):
                if let error { throw error }
                return nil
            case .wait:
                await withCheckedContinuation { continuation in waitForFrame(continuation) }
            }
        }
    }

    private enum Next { case frame(PendingFrame<Output>, dropped: Int), end(Error?), wait }

    private func next() -> Next {
        lock.lock(); defer { lock.unlock() }
        if !started.isEmpty {
            let dropped = droppedSinceTake
            droppedSinceTake = 0
            return .frame(started.removeFirst(), dropped: dropped)
        }
        if hasEnded, let end { return .end(end) }
        return .wait
    }

    private func waitForFrame(_ continuation: CheckedContinuation<Void, Never>) {
        lock.lock()
        if !started.isEmpty || hasEnded {
            lock.unlock()
            continuation.resume()
        } else {
            consumer = continuation
            lock.unlock()
        }
    }

    /// The consumer has gone: a waiting reader stops, nothing new starts.
    func cancel() {
        lock.lock()
        cancelled = true
        waitingFrame = nil
        let wake = reader
        reader = nil
        lock.unlock()
        wake?.resume(returning: false)
    }

    // MARK: Under the lock

    /// The input has ended and no frame is left to start.
    private var hasEnded: Bool { end != nil && waitingFrame == nil }

    /// Whether the next frame can start now: its worker is free and at most `workers.count`
    /// frames are untaken.
    private var canStart: Bool { untaken <= workers.count && !busy[nextWorker % workers.count] }

    /// Starts `frame` on the next worker; returns the consumer to wake, if one waits.
    private func start(_ frame: VideoFrame) -> CheckedContinuation<Void, Never>? {
        let index = nextWorker % workers.count
        nextWorker += 1
        untaken += 1
        busy[index] = true
        started.append(PendingFrame(frame: frame, worker: workers[index]) { [self] in finished(worker: index) })
        let wake = consumer
        consumer = nil
        return wake
    }

    /// A frame was taken (``take()``): fewer are untaken.
    private func release() {
        lock.lock()
        untaken -= 1
        startWaitingFrame()
    }

    /// `worker` has finished its frame and is free.
    private func finished(worker: Int) {
        lock.lock()
        busy[worker] = false
        startWaitingFrame()
    }

    /// Called with the lock held; unlocks. Starts the frame waiting to start, if it can now (a
    /// waiting in-order reader goes on).
    private func startWaitingFrame() {
        var wakeConsumer: CheckedContinuation<Void, Never>?
        var wakeReader: CheckedContinuation<Bool, Never>?
        if !cancelled, waitingFrame != nil, canStart {
            wakeConsumer = start(waitingFrame!)
            waitingFrame = nil
            wakeReader = reader
            reader = nil
        }
        lock.unlock()
        wakeConsumer?.resume()
        wakeReader?.resume(returning: true)
    }
}
