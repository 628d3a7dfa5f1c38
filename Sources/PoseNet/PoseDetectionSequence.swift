import PoseCore
import FrameIO
import Tensor

extension PoseDetector {
    /// The most frames a video keeps in flight (``poses(from:smoothing:tracking:framesInFlight:)``, `posekit
    /// pose`): more would only add latency and a model's activations each.
    public static let maxFramesInFlight = 8

    /// How many frames a video keeps in flight on `threads` threads when `requested` are asked
    /// for: one per thread when nil, never more than the threads (each frame has at least one)
    /// nor ``maxFramesInFlight``, and at least one.
    public static func framesInFlight(requested: Int?, threads: Int) -> Int {
        max(1, min(requested ?? threads, threads, maxFramesInFlight))
    }

    /// The threads of each of `frames` frames in flight: `threads` split as evenly as they go,
    /// the first frames one more where they do not divide (5 threads on 2 frames: `[3, 2]`).
    public static func workerThreadShares(frames: Int, threads: Int) -> [Int] {
        (0..<frames).map { Parallelism.bandRange($0, of: frames, count: threads).count }
    }

    /// The poses of every frame of a video stream, as an `AsyncSequence`, with the identities
    /// and smoothing `posekit pose` gives video:
    ///
    ///     let detector = try PoseDetector(model: .mobilenet075)
    ///     for try await frame in detector.poses(from: Y4MFrameSequence(path: "clip.y4m")) {
    ///         for (id, pose) in zip(frame.ids ?? [], frame.poses) { print(frame.frame, id, pose[.nose].position) }
    ///     }
    ///
    /// **Frames in flight.** Like `posekit pose` on video, the sequence keeps one frame per thread
    /// of the detector in flight: each runs on its own core, on a detector that shares this one's
    /// weights (``sharingWeights(threads:)``), and results come back in frame order. A tuned build
    /// (PoseKit's own GEMM) gives exactly what one frame at a time gives; the default build's
    /// OpenBLAS GEMM may round the last bits differently when a pass runs on fewer threads. On 2 cores that is about 1.25× the frames per second; each frame
    /// takes longer from read to result, and every extra frame in flight holds its own activations
    /// (about 8 MB at input 257, 30 MB at 513). Pass `framesInFlight: 1` for the least latency:
    /// one frame at a time on all the detector's threads.
    ///
    /// Frames are pulled from `frames` only when the consumer asks for a result, and at most
    /// `framesInFlight` ahead of it, so a slow consumer slows the reading down. Network passes
    /// run on dispatch threads, not on the Swift concurrency pool.
    ///
    /// - Parameters:
    ///   - smoothing: One-Euro smoothing of the keypoints over time (`posekit pose`'s default);
    ///     pass false for the raw per-frame positions (what `ActionRecognizer` expects).
    ///   - tracking: how people keep their identities (`posekit pose`'s defaults; TF.js
    ///     pose-detection's `maxTracks`, `maxAge`, `minSimilarity` are `maximumTracks`,
    ///     `maximumAge`, `minimumSimilarity`). An invalid configuration is thrown by the first
    ///     `next()`. Only the poses that are people come back (README "Identities").
    ///   - framesInFlight: frames run at once, each on its share of the detector's threads;
    ///     nil (the default) is one per thread. Clamped to `1...min(threads, 8)`
    ///     (``framesInFlight(requested:threads:)``).
    public func poses<Frames: AsyncSequence>(from frames: Frames, smoothing: Bool = true,
                                             tracking: PoseTracker.Configuration = PoseTracker.Configuration(),
                                             framesInFlight: Int? = nil) -> PoseDetectionSequence<Frames>
    where Frames.Element == VideoFrame {
        let count = Self.framesInFlight(requested: framesInFlight, threads: model.threads)
        return PoseDetectionSequence(detector: self, frames: frames,
                                     stream: PoseStream.Configuration(tracking: tracking, smoothing: smoothing), framesInFlight: count)
    }
}

/// The per-frame results of ``PoseDetector/poses(from:smoothing:tracking:framesInFlight:)``: a `PoseFrame`
/// per video frame, with `ids`; a stream without a frame rate (Y4M `F0:0`) is timed at 30 frames/s
/// (`PoseStream.fallbackFrameRate`). Each iteration tracks its own identities (they start at 1)
/// and, with frames in flight, makes its own worker detectors on its first frame.
///
/// A reading error is thrown after the results of every frame read before it.
public struct PoseDetectionSequence<Frames: AsyncSequence>: AsyncSequence where Frames.Element == VideoFrame {
    public typealias Element = PoseFrame

    let detector: PoseDetector
    let frames: Frames
    let stream: PoseStream.Configuration
    /// 1: one frame at a time on ``detector``; more: that many worker detectors, one frame each.
    let framesInFlight: Int

    public func makeAsyncIterator() -> Iterator {
        let front = Result { try PoseStream(configuration: stream) }
        return Iterator(detector: detector, frames: frames.makeAsyncIterator(), stream: try? front.get(),
                        streamError: { if case .failure(let e) = front { return e } else { return nil } }(),
                        framesInFlight: framesInFlight)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let detector: PoseDetector
        var frames: Frames.AsyncIterator
        /// The stream's front end; nil when its configuration is invalid (`streamError`, thrown by `next()`).
        var stream: PoseStream?
        let streamError: Error?
        let framesInFlight: Int
        /// The worker detectors (frames in flight), made on the first frame; frame `n` runs on `workers[n % count]`.
        var workers: [PoseDetector] = []
        /// Frames handed to the workers and not yet returned, oldest first. Worker `n % count` is
        /// free when frame `n` is started: its previous frame, `n − count`, was returned already.
        var inFlight: [(frame: VideoFrame, poses: Task<[Pose], Error>)] = []
        var started = 0
        var readingEnded = false
        var readError: Error?

        /// The next frame's poses, or nil when the frames have ended.
        public mutating func next() async throws -> PoseFrame? {
            if let streamError { throw streamError }
            let frame: VideoFrame, found: [Pose]
            if framesInFlight == 1 {
                guard let next = try await frames.next() else { return nil }
                (frame, found) = (next, try await detector.posesOffPool(in: next))
            } else {
                try await startFrames()
                guard !inFlight.isEmpty else {
                    if let error = readError { readError = nil; throw error }
                    return nil
                }
                let oldest = inFlight.removeFirst()
                (frame, found) = (oldest.frame, try await oldest.poses.value)
            }
            let tracked = stream!.process(found, frameIndex: frame.index, time: frame.time)
            return PoseFrame(frame: frame.index, time: PoseStream.trackingTime(frameIndex: frame.index, time: frame.time),
                             width: frame.width, height: frame.height, poses: tracked.map(\.pose), ids: tracked.map(\.trackID))
        }

        /// Reads frames and starts them on the workers until ``framesInFlight`` are in flight or the
        /// frames end; a reading error ends the reading and is kept for after the frames before it.
        private mutating func startFrames() async throws {
            if workers.isEmpty {
                workers = try PoseDetector.workerThreadShares(frames: framesInFlight, threads: detector.model.threads)
                    .map { try detector.detectorSharingWeights(threads: $0) }
            }
            while !readingEnded && inFlight.count < framesInFlight {
                let next: VideoFrame?
                do { next = try await frames.next() } catch { readError = error; readingEnded = true; break }
                guard let frame = next else { readingEnded = true; break }
                let worker = workers[started % workers.count]
                started += 1
                inFlight.append((frame, Task.detached { try await worker.posesOffPool(in: frame) }))
            }
        }
    }
}

extension PoseDetectionSequence: Sendable where Frames: Sendable {}
