/// One video frame's poses as ``PoseDetector/poses(from:smoothing:)`` delivers them: what a
/// line of `posekit pose` output holds for a video frame. It is a ``PoseFrame`` (what the
/// action engine reads) plus the people's identities, with the time left out for streams without a
/// frame rate; `PoseFrame(detected)` converts.
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

extension PoseFrame {
    /// A detected video frame's poses; a frame without a time is placed at `index / fps`.
    public init(_ detected: DetectedFrame, fps: Double = 30) {
        self.init(frame: detected.index, time: detected.time ?? Double(detected.index) / fps,
                  width: detected.width, height: detected.height, poses: detected.poses)
    }
}
