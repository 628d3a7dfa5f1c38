import FrameIO

/// A model a stream runs frame after frame, giving its own result type for each frame: poses
/// (``PoseFrameModel``, `[Pose]`), hands (`HandDetector`, `[Hand]` with handedness and world
/// points), or anything a model finds in a frame.
///
/// The stream (``outputs(from:smoothing:framesInFlight:dropsLateFrames:)``, ``FrameSequence``)
/// asks the model for workers and hands them the frames, reading one frame ahead. A model whose
/// video frames are ``FrameDependence/independent`` gets one worker per frame in flight, each on
/// its share of the model's threads, frame `n` on worker `n % count`; a model that
/// ``FrameDependence/carriesState`` gets one worker per stream, which sees every frame in order,
/// one at a time (the reader still reads the next frame while it works), and whose state
/// (tracked regions, filters, identities) starts from nothing with each pass.
public protocol FrameModel<Output>: AnyObject, Sendable {
    /// What the model finds in one frame.
    associatedtype Output: Sendable
    /// Cores one frame uses (split between the frames in flight of a stream).
    var threads: Int { get }
    /// Whether video frames can run apart from each other (and so how a stream schedules them).
    var frameDependence: FrameDependence { get }
    /// A worker for one stream on `threads` cores: activations of its own on the model's weights
    /// and, for a model that carries state, that stream's state (starting from nothing).
    /// `smoothing` is the stream's choice, for a model that smooths its results itself.
    func makeWorker(threads: Int, smoothing: Bool) throws -> any FrameWorker<Output>
}

/// How the video frames of a stream depend on each other.
public enum FrameDependence: Sendable, Equatable {
    /// Each frame on its own (PoseNet): several frames may be in flight on several workers.
    case independent
    /// A frame needs what the previous frame left (a tracked region, filter state, identities):
    /// one worker runs the stream's frames in order, one frame in flight.
    case carriesState
}

/// Runs the frames of one stream for a ``FrameModel``: calls never overlap (the stream hands a
/// worker its next frame once the last one is done). For a model that carries state, a still
/// image (``/FrameIO/VideoFrame/isStillImage``) is taken on its own (MediaPipe's static image
/// mode) and a video frame goes on from the previous one.
public protocol FrameWorker<Output>: AnyObject, Sendable {
    /// What the worker finds in one frame.
    associatedtype Output: Sendable
    /// What `frame` holds, in its pixels.
    func process(_ frame: VideoFrame) throws -> Output
}
