import FrameIO
import PoseCore
@_exported import Streaming

/// PoseNet on the model-agnostic stream (`Streaming`): its frames are independent, each worker a
/// finder sharing this one's weights; PoseKit's own smoother smooths its keypoints.
extension PoseFinding {
    /// PoseNet's frames do not depend on each other: several may be in flight.
    public var frameDependence: FrameDependence { .independent }
    /// PoseNet leaves smoothing to the stream (PoseKit's One-Euro smoother).
    public var smoothsKeypoints: Bool { false }

    /// This finder itself on all its threads (one frame at a time), else a finder sharing its
    /// weights on `threads` cores (``sharingWeights(threads:)``).
    public func makeFrameWorker(threads: Int, smoothing: Bool) throws -> any PoseFrameWorker {
        threads == self.threads ? self : try sharingWeights(threads: threads)
    }
}

/// The people in every frame of a stream, found by PoseNet: the model-agnostic
/// `PoseFrameSequence` (module `Streaming`), under the name it had.
public typealias PoseDetectionSequence<Frames: AsyncSequence & Sendable> = PoseFrameSequence<Frames> where Frames.Element == VideoFrame

extension PoseDetector {
    /// The most frames a stream keeps in flight (`FramesInFlight.maximum`).
    public static let maxFramesInFlight = FramesInFlight.maximum

    /// How many frames a stream keeps in flight on `threads` threads when `requested` are asked
    /// for (`FramesInFlight.count(requested:threads:)`): one per thread when nil, never more than
    /// the threads nor ``maxFramesInFlight``, and at least one.
    public static func framesInFlight(requested: Int?, threads: Int) -> Int {
        FramesInFlight.count(requested: requested, threads: threads)
    }

    /// The threads of each of `frames` frames in flight (`FramesInFlight.threadShares(frames:threads:)`):
    /// `threads` split as evenly as they go, the first frames one more (5 threads on 2 frames: `[3, 2]`).
    public static func workerThreadShares(frames: Int, threads: Int) -> [Int] {
        FramesInFlight.threadShares(frames: frames, threads: threads)
    }
}
