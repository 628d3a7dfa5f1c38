import FrameIO
import PoseCore

/// A model that finds poses in a frame, as a stream runs it: PoseNet's `PoseFinding`, or a
/// model that carries state from one video frame to the next (BlazePose: the next frame's crop
/// comes from this frame's landmarks). A ``FrameModel`` whose result is the poses.
///
/// The stream (`poses(from:)`, ``PoseFrameSequence``) runs the model's workers as every
/// ``FrameModel``'s are run and gives the poses identities (``/PoseCore/PoseStream``).
public protocol PoseFrameModel: FrameModel where Output == [Pose] {
    /// True when the model smooths video keypoints itself (MediaPipe's filters): a stream then
    /// gives identities only and leaves smoothing to the worker (nothing is smoothed twice).
    var smoothsKeypoints: Bool { get }
    /// A worker for one stream on `threads` cores: activations of its own on the model's weights
    /// and, for a model that carries state, that stream's state (starting from nothing).
    /// `smoothing` is the stream's choice, for a model that ``smoothsKeypoints``.
    func makeFrameWorker(threads: Int, smoothing: Bool) throws -> any PoseFrameWorker
}

extension PoseFrameModel {
    /// ``makeFrameWorker(threads:smoothing:)``, as the stream asks for it.
    public func makeWorker(threads: Int, smoothing: Bool) throws -> any FrameWorker<[Pose]> {
        // Opened so that the pose worker is seen as the frame worker it is.
        func frameWorker<Worker: PoseFrameWorker>(_ worker: Worker) -> any FrameWorker<[Pose]> { worker }
        return frameWorker(try makeFrameWorker(threads: threads, smoothing: smoothing))
    }
}

/// Runs the frames of one stream for a ``PoseFrameModel``: a ``FrameWorker`` whose result is the
/// poses (calls never overlap; a still image on its own, a video frame from the previous one).
public protocol PoseFrameWorker: FrameWorker where Output == [Pose] {
    /// The poses in `frame`, best first, in its pixels.
    func poses(in frame: VideoFrame) throws -> [Pose]
}

extension PoseFrameWorker {
    /// ``poses(in:)``.
    public func process(_ frame: VideoFrame) throws -> [Pose] {
        try poses(in: frame)
    }
}
