import Dispatch
import Foundation
import FrameIO

/// One frame being processed by a worker, started at once on a dispatch thread (never on the Swift
/// concurrency pool: a network pass keeps its thread busy for milliseconds), whose result is awaited later.
final class PendingFrame<Output: Sendable>: @unchecked Sendable {
    let frame: VideoFrame
    private let lock = NSLock()
    private var result: Result<Output, Error>?
    private var waiter: CheckedContinuation<Result<Output, Error>, Never>?

    /// Starts `worker.process(frame)`; `finished` runs on the worker's thread once its result
    /// is there (its worker is free again).
    init(frame: VideoFrame, worker: any FrameWorker<Output>, finished: @escaping @Sendable () -> Void) {
        self.frame = frame
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            complete(Result { try worker.process(frame) })
            finished()
        }
    }

    /// Whether the result is there (awaiting it does not wait).
    var isDone: Bool {
        lock.lock(); defer { lock.unlock() }
        return result != nil
    }

    /// The result, once the worker has finished; its error if it failed.
    func output() async throws -> Output {
        try await withCheckedContinuation { (continuation: CheckedContinuation<Result<Output, Error>, Never>) in
            lock.lock()
            if let result {
                lock.unlock()
                continuation.resume(returning: result)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }.get()
    }

    private func complete(_ outcome: Result<Output, Error>) {
        lock.lock()
        result = outcome
        let waiting = waiter
        waiter = nil
        lock.unlock()
        waiting?.resume(returning: outcome)
    }
}
