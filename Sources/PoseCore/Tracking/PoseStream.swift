/// What `posekit pose` adds to a video's per-frame poses: an identity per person (``PoseTracker``,
/// the same tracker `actions` uses) and, with smoothing on, One-Euro-filtered keypoints
/// (``PoseSmoother``). One instance per input stream, so IDs start at 1 in each input.
/// ``PoseDetector/poses(from:smoothing:)`` applies it to an async stream of frames.
public struct PoseStream: Sendable {
    /// Frame rate assumed when the stream has none (Y4M `F0:0`): the usual camera rate.
    public static let fallbackFrameRate = 30.0

    private var tracker: PoseTracker
    private var smoother: PoseSmoother?

    public init(smoothing: Bool) {
        tracker = PoseTracker()
        tracker.minimumPoseScore = 0   // every reported pose gets an identity
        smoother = smoothing ? PoseSmoother() : nil
    }

    /// The time used for tracking and smoothing: the frame's time stamp, or the frame index at
    /// ``fallbackFrameRate`` when the stream has no frame rate.
    public static func trackingTime(frameIndex: Int, time: Double?) -> Double {
        time ?? Double(frameIndex) / fallbackFrameRate
    }

    /// One frame's poses (best first) → the same poses, in the same order, with their IDs.
    public mutating func process(_ poses: [Pose], frameIndex: Int, time: Double?) -> (poses: [Pose], ids: [Int]) {
        let t = Self.trackingTime(frameIndex: frameIndex, time: time)
        var tracked = tracker.update(poses: poses, time: t)
        if smoother != nil { tracked = smoother!.smooth(tracked, time: t, liveTrackIDs: tracker.liveTrackIDs) }
        return (tracked.map(\.pose), tracked.map(\.trackID))
    }
}
