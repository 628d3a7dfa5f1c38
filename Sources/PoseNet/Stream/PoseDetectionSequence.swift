import FrameIO
import PoseCore
import Tensor

extension PoseDetector {
    /// The most frames a stream keeps in flight: more would only add latency and a model's
    /// activations each.
    public static let maxFramesInFlight = 8

    /// How many frames a stream keeps in flight on `threads` threads when `requested` are asked
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
}

extension PoseFinding {
    /// The people in every frame of a stream, as an `AsyncSequence` of ``DetectedFrame``s, with
    /// the identities and smoothing `posekit pose` gives video. This is `posekit pose`'s own
    /// pipeline: the command only writes what it delivers.
    ///
    ///     let detector = try PoseDetector(model: .mobilenet075)
    ///     for try await detected in detector.poses(from: MediaFrames(path: "clip.mp4")) {
    ///         for pose in detected.poses { print(detected.index, pose.id ?? 0, pose[.nose].position) }
    ///     }
    ///
    /// **Video and still images.** Video frames are tracked: each pose has its ``/PoseCore/Pose/id`` (1, 2,
    /// 3, ... in order of first appearance), only the poses that are people are kept, and with
    /// `smoothing` their keypoints are One-Euro filtered (docs/cli.md "Identities"). Still images
    /// (``/FrameIO/VideoFrame/isStillImage``: PNM, JPEG, PNG, ...) are each decoded on their own: every
    /// pose, no ids.
    ///
    /// **Frames in flight.** Video read in order keeps one frame per thread of the finder in
    /// flight: each runs on its own core, on a finder that shares this one's weights
    /// (``sharingWeights(threads:)``), and results come back in frame order. On 2 cores that is
    /// about 1.25× the frames per second of one frame at a time; each frame takes longer from read
    /// to result, and every extra frame in flight holds its own activations (about 8 MB at input
    /// 257, 30 MB at 513). Pass `framesInFlight: 1` for the least latency: one frame at a time on
    /// all the finder's threads. A tuned build (PoseKit's own GEMM) gives exactly what one frame at
    /// a time gives; the default build's OpenBLAS GEMM may round the last bits differently when a
    /// pass runs on fewer threads.
    ///
    /// **Reading.** A task reads `frames` one frame ahead of the detections (never more). A worker
    /// that has finished a frame starts its next one without waiting for you to take the last,
    /// but at most one frame more than the workers waits to be taken, so a slow consumer slows
    /// the reading down and memory stays bounded on an endless stream. With
    /// `dropsLateFrames` (a live camera) the reading never waits: frames that arrive while every
    /// worker is busy are dropped but for the newest (``DetectedFrame/droppedBefore`` counts them),
    /// and one frame is in flight at a time.
    ///
    /// Network passes run on dispatch threads, not on the Swift concurrency pool. An input error is
    /// thrown after the results of every frame read before it. Each iteration tracks its own
    /// identities (they start at 1) and makes its own worker finders on its first frame.
    ///
    /// - Parameters:
    ///   - frames: the frames in order, any `AsyncSequence` of ``/FrameIO/VideoFrame``s: usually
    ///     ``/FrameIO/MediaFrames`` (a file, a pipe, a camera), or frames you make yourself.
    ///   - smoothing: One-Euro smoothing of video keypoints (`posekit pose`'s default); pass false
    ///     for the raw per-frame positions (what `ActionRecognizer` expects).
    ///   - tracking: how people keep their identities (`posekit pose`'s defaults; TF.js
    ///     pose-detection's `maxTracks`, `maxAge`, `minSimilarity` are `maximumTracks`,
    ///     `maximumAge`, `minimumSimilarity`). An invalid configuration is thrown by the first `next()`.
    ///   - framesInFlight: frames run at once, each on its share of the finder's threads; nil (the
    ///     default) is one per thread. Clamped to `1...min(threads, 8)`
    ///     (``PoseDetector/framesInFlight(requested:threads:)``); 1 with `dropsLateFrames`.
    ///   - dropsLateFrames: keep up with a live source by dropping the frames that arrive while
    ///     the previous one is processed.
    public func poses<Frames: AsyncSequence & Sendable>(
        from frames: Frames, smoothing: Bool = true, tracking: PoseTracker.Configuration = PoseTracker.Configuration(),
        framesInFlight: Int? = nil, dropsLateFrames: Bool = false
    ) -> PoseDetectionSequence<Frames> where Frames.Element == VideoFrame {
        let count = dropsLateFrames ? 1 : PoseDetector.framesInFlight(requested: framesInFlight, threads: threads)
        return PoseDetectionSequence(finder: self, frames: frames,
                                     stream: PoseStream.Configuration(tracking: tracking, smoothing: smoothing),
                                     framesInFlight: count, dropsLateFrames: dropsLateFrames)
    }

    /// ``poses(from:smoothing:tracking:framesInFlight:dropsLateFrames:)`` on the frames of the
    /// image or video at `path` (``/FrameIO/MediaFrames``: PNM and Y4M directly, other formats through ffmpeg).
    public func poses(inMediaAt path: String, smoothing: Bool = true,
                      tracking: PoseTracker.Configuration = PoseTracker.Configuration(),
                      framesInFlight: Int? = nil, dropsLateFrames: Bool = false) -> PoseDetectionSequence<MediaFrames> {
        poses(from: MediaFrames(path: path), smoothing: smoothing, tracking: tracking, framesInFlight: framesInFlight,
              dropsLateFrames: dropsLateFrames)
    }
}

/// The people in every frame of a stream: see
/// ``PoseFinding/poses(from:smoothing:tracking:framesInFlight:dropsLateFrames:)``.
public struct PoseDetectionSequence<Frames: AsyncSequence & Sendable>: AsyncSequence, Sendable where Frames.Element == VideoFrame {
    /// One frame with its people, in frame order.
    public typealias Element = DetectedFrame

    let finder: any PoseFinding
    let frames: Frames
    let stream: PoseStream.Configuration
    /// 1: one frame at a time on ``finder``; more: that many worker finders, one frame each.
    let framesInFlight: Int
    let dropsLateFrames: Bool

    /// A new pass: its own identities (from 1) and workers, started by the first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(sequence: self)
    }

    /// Delivers the frames in order; see the sequence.
    public struct Iterator: AsyncIteratorProtocol {
        private let sequence: PoseDetectionSequence
        private var running: Running?
        private var stream: PoseStream?
        private var finished = false

        /// Runs on the consumer's task whenever the next frame's poses are not ready yet (a live
        /// stream pausing, or the network still busy): the place to flush buffered output, so
        /// nothing finished waits on the next frame.
        public var whenWaiting: (() -> Void)?

        init(sequence: PoseDetectionSequence) { self.sequence = sequence }

        /// The next frame's people, or nil when the frames have ended.
        public mutating func next() async throws -> DetectedFrame? {
            guard !finished else { return nil }
            do {
                if running == nil { try start() }
                if !running!.schedule.isReady { whenWaiting?() }
                guard var detected = try await running!.schedule.take() else {
                    finish()
                    return nil
                }
                if !detected.frame.isStillImage {
                    let tracked = stream!.process(detected.poses, frameIndex: detected.index, time: detected.time)
                    detected.poses = tracked.map(\.pose)
                }
                return detected
            } catch {
                finish()
                throw error
            }
        }

        /// On the first frame: the stream's front end, the workers and the reading task.
        private mutating func start() throws {
            stream = try PoseStream(configuration: sequence.stream)
            let finder = sequence.finder
            let workers: [any PoseFinding] = sequence.framesInFlight == 1 ? [finder]
                : try PoseDetector.workerThreadShares(frames: sequence.framesInFlight, threads: finder.threads)
                    .map { try finder.sharingWeights(threads: $0) }
            running = Running(schedule: DetectionSchedule(workers: workers, dropsLateFrames: sequence.dropsLateFrames),
                              frames: sequence.frames)
        }

        private mutating func finish() {
            finished = true
            running = nil
        }
    }

    /// The reading task and the schedule it feeds; the task stops when the iterator is dropped.
    final class Running: Sendable {
        let schedule: DetectionSchedule
        private let reading: Task<Void, Never>

        init(schedule: DetectionSchedule, frames: Frames) {
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
