import Dispatch
import FrameIO
import PoseCore

/// One frame of a stream with the hands found in it: what ``HandDetector/hands(from:)`` delivers.
public struct DetectedHands: Sendable {
    /// The frame as it was read (draw on `VideoFrame/rgb()` for an overlay).
    public var frame: VideoFrame
    /// The hands, in its pixels, in MediaPipe's order (palms by detection score, then the hands
    /// tracked from the previous frame); on video each has its `Hand/id`.
    public var hands: [Hand]

    public init(frame: VideoFrame, hands: [Hand]) {
        self.frame = frame
        self.hands = hands
    }

    /// Zero-based index of the frame in its stream.
    public var index: Int { frame.index }
    /// Seconds from the first frame; nil for still images and streams without a frame rate.
    public var time: Double? { frame.time }
    /// Width of the frame in pixels.
    public var width: Int { frame.width }
    /// Height of the frame in pixels.
    public var height: Int { frame.height }
}

extension HandDetector {
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
    /// One frame is read and processed at a time (the tracking needs the previous frame's hands),
    /// so memory stays bounded on an endless stream. Network passes run on a dispatch thread, not
    /// on the Swift concurrency pool. Each iteration tracks its own hands (ids start at 1).
    public func hands<Frames: AsyncSequence & Sendable>(from frames: Frames) -> HandDetectionSequence<Frames>
    where Frames.Element == VideoFrame {
        HandDetectionSequence(detector: self, frames: frames)
    }

    /// ``hands(from:)`` on the frames of the image or video at `path` (`MediaFrames`: PNM and Y4M
    /// directly, other formats through ffmpeg; `-` is standard input).
    public func hands(inMediaAt path: String) -> HandDetectionSequence<MediaFrames> {
        hands(from: MediaFrames(path: path))
    }
}

/// The hands in every frame of a stream: see ``HandDetector/hands(from:)``.
public struct HandDetectionSequence<Frames: AsyncSequence & Sendable>: AsyncSequence, Sendable where Frames.Element == VideoFrame {
    public typealias Element = DetectedHands
    let detector: HandDetector
    let frames: Frames

    public func makeAsyncIterator() -> Iterator { Iterator(detector: detector, frames: frames.makeAsyncIterator()) }

    /// Delivers the frames in order; see the sequence.
    public struct Iterator: AsyncIteratorProtocol {
        let detector: HandDetector
        var frames: Frames.AsyncIterator
        var tracking = HandTracking()

        public mutating func next() async throws -> DetectedHands? {
            guard let frame = try await frames.next() else { return nil }
            let (hands, tracking) = try await Self.run(detector, frame, tracking)
            self.tracking = tracking
            return DetectedHands(frame: frame, hands: hands)
        }

        /// One frame's pipeline on a dispatch thread (a network pass holds its thread for milliseconds).
        private static func run(_ detector: HandDetector, _ frame: VideoFrame,
                                _ tracking: HandTracking) async throws -> ([Hand], HandTracking) {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(with: Result {
                        var state = tracking
                        let hands = try detector.hands(in: frame.rgb(), tracking: &state, tracked: !frame.isStillImage)
                        return (hands, state)
                    })
                }
            }
        }
    }
}
