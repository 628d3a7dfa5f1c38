import FrameIO
import PoseCore

/// A model that finds poses in a frame, as a stream runs it: PoseNet's `PoseFinding`, or a
/// model that carries state from one video frame to the next (BlazePose: the next frame's crop
/// comes from this frame's landmarks).
///
/// The stream (`poses(from:)`, ``PoseFrameSequence``) asks the model for workers, hands them the
/// frames and gives the poses identities (``/PoseCore/PoseStream``). A model whose video frames
/// are ``FrameDependence/independent`` gets one worker per frame in flight, each on its share of
/// the model's threads, frame `n` on worker `n % count`; a model that
/// ``FrameDependence/carriesState`` gets one worker per stream, which sees every frame in order,
/// one at a time (the reader still reads the next frame while it works).
public protocol PoseFrameModel: AnyObject, Sendable {
    /// Cores one frame uses (split between the frames in flight of a stream).
    var threads: Int { get }
    /// Whether video frames can run apart from each other (and so how a stream schedules them).
    var frameDependence: FrameDependence { get }
    /// True when the model smooths video keypoints itself (MediaPipe's filters): a stream then
    /// gives identities only and leaves smoothing to the worker (nothing is smoothed twice).
    var smoothsKeypoints: Bool { get }
    /// A worker for one stream on `threads` cores: activations of its own on the model's weights
    /// and, for a model that carries state, that stream's state (starting from nothing).
    /// `smoothing` is the stream's choice, for a model that ``smoothsKeypoints``.
    func makeFrameWorker(threads: Int, smoothing: Bool) throws -> any PoseFrameWorker
}

/// How the video frames of a stream depend on each other.
public enum FrameDependence: Sendable, Equatable {
    /// Each frame on its own (PoseNet): several frames may be in flight on several workers.
    case independent
    /// A frame needs what the previous frame left (a tracked region, filter state): one worker
    /// runs the stream's frames in order, one frame in flight.
    case carriesState
}

/// Runs the frames of one stream for a ``PoseFrameModel``: calls never overlap (the stream hands
/// a worker its next frame once the last one is done). For a model that carries state, a still
/// image (``/FrameIO/VideoFrame/isStillImage``) is taken on its own (MediaPipe's static image
/// mode) and a video frame goes on from the previous one.
public protocol PoseFrameWorker: AnyObject, Sendable {
    /// The poses in `frame`, best first, in its pixels.
    func poses(in frame: VideoFrame) throws -> [Pose]
}
