import FrameIO

extension FrameModel {
    /// What the model finds in every frame of a stream, in frame order, as an `AsyncSequence` of
    /// ``ProcessedFrame``s: the one frame pipeline of every model (poses streams add identities
    /// and smoothing on top of it: `poses(from:)`).
    ///
    /// **Frames in flight.** A model whose frames are ``FrameDependence/independent`` keeps one
    /// video frame per thread in flight (nil `framesInFlight`), each on a worker of its own on its
    /// share of the model's threads, results in frame order. A model that
    /// ``FrameDependence/carriesState`` runs one frame at a time, in order, on one worker.
    ///
    /// **Reading.** A task reads `frames` one frame ahead of the workers (never more). A worker
    /// that has finished a frame starts its next one without waiting for you to take the last,
    /// but at most one frame more than the workers waits to be taken, so a slow consumer slows
    /// the reading down and memory stays bounded on an endless stream. With `dropsLateFrames` (a
    /// live camera) the reading never waits: frames that arrive while every worker is busy are
    /// dropped but for the newest (``ProcessedFrame/droppedBefore`` counts them), and one frame is
    /// in flight at a time.
    ///
    /// Models run on dispatch threads, not on the Swift concurrency pool. An input error is
    /// thrown after the results of every frame read before it. Each iteration makes its own
    /// workers (and model state) on its first frame.
    ///
    /// - Parameters:
    ///   - frames: the frames in order, any `AsyncSequence` of `VideoFrame`s.
    ///   - smoothing: passed to ``makeWorker(threads:smoothing:)``, for a model that smooths its
    ///     own results.
    ///   - framesInFlight: frames run at once; nil is one per thread. Clamped to
    ///     `1...min(threads, 8)` (``FramesInFlight/count(requested:threads:)``); 1 with
    ///     `dropsLateFrames` and for a model that carries state.
    ///   - dropsLateFrames: keep up with a live source by dropping the frames that arrive while
    ///     the previous one is processed.
    public func outputs<Frames: AsyncSequence & Sendable>(
        from frames: Frames, smoothing: Bool = true, framesInFlight: Int? = nil, dropsLateFrames: Bool = false
    ) -> FrameSequence<Frames, Output> where Frames.Element == VideoFrame {
        let count = dropsLateFrames || frameDependence == .carriesState
            ? 1 : FramesInFlight.count(requested: framesInFlight, threads: threads)
        return FrameSequence(model: self, frames: frames, smoothing: smoothing, framesInFlight: count,
                             dropsLateFrames: dropsLateFrames)
    }
}

/// What a ``FrameModel`` finds in every frame of a stream: see
/// ``FrameModel/outputs(from:smoothing:framesInFlight:dropsLateFrames:)``.
public struct FrameSequence<Frames: AsyncSequence & Sendable, Output: Sendable>: AsyncSequence, Sendable
where Frames.Element == VideoFrame {
    /// One frame with the model's result, in frame order.
    public typealias Element = ProcessedFrame<Output>

    let model: any FrameModel<Output>
    let frames: Frames
    let smoothing: Bool
    /// 1: one worker on all the model's threads; more: that many workers, one frame each.
    let framesInFlight: Int
    let dropsLateFrames: Bool

    init(model: any FrameModel<Output>, frames: Frames, smoothing: Bool, framesInFlight: Int, dropsLateFrames: Bool) {
        self.model = model
        self.frames = frames
        self.smoothing = smoothing
        self.framesInFlight = framesInFlight
        self.dropsLateFrames = dropsLateFrames
    }

    /// A new pass: its own workers and model state, started by the first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(sequence: self)
    }

    /// Delivers the frames in order; see the sequence.
    public struct Iterator: AsyncIteratorProtocol {
        private let sequence: FrameSequence
        private var running: Running?
        private var finished = false

        /// Runs on the consumer's task whenever the next frame's result is not ready yet (a live
        /// stream pausing, or the model still busy): the place to flush buffered output, so
        /// nothing finished waits on the next frame.
        public var whenWaiting: (() -> Void)?

        init(sequence: FrameSequence) { self.sequence = sequence }

        /// The next frame's result, or nil when the frames have ended.
        public mutating func next() async throws -> ProcessedFrame<Output>? {
            guard !finished else { return nil }
            do {
                if running == nil { try start() }
                if !running!.schedule.isReady { whenWaiting?() }
                guard let processed = try await running!.schedule.take() else {
                    finish()
                    return nil
                }
                return processed
            } catch {
                finish()
                throw error
            }
        }

        /// On the first frame: the workers and the reading task.
        private mutating func start() throws {
            let model = sequence.model
            let shares = sequence.framesInFlight == 1 ? [model.threads]
                : FramesInFlight.threadShares(frames: sequence.framesInFlight, threads: model.threads)
            let workers = try shares.map { try model.makeWorker(threads: $0, smoothing: sequence.smoothing) }
            running = Running(schedule: FrameSchedule(workers: workers, dropsLateFrames: sequence.dropsLateFrames),
                              frames: sequence.frames)
        }

        private mutating func finish() {
            finished = true
            running = nil
        }
    }

    /// The reading task and the schedule it feeds; the task stops when the iterator is dropped.
    final class Running: Sendable {
        let schedule: FrameSchedule<Output>
        private let reading: Task<Void, Never>

        init(schedule: FrameSchedule<Output>, frames: Frames) {
            self.schedule = schedule
            reading = Task {
                var iterator = frames.makeAsyncIterator()
                do {
                    while let frame = try await iterator.next() {
                        guard await schedule.submit(frame) else { return }
                    }
                    schedule.finish(error: nil)
                } catch {
                    schedule.finish(error: error)
                }
            }
        }

        deinit {
            schedule.cancel()
            reading.cancel()
        }
    }
}
