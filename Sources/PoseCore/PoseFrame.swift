import Foundation

/// One input frame's poses: what `posekit pose` writes per line, what `PoseDetector.poses(from:)`
/// delivers per video frame, and what the action engine consumes.
public struct PoseFrame: Sendable, Equatable {
    /// Index of the frame in its source stream (0-based).
    public var frame: Int
    /// Presentation time in seconds. Must not decrease along a stream.
    public var time: Double
    /// Image size in pixels (0 when unknown).
    public var width: Int
    public var height: Int
    /// Every person found in the frame, in image pixels, each with its ``Pose/id`` on video.
    public var poses: [Pose]
    /// The input the frame came from (`"source"` in `posekit pose` output), if known.
    public var source: String?

    public init(frame: Int, time: Double, width: Int = 0, height: Int = 0, poses: [Pose], source: String? = nil) {
        self.frame = frame; self.time = time; self.width = width; self.height = height; self.poses = poses
        self.source = source
    }
}
