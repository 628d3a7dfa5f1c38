import FrameIO
import PoseCore

/// One frame of a stream with the people found in it: what a model's `poses(from:)`
/// (``PoseFrameSequence``) delivers, the ``ProcessedFrame`` of a pose model (`output` is the
/// poses, also named ``ProcessedFrame/poses``).
///
///     for try await detected in detector.poses(from: MediaFrames(path: "clip.mp4")) {
///         for pose in detected.poses { print(detected.index, pose.id ?? 0, pose[.nose].position) }
///     }
public typealias DetectedFrame = ProcessedFrame<[Pose]>

extension ProcessedFrame where Output == [Pose] {
    /// The people in the frame, best first, in its pixels. On video each has its ``/PoseCore/Pose/id`` and
    /// only the poses that are people are kept (duplicates and faint poses no person's track takes
    /// are left out); for a still image, every pose decoded, without ids.
    public var poses: [Pose] {
        get { output }
        set { output = newValue }
    }

    /// A frame and the poses found in it (for a finder or a test of your own; the library's
    /// streams make these).
    public init(frame: VideoFrame, poses: [Pose], droppedBefore: Int = 0) {
        self.init(frame: frame, output: poses, droppedBefore: droppedBefore)
    }

    /// The frame's record (`posekit pose`'s JSON line, `ActionRecognizer`'s input): a stream
    /// without a frame rate is timed at `frameRate` (`PoseStream.fallbackFrameRate` unless told).
    public func poseFrame(source: String? = nil, frameRate: Double = PoseStream.fallbackFrameRate) -> PoseFrame {
        PoseFrame(frame: index, time: PoseStream.trackingTime(frameIndex: index, time: time, frameRate: frameRate),
                  width: width, height: height, poses: poses, source: source)
    }
}
