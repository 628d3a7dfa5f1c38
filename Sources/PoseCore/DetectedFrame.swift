/// One video frame's poses as ``PoseDetector/poses(from:smoothing:)`` delivers them: what a
/// line of `posekit pose` output holds for a video frame.
public struct DetectedFrame: Sendable, Equatable {
    /// Zero-based index of the frame in its stream.
    public var index: Int
    /// Seconds from the first frame; nil when the stream has no frame rate (Y4M `F0:0`).
    public var time: Double?
    /// Frame size in pixels.
    public var width: Int
    public var height: Int
    /// Every person found, best score first, in frame pixels (smoothed over time unless asked not to).
    public var poses: [Pose]
    /// Each pose's identity (same order as ``poses``): 1, 2, 3, ... in order of first
    /// appearance, kept while the person stays in view and through gaps up to 0.5 s.
    public var ids: [Int]

    public init(index: Int, time: Double?, width: Int, height: Int, poses: [Pose], ids: [Int]) {
        precondition(ids.count == poses.count, "DetectedFrame: \(ids.count) ids for \(poses.count) poses")
        self.index = index; self.time = time; self.width = width; self.height = height
        self.poses = poses; self.ids = ids
    }
}
