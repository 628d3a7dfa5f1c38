import FrameIO
import PoseCore
import Streaming
import Tensor

/// One frame of a stream with the hands found in it: what ``HandDetector/hands(from:dropsLateFrames:)``
/// delivers (`ProcessedFrame.output` is the hands, also named `hands`).
public typealias DetectedHands = ProcessedFrame<[Hand]>

extension ProcessedFrame where Output == [Hand] {
    /// The hands, in the frame's pixels, in MediaPipe's order (palms by detection score, then the
    /// hands tracked from the previous frame); on video each has its `Hand/id`.
    public var hands: [Hand] {
        get { output }
        set { output = newValue }
    }

    /// A frame and the hands found in it.
    public init(frame: VideoFrame, hands: [Hand]) {
        self.init(frame: frame, output: hands)
    }
}

/// The hands in every frame of a stream: the model-agnostic `FrameSequence` (module
/// `Streaming`) of a ``HandDetector``, under the name it had.
public typealias HandDetectionSequence<Frames: AsyncSequence & Sendable> = FrameSequence<Frames, [Hand]> where Frames.Element == VideoFrame

/// A hand detector on the model-agnostic stream (`Streaming`): its video frames carry state (the
/// regions tracked from the previous frame and the hands' ids), so a stream runs them in order on
/// one worker while its reading task reads the next frame.
extension HandDetector: FrameModel {
    /// The hands found in one frame.
    public typealias Output = [Hand]

    /// Cores each network pass uses (``Configuration/threads``, every core when nil).
    public var threads: Int { configuration.threads ?? Parallelism.defaultThreads }

    /// A frame's regions come from the previous frame's landmarks.
    public var frameDependence: FrameDependence { .carriesState }

    /// A stream's worker: this detector's models with tracking of its own, from nothing (hands
    /// are not smoothed: MediaPipe's hands have no filter).
    public func makeWorker(threads: Int, smoothing: Bool) throws -> any FrameWorker<[Hand]> {
        HandStreamWorker(detector: self)
    }

    /// The hands in every frame of a stream, in order, with MediaPipe's tracking on video: a hand
    /// found in one frame is looked for in the next in the region its landmarks give, keeps its
    /// `Hand/id` (1, 2, 3, ... in order of first appearance, never reused within the stream)
    /// while it is found there, and the palm detector runs only while fewer than
    /// ``Configuration/maximumHands`` hands are tracked. Still images (PNM, JPEG, PNG, ...) are
    /// each looked at on their own, without ids. No smoothing (MediaPipe's hands have none).
    ///
    ///     let detector = try HandDetector()
    ///     for try await frame in detector.hands(from: MediaFrames(path: "clip.mp4")) {
    ///         for hand in frame.hands { print(frame.index, hand.id ?? 0, hand.wrist.position) }
    ///     }
    ///
    /// The stream's (`outputs(from:)` of module `Streaming`): a task reads one frame ahead while a
    /// frame is processed, frames are processed one at a time in order (the tracking needs the
    /// previous frame's hands), and memory stays bounded on an endless stream. With
    /// `dropsLateFrames` (a live camera) frames that arrive while a frame is processed are dropped
    /// but for the newest (`droppedBefore` counts them); tracking goes on from the last frame
    /// processed. Network passes run on a dispatch thread, not on the Swift concurrency pool. Each
    /// iteration tracks its own hands (ids start at 1).
    public func hands<Frames: AsyncSequence & Sendable>(from frames: Frames, dropsLateFrames: Bool = false)
        -> HandDetectionSequence<Frames> where Frames.Element == VideoFrame {
        outputs(from: frames, dropsLateFrames: dropsLateFrames)
    }

    /// ``hands(from:dropsLateFrames:)`` on the frames of the image or video at `path`
    /// (`MediaFrames`: PNM and Y4M directly, other formats through ffmpeg; `-` is standard input).
    public func hands(inMediaAt path: String, dropsLateFrames: Bool = false) -> HandDetectionSequence<MediaFrames> {
        hands(from: MediaFrames(path: path), dropsLateFrames: dropsLateFrames)
    }
}

/// One stream's hands: the detector and the stream's tracking. The stream never overlaps its
/// calls, which is what makes the `@unchecked Sendable` sound.
final class HandStreamWorker: FrameWorker, @unchecked Sendable {
    private let detector: HandDetector
    private var tracking = HandTracking()

    init(detector: HandDetector) { self.detector = detector }

    func process(_ frame: VideoFrame) throws -> [Hand] {
        try detector.hands(in: frame, tracking: &tracking)
    }
}

extension PinchGestures {
    /// One frame of a hand stream's updates (`update(hands:time:)` at the frame's
    /// time, or for a stream without a rate its index at `PoseStream.fallbackFrameRate`).
    public mutating func update(_ detected: DetectedHands) -> [(Int, HandGestureProcessor.Update)] {
        update(hands: detected.hands, time: PoseStream.trackingTime(frameIndex: detected.index, time: detected.time))
    }
}
