import FrameIO
import PoseCore

/// One frame of a stream with the people found in it: what a model's `poses(from:)`
/// (``PoseFrameSequence``) delivers.
///
///     for try await detected in detector.poses(from: MediaFrames(path: "clip.mp4")) {
///         for pose in detected.poses { print(detected.index, pose.id ?? 0, pose[.nose].position) }
///     }
public struct DetectedFrame: Sendable {
    /// The frame as it was read (draw on ``/FrameIO/VideoFrame/rgb()`` for an overlay).
    public var frame: VideoFrame
    /// The people in the frame, best first, in its pixels. On video each has its ``/PoseCore/Pose/id`` and
    /// only the poses that are people are kept (duplicates and faint poses no person's track takes
    /// are left out); for a still image, every pose decoded, without ids.
    public var poses: [Pose]
    /// Frames dropped before this one because they arrived while the previous was being
    /// processed (only when late frames are dropped; otherwise 0).
    public var droppedBefore: Int

    /// A frame and the poses found in it (for a finder or a test of your own; the library's
    /// streams make these).
    public init(frame: VideoFrame, poses: [Pose], droppedBefore: Int = 0) {
        self.frame = frame
        self.poses = poses
        self.droppedBefore = droppedBefore
    }

    /// Zero-based index of the frame in its stream.
    public var index: Int { frame.index }
    /// Seconds from the first frame; nil for still images and streams without a frame rate.
    public var time: Double? { frame.time }
    /// Width of the frame in pixels.
    public var width: Int { frame.width }
    /// Height of the frame in pixels.
    public var height: Int { frame.height }

    /// The frame's record (`posekit pose`'s JSON line, `ActionRecognizer`'s input): a stream
    /// without a frame rate is timed at `PoseStream.fallbackFrameRate`.
    public func poseFrame(source: String? = nil) -> PoseFrame {
        PoseFrame(frame: index, time: PoseStream.trackingTime(frameIndex: index, time: time),
                  width: width, height: height, poses: poses, source: source)
    }
}
