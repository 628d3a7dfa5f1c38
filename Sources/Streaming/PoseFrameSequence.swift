import FrameIO
import PoseCore

extension PoseFrameModel {
    /// The people in every frame of a stream, as an `AsyncSequence` of ``DetectedFrame``s, with
    /// the identities and smoothing `posekit pose` gives video. This is `posekit pose`'s own
    /// pipeline, for every model: the command only writes what it delivers.
    ///
    ///     let detector = try PoseDetector(model: .mobilenet075)
    ///     for try await detected in detector.poses(from: MediaFrames(path: "clip.mp4")) {
    ///         for pose in detected.poses { print(detected.index, pose.id ?? 0, pose[.nose].position) }
    ///     }
    ///
    /// **Video and still images.** Video frames are tracked: each pose has its `Pose.id` (1, 2,
    /// 3, ... in order of first appearance), only the poses that are people are kept, and with
    /// `smoothing` their keypoints are smoothed over time: by PoseKit's One-Euro filter
    /// (docs/cli.md "Identities"), or by the model's own filters when it ``smoothsKeypoints``
    /// (BlazePose: MediaPipe's). Still images (`VideoFrame.isStillImage`: PNM, JPEG, PNG, ...)
    /// are each found on their own: every pose, no ids (`ImagesAsVideo` makes a sequence of
    /// images one video).
    ///
    /// **Frames in flight.** A model whose frames are ``FrameDependence/independent`` (PoseNet)
    /// keeps one video frame per thread in flight: each runs on its own core, on a worker that
    /// shares the model's weights, and results come back in frame order. On 2 cores that is
    /// about 1.25× the frames per second of one frame at a time; each frame takes longer from read
    /// to result, and every extra frame in flight holds its own activations (PoseNet: about 8 MB
    /// at input 257, 30 MB at 513). Pass `framesInFlight: 1` for the least latency: one frame at a
    /// time on all the model's threads. A model that ``FrameDependence/carriesState`` (BlazePose)
    /// always runs one frame at a time, in order, on one worker.
    ///
    /// **Reading.** A task reads `frames` one frame ahead of the workers (never more). A worker
    /// that has finished a frame starts its next one without waiting for you to take the last,
    /// but at most one frame more than the workers waits to be taken, so a slow consumer slows
    /// the reading down and memory stays bounded on an endless stream. With
    /// `dropsLateFrames` (a live camera) the reading never waits: frames that arrive while every
    /// worker is busy are dropped but for the newest (``ProcessedFrame/droppedBefore`` counts them),
    /// and one frame is in flight at a time.
    ///
    /// Models run on dispatch threads, not on the Swift concurrency pool. An input error is
    /// thrown after the results of every frame read before it. Each iteration tracks its own
    /// identities (they start at 1) and makes its own workers (and model state) on its first frame.
    ///
    /// - Parameters:
    ///   - frames: the frames in order, any `AsyncSequence` of `VideoFrame`s: usually
    ///     `MediaFrames` (a file, a pipe, a camera), or frames you make yourself.
    ///   - smoothing: smoothing of video keypoints (`posekit pose`'s default); pass false
    ///     for the raw per-frame positions (what `ActionRecognizer` expects).
    ///   - tracking: how people keep their identities (`posekit pose`'s defaults; TF.js
    ///     pose-detection's `maxTracks`, `maxAge`, `minSimilarity` are `maximumTracks`,
    ///     `maximumAge`, `minimumSimilarity`). An invalid configuration is thrown by the first `next()`.
    ///   - framesInFlight: frames run at once, each on its share of the model's threads; nil (the
    ///     default) is one per thread. Clamped to `1...min(threads, 8)`
    ///     (``FramesInFlight/count(requested:threads:)``); 1 with `dropsLateFrames` and for a
    ///     model that carries state.
    ///   - dropsLateFrames: keep up with a live source by dropping the frames that arrive while
    ///     the previous one is processed.
    public func poses<Frames: AsyncSequence & Sendable>(
        from frames: Frames, smoothing: Bool = true, tracking: PoseTracker.Configuration = PoseTracker.Configuration(),
        framesInFlight: Int? = nil, dropsLateFrames: Bool = false
    ) -> PoseFrameSequence<Frames> where Frames.Element == VideoFrame {
        PoseFrameSequence(tracked: TrackedFrameSequence(
            outputs(from: frames, smoothing: smoothing, framesInFlight: framesInFlight, dropsLateFrames: dropsLateFrames),
            smoothing: smoothing && !smoothsKeypoints, tracking: tracking))
    }

    /// ``poses(from:smoothing:tracking:framesInFlight:dropsLateFrames:)`` on the frames of the
    /// image or video at `path` (`MediaFrames`: PNM and Y4M directly, other formats through ffmpeg).
    public func poses(inMediaAt path: String, smoothing: Bool = true,
                      tracking: PoseTracker.Configuration = PoseTracker.Configuration(),
                      framesInFlight: Int? = nil, dropsLateFrames: Bool = false) -> PoseFrameSequence<MediaFrames> {
        poses(from: MediaFrames(path: path), smoothing: smoothing, tracking: tracking, framesInFlight: framesInFlight,
              dropsLateFrames: dropsLateFrames)
    }
}

/// The people in every frame of a stream, found by any ``PoseFrameModel``: see
/// ``PoseFrameModel/poses(from:smoothing:tracking:framesInFlight:dropsLateFrames:)``.
public struct PoseFrameSequence<Frames: AsyncSequence & Sendable>: AsyncSequence, Sendable where Frames.Element == VideoFrame {
    /// One frame with its people, in frame order.
    public typealias Element = DetectedFrame

    let tracked: TrackedFrameSequence<Frames, [Pose]>

    /// A new pass: its own identities (from 1), workers and model state, started by the first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(tracked: tracked.makeAsyncIterator())
    }

    /// Delivers the frames in order; see the sequence.
    public struct Iterator: AsyncIteratorProtocol {
        private var tracked: TrackedFrameSequence<Frames, [Pose]>.Iterator

        /// Runs on the consumer's task whenever the next frame's poses are not ready yet (a live
        /// stream pausing, or the model still busy): the place to flush buffered output, so
        /// nothing finished waits on the next frame.
        public var whenWaiting: (() -> Void)? {
            get { tracked.whenWaiting }
            set { tracked.whenWaiting = newValue }
        }

        init(tracked: TrackedFrameSequence<Frames, [Pose]>.Iterator) { self.tracked = tracked }

        /// The next frame's people, or nil when the frames have ended.
        public mutating func next() async throws -> DetectedFrame? {
            try await tracked.next()
        }
    }
}

/// A frame's result that holds people a stream tracks (and smooths): the poses themselves, or a
/// result that carries more beside them (a body with its hands).
public protocol PoseCarrying: Sendable {
    /// The people in the frame, best first, in its pixels.
    var poses: [Pose] { get set }

    /// What the result carries from frame to frame of one stream once its people have their ids (a body's
    /// hands: their tracks); nothing by default.
    associatedtype TrackingState = Void
    /// A stream's state before its first frame.
    static func makeTrackingState() -> TrackingState
    /// On video, after the stream gave ``poses`` their identities (and smoothing): `sources[i]` is pose i's
    /// place among the poses the model found (the others were no person), `time` the frame's tracking time
    /// in seconds. Does nothing by default.
    mutating func posesTracked(from sources: [Int], time: Double, state: inout TrackingState)
}

extension PoseCarrying where TrackingState == Void {
    public static func makeTrackingState() {}
    public mutating func posesTracked(from sources: [Int], time: Double, state: inout Void) {}
}

extension Array: PoseCarrying where Element == Pose {
    /// The poses themselves.
    public var poses: [Pose] {
        get { self }
        set { self = newValue }
    }
}

/// A ``FrameSequence`` whose results' poses get the identities (and smoothing) of
/// ``/PoseCore/PoseStream`` on video: what `poses(from:)` runs, for any result that is
/// ``PoseCarrying``. Still images keep every pose, without ids.
public struct TrackedFrameSequence<Frames: AsyncSequence & Sendable, Output: PoseCarrying>: AsyncSequence, Sendable
where Frames.Element == VideoFrame {
    /// One frame with the model's result, its poses tracked, in frame order.
    public typealias Element = ProcessedFrame<Output>

    let frames: FrameSequence<Frames, Output>
    let smoothing: Bool
    let tracking: PoseTracker.Configuration

    /// `frames`' results with identities and, with `smoothing`, PoseKit's One-Euro smoothing
    /// (false for a model that smooths its keypoints itself).
    public init(_ frames: FrameSequence<Frames, Output>, smoothing: Bool, tracking: PoseTracker.Configuration = PoseTracker.Configuration()) {
        self.frames = frames
        self.smoothing = smoothing
        self.tracking = tracking
    }

    /// A new pass: its own identities (from 1), workers and model state, started by the first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(sequence: self, frames: frames.makeAsyncIterator())
    }

    /// Delivers the frames in order; see the sequence.
    public struct Iterator: AsyncIteratorProtocol {
        private let sequence: TrackedFrameSequence
        private var frames: FrameSequence<Frames, Output>.Iterator
        private var stream: PoseStream?
        private var outputState: Output.TrackingState?

        /// Runs on the consumer's task whenever the next frame is not ready yet (see
        /// ``FrameSequence/Iterator/whenWaiting``).
        public var whenWaiting: (() -> Void)? {
            get { frames.whenWaiting }
            set { frames.whenWaiting = newValue }
        }

        init(sequence: TrackedFrameSequence, frames: FrameSequence<Frames, Output>.Iterator) {
            self.sequence = sequence
            self.frames = frames
        }

        /// The next frame with its poses tracked, or nil when the frames have ended.
        public mutating func next() async throws -> ProcessedFrame<Output>? {
            // The stream's front end on the first frame: an invalid configuration is thrown there.
            if stream == nil {
                stream = try PoseStream(configuration: PoseStream.Configuration(tracking: sequence.tracking, smoothing: sequence.smoothing))
            }
            guard var processed = try await frames.next() else { return nil }
            if !processed.frame.isStillImage {
                let tracked = stream!.process(processed.output.poses, frameIndex: processed.index, time: processed.time)
                processed.output.poses = tracked.map { $0.pose }
                var state = outputState ?? Output.makeTrackingState()
                processed.output.posesTracked(from: tracked.map { $0.sourceIndex ?? -1 },
                                              time: PoseStream.trackingTime(frameIndex: processed.index, time: processed.time), state: &state)
                outputState = state
            }
            return processed
        }
    }
}
