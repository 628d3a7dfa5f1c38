import Dispatch
import Foundation
import FrameIO
import PoseCore

/// One frame's poses being found, started at once on a dispatch thread (never on the Swift concurrency
/// pool: a network pass keeps its thread busy for milliseconds), whose poses are awaited later.
final class PendingFrame: @unchecked Sendable {
    let frame: VideoFrame
    private let lock = NSLock()
    private var result: Result<[Pose], Error>?
    private var waiter: CheckedContinuation<Result<[Pose], Error>, Never>?

    /// Starts `worker.poses(in: frame)`; `finished` runs on the worker's thread once its poses
    /// are there (its worker is free again).
    init(frame: VideoFrame, worker: any PoseFrameWorker, finished: @escaping @Sendable () -> Void) {
        self.frame = frame
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            complete(Result { try worker.poses(in: frame) })
            finished()
        }
    }

    /// Whether the poses are there (awaiting them does not wait).
    var isDone: Bool {
        lock.lock(); defer { lock.unlock() }
        return result != nil
    }

    /// The poses, once the worker has finished; its error if it failed.
    func poses() async throws -> [Pose] {
        try await withCheckedContinuation { (continuation: CheckedContinuation<Result<[Pose], Error>, Never>) in
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

    private func complete(_ outcome: Result<[Pose], Error>) {
        lock.lock()
        result = outcome
        let waiting = waiter
        waiter = nil
        lock.unlock()
        waiting?.resume(returning: outcome)
    }
}
