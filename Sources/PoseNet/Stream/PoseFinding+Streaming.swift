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
